import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { createEngine, createWorkspace, parseCsv } from '@chs/core';
import { createTestDatabase, type TestDatabase } from '@chs/core/testing';
import { insertClient, insertInteractions } from '../../../../packages/core/src/health/test-fixtures.js';
import { loadConfig } from '../../config.js';
import type { CliContext } from '../context.js';
import { main } from '../main.js';

class Capture extends Writable {
  text = '';
  override _write(chunk: Buffer, _enc: BufferEncoding, done: () => void): void {
    this.text += chunk.toString('utf8');
    done();
  }
}

function context(): { ctx: CliContext; stdout: Capture; stderr: Capture } {
  const stdout = new Capture();
  const stderr = new Capture();
  const ctx: CliContext = {
    env: {},
    stdout,
    stderr,
    stdin: process.stdin,
    config: (flags) => loadConfig({}, flags),
    openEngine: (config) => createEngine({ database: config.databaseUrl }),
  };
  return { ctx, stdout, stderr };
}

const databases: TestDatabase[] = [];
/** A SQLite file, or a fresh PostgreSQL database when CHS_TEST_DATABASE=postgres. */
async function freshDatabase(): Promise<string> {
  const d = await createTestDatabase();
  databases.push(d);
  return d.url;
}

afterEach(async () => {
  process.exitCode = undefined;
  for (const d of databases.splice(0)) await d.drop();
});

describe('parseCsv', () => {
  it('handles quotes, doubled quotes, CRLF, a BOM and multi-line cells with their line numbers', () => {
    const rows = parseCsv('\ufeffa,b\r\n"x, y","say ""hi"""\r\n"two\nlines",z\n\nlast,1');
    expect(rows).toEqual([
      { line: 1, cells: ['a', 'b'] },
      { line: 2, cells: ['x, y', 'say "hi"'] },
      { line: 3, cells: ['two\nlines', 'z'] },
      { line: 6, cells: ['last', '1'] },
    ]);
  });
});

describe('chs clients import', () => {
  it('creates unknown domains, updates known ones, reports bad rows by line and exits non-zero', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'chs-clients-'));
    const dbFile = await freshDatabase();
    const setup = await createEngine({ database: dbFile });
    await createWorkspace(setup.store.db, { domain: 'ourco.com', name: 'Ourco', ownerEmail: 'ana@ourco.com', ownerName: 'Ana' });
    const at = '2024-01-01T00:00:00.000Z';
    await setup.store.db
      .insertInto('clients')
      .values({
        id: 'c2',
        workspace_id: 'ourco.com',
        name: 'beta',
        name_source: 'domain',
        primary_domain: 'beta.io',
        mrr: null,
        renewal_date: null,
        csm_owner: null,
        is_excluded: 0,
        status: 'active',
        health_score: null,
        health_updated_at: null,
        last_interaction_at: null,
        created_at: at,
        updated_at: at,
      })
      .execute();
    await setup.store.db.insertInto('client_domains').values({ workspace_id: 'ourco.com', domain: 'beta.io', client_id: 'c2' }).execute();
    await setup.close();

    const csv = join(dir, 'clients.csv');
    writeFileSync(
      csv,
      [
        'domain,name,mrr,renewalDate,csmOwner,isExcluded',
        'beta.io,Beta Corp,1200.50,2024-09-01,Ana@ourco.com,false',
        'www.newco.co.uk,,300,,,',
        'bad domain,,,,,',
        'gamma.org,,-5,,,',
        '"delta.net","Delta, Inc.",,2024-02-30,,',
        'excl.com,,,,,yes',
        'gmail.com,,,,,',
        'ourco.com,,,,,',
      ].join('\n'),
    );
    const { ctx, stdout, stderr } = context();
    const code = await main(['node', 'chs', '--db', dbFile, 'clients', 'import', '--workspace', 'ourco.com', '--csv', csv, '--json'], ctx);
    expect(code).toBe(2);
    const out = JSON.parse(stdout.text) as { rows: number; created: number; updated: number; errors: { line: number; message: string }[] };
    expect(out.rows).toBe(8);
    expect(out.created).toBe(2);
    expect(out.updated).toBe(1);
    expect(out.errors.map((e: { line: number }) => e.line)).toEqual([4, 5, 6, 8, 9]);
    expect(out.errors[1]?.message).toMatch(/mrr/);
    expect(out.errors[2]?.message).toMatch(/renewalDate/);
    expect(stderr.text).toBe('');

    const check = await createEngine({ database: dbFile });
    const rows = await check.store.db.selectFrom('clients').selectAll().where('workspace_id', '=', 'ourco.com').orderBy('primary_domain').execute();
    expect(rows.map((r) => [r.primary_domain, r.name, r.mrr, r.renewal_date, r.csm_owner, r.is_excluded])).toEqual([
      ['beta.io', 'Beta Corp', 1200.5, '2024-09-01', 'ana@ourco.com', 0],
      ['excl.com', 'Excl', null, null, null, 1],
      ['newco.co.uk', 'Newco', 300, null, null, 0],
    ]);
    await check.close();

    // Text mode names file:line for each bad row; a clean file exits 0.
    const text = context();
    await main(['node', 'chs', '--db', dbFile, 'clients', 'import', '--workspace', 'ourco.com', '--csv', csv], text.ctx);
    expect(text.stdout.text).toBe('8 rows: 0 clients created, 3 updated, 5 rejected.\n');
    expect(text.stderr.text).toContain(`${csv}:4: `);
    process.exitCode = undefined;
    const good = join(dir, 'good.csv');
    writeFileSync(good, 'domain,mrr\nbeta.io,10\n');
    const ok = context();
    expect(await main(['node', 'chs', '--db', dbFile, 'clients', 'import', '--workspace', 'ourco.com', '--csv', good], ok.ctx)).toBe(0);
    const unknownWs = context();
    expect(await main(['node', 'chs', '--db', dbFile, 'clients', 'import', '--workspace', 'nope.com', '--csv', good], unknownWs.ctx)).toBe(1);
    expect(unknownWs.stderr.text).toMatch(/WORKSPACE_NOT_FOUND/);
  });
});

describe('chs clients suggested / accept / ignore', () => {
  it('lists suggestions as a table or JSON, accepts one (scored at once) and ignores another', async () => {
    const dbFile = await freshDatabase();
    const setup = await createEngine({ database: dbFile });
    const db = setup.store.db;
    await createWorkspace(db, { domain: 'ourco.com', name: 'Ourco', ownerEmail: 'ana@ourco.com', ownerName: 'Ana' });
    await insertClient(db, 'ourco.com', { id: 's1', domain: 'initech.com', name: 'Initech', status: 'suggested', discovery: 'cc_only' });
    await insertClient(db, 'ourco.com', { id: 's2', domain: 'globex.com', name: 'Globex', status: 'suggested', discovery: 'co_recipient' });
    await insertInteractions(db, 'ourco.com', [
      { id: 'i1', clientId: 's1', at: '2024-05-02T09:00:00.000Z', direction: 'inbound', sentiment: 0.6, from: 'peter@initech.com', addressed: 0 },
      { id: 'i2', clientId: 's1', at: '2024-06-10T09:00:00.000Z', direction: 'inbound', sentiment: 0.4, from: 'milton@initech.com', addressed: 0 },
      { id: 'g1', clientId: 's2', at: '2024-06-01T09:00:00.000Z', direction: 'outbound', sentiment: 0, from: 'ana@ourco.com' },
    ]);
    await setup.close();
    const chs = async (...args: string[]) => {
      const c = context();
      const code = await main(['node', 'chs', '--db', dbFile, 'clients', ...args], c.ctx);
      return { code, out: c.stdout.text, err: c.stderr.text };
    };

    const table = await chs('suggested', '--workspace', 'ourco.com');
    expect(table.code).toBe(0);
    const lines = table.out.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^DOMAIN\s+MESSAGES\s+PEOPLE\s+FIRST\s+LAST\s+WHY$/);
    expect(lines[1]).toMatch(/^initech\.com\s+2\s+2\s+2024-05-02\s+2024-06-10\s+\S/);
    expect(lines[2]).toMatch(/^globex\.com\s+1\s+0\s+2024-06-01\s+2024-06-01\s+\S/);
    expect(lines).toHaveLength(3);
    const limited = await chs('suggested', '--workspace', 'ourco.com', '--limit', '1', '--json');
    expect(JSON.parse(limited.out)).toMatchObject({ total: 2, suggestions: [{ domain: 'initech.com', reason: 'cc_only', messages: 2, people: 2 }] });

    const accepted = await chs('accept', 'initech.com', '--workspace', 'ourco.com', '--json');
    expect(accepted.code).toBe(0);
    const client = (JSON.parse(accepted.out) as { client: { id: string; name: string; sentimentScore: number } }).client;
    expect(client).toMatchObject({ id: 's1', name: 'Initech', domain: 'initech.com' });
    const check = await createEngine({ database: dbFile });
    const row = await check.store.db.selectFrom('clients').select(['status', 'health_score']).where('id', '=', 's1').executeTakeFirstOrThrow();
    await check.close();
    expect(row.status).toBe('active');
    expect(row.health_score).toBe(client.sentimentScore);

    const ignored = await chs('ignore', 'GLOBEX.com', '--workspace', 'ourco.com');
    expect(ignored.code).toBe(0);
    expect(ignored.out).toMatch(/^Ignored globex\.com/);
    expect((await chs('suggested', '--workspace', 'ourco.com')).out).toBe('No suggested clients in ourco.com.\n');
    expect(JSON.parse((await chs('suggested', '--workspace', 'ourco.com', '--status', 'ignored', '--json')).out)).toMatchObject({
      total: 1,
      suggestions: [{ domain: 'globex.com', status: 'ignored' }],
    });

    // Text accept names the client and its score; unknown domains and bad flags fail.
    const text = await chs('accept', 'globex.com', '--workspace', 'ourco.com');
    expect(text.out).toMatch(/^Accepted globex\.com: client Globex \(s2\), health score \d+(\.\d+)?\.\n$/);
    const missing = await chs('accept', 'nowhere.com', '--workspace', 'ourco.com');
    expect(missing.code).toBe(1);
    expect(missing.err).toMatch(/NOT_FOUND/);
    expect((await chs('ignore', 'initech.com', '--workspace', 'ourco.com')).code).toBe(1);
    for (const bad of [
      ['--status', 'active'],
      ['--limit', '0'],
      ['--limit', '201'],
      ['--limit', 'x'],
    ]) {
      const r = await chs('suggested', '--workspace', 'ourco.com', ...bad);
      expect(r.code, bad.join(' ')).toBe(1);
      expect(r.err).toMatch(/INVALID_INPUT/);
    }
  });
});

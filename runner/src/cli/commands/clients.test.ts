import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { createEngine, createWorkspace, parseCsv } from '@chs/core';
import { createTestDatabase, type TestDatabase } from '@chs/core/testing';
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

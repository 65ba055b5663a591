/**
 * The command line as it ships: `chs <command>` loads only that command, and the bundle that
 * bin/chs.js runs (runner/scripts/bundle.mjs, built by `npm ci` and `npm test`) behaves as the
 * unbundled build does, its ingest worker threads included.
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestDatabase, defaultTestDialectName } from '@chs/core/testing';
import { buildProgram, main } from './main.js';
import { captureContext } from './testing.js';
import { chs, makeMailbox } from '../jobs/testing.js';

const BUNDLE = fileURLToPath(new URL('../../dist/bundle/cli.js', import.meta.url));
const VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
const dir = mkdtempSync(join(tmpdir(), 'chs-startup-'));
const pg = defaultTestDialectName() === 'postgres';
const databases = pg ? [await createTestDatabase('postgres'), await createTestDatabase('postgres'), await createTestDatabase('postgres')] : [];
afterAll(async () => {
  for (const d of databases) await d.drop();
});

function commandNames(program: { commands: readonly { name(): string }[] }): string[] {
  return program.commands.map((c) => c.name()).sort();
}

describe('chs loads the command it runs', () => {
  const { ctx } = captureContext({});

  it('`chs ingest …` registers the ingest command only, the global --db and its value skipped', async () => {
    expect(commandNames(await buildProgram(ctx, ['node', 'chs', 'ingest', '--mbox', 'x']))).toEqual(['ingest']);
    expect(commandNames(await buildProgram(ctx, ['node', 'chs', '--db', 'serve', 'ingest']))).toEqual(['ingest']);
    expect(commandNames(await buildProgram(ctx, ['node', 'chs', 'disconnect', 'google']))).toEqual(['connect', 'disconnect']);
  });

  it('help and unknown commands see every command; --version needs none', async () => {
    const all = commandNames(await buildProgram(ctx, ['node', 'chs', '--help']));
    expect(all).toEqual([
      'clients',
      'connect',
      'demo',
      'disconnect',
      'health',
      'ingest',
      'init',
      'keys',
      'notify',
      'outcomes',
      'profile',
      'secrets',
      'sentiment',
      'serve',
      'sync',
      'webhooks',
    ]);
    expect(commandNames(await buildProgram(ctx, ['node', 'chs', 'nosuch']))).toEqual(all);
    expect(commandNames(await buildProgram(ctx))).toEqual(all);
    expect(commandNames(await buildProgram(ctx, ['node', 'chs', '--version']))).toEqual([]);
  });

  it('an unknown command is still refused with the list of commands to choose from', async () => {
    const { ctx: c, stderr } = captureContext({});
    expect(await main(['node', 'chs', 'ingst'], c)).not.toBe(0);
    expect(stderr.text).toMatch(/unknown command 'ingst'/);
    expect(stderr.text).toMatch(/ingest/);
  });
});

describe('the bundled command line', () => {
  it('is built (npm ci and npm test build it)', () => {
    if (!existsSync(BUNDLE) && process.env.CI !== 'true') console.warn(`[chs tests] ${BUNDLE} not built: run \`npm run bundle -w runner\``);
    expect(existsSync(BUNDLE) || process.env.CI !== 'true').toBe(true);
  });

  it('prints the runner’s version', async () => {
    const r = await chs(process.env as Record<string, string>, '--version');
    expect(r).toMatchObject({ code: 0, stdout: `${VERSION}\n` });
  });

  it('ingests a mailbox in its worker threads exactly as the unbundled code does in-process', async () => {
    const { messages } = makeMailbox(60, { newest: Date.parse('2026-11-01T12:00:00Z'), spacingMs: 3_600_000 });
    const mbox = join(dir, 'inbox.mbox');
    writeFileSync(mbox, messages.map((m) => `From sender@example.com Sat Jan  3 01:05:34 2026\n${m.raw.replace(/\r\n/g, '\n')}\n`).join(''));
    const env = {
      ...(process.env as Record<string, string>),
      CHS_LOG_LEVEL: 'warn',
      CHS_DATABASE_URL: '',
      CHS_SMTP_URL: '',
      CHS_DATA_DIR: '',
      CHS_NOW: '2026-11-02T00:00:00Z',
    };
    const [shipped, inProcess, source] = pg ? databases.map((d) => d.url) : [join(dir, 'shipped.db'), join(dir, 'in-process.db'), join(dir, 'source.db')];

    expect((await chs(env, '--db', shipped!, 'init', '--workspace', 'acme.com', '--name', 'Acme', '--owner-email', 'cs@acme.com', '--json')).code).toBe(0);
    const bundled = await chs(env, '--db', shipped!, 'ingest', '--mbox', mbox, '--workspace', 'acme.com', '--json');
    expect(bundled.code).toBe(0);
    // In-process, the bundle parses with the worker's own build (runner/scripts/bundle.mjs).
    expect((await chs(env, '--db', inProcess!, 'init', '--workspace', 'acme.com', '--name', 'Acme', '--owner-email', 'cs@acme.com', '--json')).code).toBe(0);
    const bundledInProcess = await chs(env, '--db', inProcess!, 'ingest', '--mbox', mbox, '--workspace', 'acme.com', '--workers', '0', '--json');
    expect(bundledInProcess.code).toBe(0);

    const { ctx, stdout } = captureContext({ CHS_NOW: env.CHS_NOW });
    expect(
      await main(['node', 'chs', '--db', source!, 'init', '--workspace', 'acme.com', '--name', 'Acme', '--owner-email', 'cs@acme.com', '--json'], ctx),
    ).toBe(0);
    stdout.text = '';
    expect(await main(['node', 'chs', '--db', source!, 'ingest', '--mbox', mbox, '--workspace', 'acme.com', '--workers', '0', '--json'], ctx)).toBe(0);

    const counts = (text: string): Record<string, unknown> => {
      const s = JSON.parse(text) as Record<string, unknown>;
      return {
        status: s.status,
        itemsProcessed: s.itemsProcessed,
        itemsAdded: s.itemsAdded,
        errorsCount: s.errorsCount,
        clientsCreated: s.clientsCreated,
        contactsCreated: s.contactsCreated,
      };
    };
    expect(counts(bundled.stdout)).toEqual({ status: 'completed', itemsProcessed: 60, itemsAdded: 60, errorsCount: 0, clientsCreated: 5, contactsCreated: 35 });
    expect(counts(bundled.stdout)).toEqual(counts(stdout.text));
    expect(counts(bundledInProcess.stdout)).toEqual(counts(stdout.text));
  }, 120_000);

  it('leaves the MIME libraries to the worker’s build: no command loads them at start', () => {
    // libmime's charset tables alone took ~60 ms of every command's start when a chunk the
    // command line loads held them. What `chs <command>` loads at start: cli.js, the command's
    // chunk (a dynamic import of cli.js) and every chunk they import statically.
    const dirOf = dirname(BUNDLE);
    const text = (f: string) => readFileSync(join(dirOf, f), 'utf8');
    const staticImports = (f: string) => [...text(f).matchAll(/(?:from|import)\s*"\.\/([\w-]+\.js)"/g)].map((m) => m[1]!);
    const commands = [...text('cli.js').matchAll(/import\("\.\/([\w-]+\.js)"\)/g)].map((m) => m[1]!);
    expect(commands.length).toBeGreaterThanOrEqual(10);
    const loaded = new Set<string>();
    const queue = ['cli.js', ...commands];
    while (queue.length) {
      const f = queue.shift()!;
      if (loaded.has(f)) continue;
      loaded.add(f);
      queue.push(...staticImports(f));
    }
    const mime = /node_modules\/(?:libmime|mailparser|encoding-japanese|postal-mime|iconv-lite)\//;
    expect([...loaded].filter((f) => mime.test(text(f)))).toEqual([]);
    expect(mime.test(text('worker.js'))).toBe(true);
  });
});

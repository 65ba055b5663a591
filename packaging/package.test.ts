/**
 * The packages as an embedder gets them: `npm pack` of @chs/core, @chs/fixtures and @chs/runner,
 * `npm install` of the tarballs into a new project outside the repository (default npm settings:
 * no allowScripts, no workspace links, no overrides), then, from that project, the README's two
 * Embedding examples (extracted from README.md, type-checked and run) and the packaged `chs`, on
 * SQLite and on PostgreSQL. Run with `npm run test:package` after a build; `.ci/run` runs it on the
 * lowest Node.js the packages promise (engines.node).
 */
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, postgresAvailable, type TestDatabase } from '../packages/core/src/store/testing.js';

const repo = fileURLToPath(new URL('..', import.meta.url));
const PACKAGES = [
  { dir: 'packages/core', name: '@chs/core' },
  { dir: 'fixtures', name: '@chs/fixtures' },
  { dir: 'runner', name: '@chs/runner' },
] as const;
/**
 * Packages of the installed tree that may run a script at install time, and why. Anything else
 * with an install script (or a binding.gyp, which npm builds implicitly) fails the test: that is
 * how a dependency that downloads at install time (as free-email-domains' postinstall did) would
 * come back.
 */
const INSTALL_SCRIPTS_ALLOWED: Readonly<Record<string, string>> = {
  'better-sqlite3': 'the SQLite driver: a prebuilt binary when one can be fetched, else built from source with node-gyp (no network needed)',
};

interface Ran {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** The environment an embedder's shell would have: none of the npm_* variables `npm run` sets for this repository. */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^npm_/i.test(k) && !k.startsWith('CHS_') && !k.startsWith('VITEST')) env[k] = v;
  // node-gyp builds against the headers of the Node that runs it (as it would after downloading them, which this network cannot).
  const nodeHome = dirname(dirname(process.execPath));
  if (existsSync(join(nodeHome, 'include', 'node', 'node.h'))) env.npm_config_nodedir = nodeHome;
  return { ...env, ...extra };
}

function run(command: string, args: string[], options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number }): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env ?? cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

function expectOk(r: Ran, what: string): void {
  expect(r.signal, `${what} was killed (timeout?)\n${r.stdout}\n${r.stderr}`).toBeNull();
  expect(r.code, `${what} exited ${r.code}\n${r.stdout}\n${r.stderr}`).toBe(0);
}

/** The first ```ts block of README.md's Embedding section that starts with `// <file>`. */
function readmeExample(file: string): string {
  const readme = readFileSync(join(repo, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Embedding\n'), readme.indexOf('\n## ', readme.indexOf('## Embedding\n') + 1));
  const blocks = [...section.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1] ?? '');
  const block = blocks.find((b) => b.startsWith(`// ${file} `));
  if (!block) throw new Error(`README.md's Embedding section has no \`\`\`ts block starting with "// ${file} "`);
  return block;
}

/** Every installed package (nested ones too) with the scripts npm runs at install time. */
function installScripts(nodeModules: string): Map<string, string> {
  const found = new Map<string, string>();
  const visit = (dir: string): void => {
    for (const entry of readdirSync(dir)) {
      if (entry.startsWith('.')) continue;
      const path = join(dir, entry);
      if (entry.startsWith('@')) {
        visit(path);
        continue;
      }
      const manifest = join(path, 'package.json');
      if (!existsSync(manifest)) continue;
      const pkg = JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string; scripts?: Record<string, string> };
      const scripts = ['preinstall', 'install', 'postinstall'].filter((s) => pkg.scripts?.[s]).map((s) => `${s}: ${pkg.scripts?.[s]}`);
      if (scripts.length === 0 && existsSync(join(path, 'binding.gyp'))) scripts.push('install: node-gyp rebuild (implicit: binding.gyp)');
      if (scripts.length > 0) found.set(pkg.name ?? entry, scripts.join('; '));
      if (existsSync(join(path, 'node_modules'))) visit(join(path, 'node_modules'));
    }
  };
  visit(nodeModules);
  return found;
}

interface Server {
  /** The first group of the ready line: the server's base URL. */
  base: string;
  stdout(): string;
  stderr(): string;
  /** SIGTERM, then SIGKILL after 20 s; how the process ended. */
  stop(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts a long-running process from the new project and waits (30 s at most) for the line `ready` matches on its stdout or stderr. */
async function startServer(cwd: string, command: string, args: string[], env: NodeJS.ProcessEnv, ready: RegExp): Promise<Server> {
  const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr.on('data', (b: Buffer) => (err += b.toString()));
  const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal })),
  );
  const started = Date.now();
  const readyLine = () => ready.exec(`${out}\n${err}`);
  while (!readyLine() && Date.now() - started < 30_000 && child.exitCode === null) await new Promise((r) => setTimeout(r, 100));
  const m = readyLine();
  const server: Server = {
    base: m?.[1] ?? '',
    stdout: () => out,
    stderr: () => err,
    async stop() {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      const end = await ended;
      clearTimeout(timer);
      return end;
    },
  };
  if (!m) {
    await server.stop();
    throw new Error(`${command} ${args.join(' ')} did not start\n${out}\n${err}`);
  }
  return server;
}

/** The lowest Node.js version a `>=x.y[.z]` range allows. */
function floorOf(range: string): string {
  const m = /^>=\s*(\d+)\.(\d+)(?:\.(\d+))?$/.exec(range.trim());
  if (!m) throw new Error(`engines.node "${range}" is not of the form >=x.y[.z]`);
  return `${m[1]}.${m[2]}.${m[3] ?? '0'}`;
}

const manifest = (dir: string) =>
  JSON.parse(readFileSync(join(repo, dir, 'package.json'), 'utf8')) as Record<string, unknown> & { engines?: { node?: string } };

describe('the packages installed from their tarballs into a new project', () => {
  const work = mkdtempSync(join(tmpdir(), 'chs-package-'));
  const app = join(work, 'app');
  const tarballs: string[] = [];
  const packed = new Map<string, string[]>();
  let install: Ran;
  const databases: TestDatabase[] = [];

  beforeAll(async () => {
    for (const p of PACKAGES) {
      if (!existsSync(join(repo, p.dir, 'dist', 'index.js'))) throw new Error(`${p.dir}/dist is missing: build first (npm run build)`);
      const r = await run('npm', ['pack', '--json', '--pack-destination', work], { cwd: join(repo, p.dir) });
      expectOk(r, `npm pack ${p.name}`);
      const [info] = JSON.parse(r.stdout) as { filename: string; files: { path: string }[] }[];
      if (!info) throw new Error(`npm pack ${p.name} said nothing`);
      tarballs.push(join(work, info.filename));
      packed.set(
        p.name,
        info.files.map((f) => f.path),
      );
    }
    mkdirSync(app);
    writeFileSync(join(app, 'package.json'), `${JSON.stringify({ name: 'host-app', private: true, type: 'module' }, null, 2)}\n`);
    copyFileSync(join(repo, 'fixtures', 'mailboxes', 'small.mbox'), join(app, 'small.mbox'));
    install = await run('npm', ['install', '--no-audit', '--no-fund', ...tarballs, 'fastify@^5', 'typescript@~5.9', '@types/node@^22'], {
      cwd: app,
      timeoutMs: 12 * 60_000,
    });
  }, 15 * 60_000);

  afterAll(async () => {
    for (const db of databases) await db.drop();
    rmSync(work, { recursive: true, force: true });
  });

  it('packs only what an embedder needs, with every export and bin present', () => {
    for (const p of PACKAGES) {
      const files = packed.get(p.name) ?? [];
      const pkg = manifest(p.dir) as { exports: Record<string, string | { types: string; default: string }>; bin?: Record<string, string> };
      expect(files, p.name).toContain('package.json');
      expect(files, p.name).toContain('LICENSE');
      expect(files, p.name).toContain('README.md');
      expect(files, p.name).toContain('CHANGELOG.md');
      expect(
        files.filter((f) => /\.test\.|\.tsbuildinfo$|^src\//.test(f)),
        `${p.name} ships tests, build info or sources`,
      ).toEqual([]);
      for (const target of Object.values(pkg.exports).flatMap((t) => (typeof t === 'string' ? [t] : [t.types, t.default]))) {
        expect(files, `${p.name} exports ${target}`).toContain(target.replace(/^\.\//, ''));
      }
      for (const bin of Object.values(pkg.bin ?? {})) expect(files, `${p.name} bin ${bin}`).toContain(bin.replace(/^\.\//, ''));
    }
    // `chs serve` from the published runner serves the dashboard as a clone does (its prepack copies the build in).
    expect(packed.get('@chs/runner')).toContain('dist/dashboard/index.html');
  });

  it('installs with default npm settings, no engine warning and no install-time download', () => {
    expectOk(install, 'npm install of the tarballs');
    const output = `${install.stdout}\n${install.stderr}`;
    expect(output).not.toMatch(/EBADENGINE|Unsupported engine/);
    const scripts = installScripts(join(app, 'node_modules'));
    const unexpected = [...scripts].filter(([name]) => !(name in INSTALL_SCRIPTS_ALLOWED));
    expect(unexpected, 'packages that run a script at install time').toEqual([]);
    // Every package promises the same Node.js, and CI runs this test on exactly its floor.
    const floors = new Set(PACKAGES.map((p) => manifest(p.dir).engines?.node));
    expect(floors.size, 'engines.node differs between the packages').toBe(1);
    const range = [...floors][0] ?? '';
    expect(manifest('.').engines?.node, "the repository's engines.node").toBe(range);
    if (process.env.CI === 'true') expect(process.version, `CI runs on the lowest promised Node.js (${range})`).toBe(`v${floorOf(range)}`);
  });

  it("type-checks the README's examples and every entry point against the installed packages' types, and loads every entry point", async () => {
    writeFileSync(join(app, 'embed.ts'), readmeExample('embed.ts'));
    writeFileSync(join(app, 'host.ts'), readmeExample('host.ts'));
    // Every `exports` entry of every package, imported by name: its types resolve and its module loads.
    const entries = PACKAGES.flatMap((p) =>
      Object.keys((manifest(p.dir) as { exports: Record<string, unknown> }).exports)
        .filter((k) => k !== './package.json')
        .map((k) => `${p.name}${k.slice(1)}`),
    );
    expect(entries).toEqual(expect.arrayContaining(['@chs/core', '@chs/core/free-mail', '@chs/runner', '@chs/fixtures']));
    const imports = entries.map((e, i) => `import * as m${i} from '${e}';`).join('\n');
    const count = `console.log(JSON.stringify({ ${entries.map((e, i) => `'${e}': Object.keys(m${i}).length`).join(', ')} }));`;
    writeFileSync(join(app, 'entries.ts'), `${imports}\n${count}\n`);
    writeFileSync(join(app, 'entries.mjs'), `${imports}\n${count}\n`);
    // skipLibCheck off: the packages' declarations must compile for an embedder, with only the dependencies they install.
    const tsconfig = {
      compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true, skipLibCheck: false, types: ['node'] },
      files: ['embed.ts', 'host.ts', 'entries.ts'],
    };
    writeFileSync(join(app, 'tsconfig.json'), JSON.stringify(tsconfig));
    expectOk(await run(process.execPath, [join(app, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', '.'], { cwd: app, timeoutMs: 120_000 }), 'tsc');
    const loaded = await run(process.execPath, ['entries.mjs'], { cwd: app });
    expectOk(loaded, 'node entries.mjs');
    expect(loaded.stderr).toBe('');
    const exported = JSON.parse(loaded.stdout) as Record<string, number>;
    for (const e of entries) expect(exported[e], `${e} exports nothing`).toBeGreaterThan(0);
  }, 180_000);

  for (const dialect of ['sqlite', 'postgres'] as const) {
    it(`${dialect}: the README's examples and the packaged chs (keys, serve with its dashboard), run from the new project`, async () => {
      if (dialect === 'postgres' && !(await postgresAvailable())) return; // postgresAvailable() throws in CI: never skipped there
      const db = await createTestDatabase(dialect);
      databases.push(db);
      const database = db.url;
      writeFileSync(join(app, 'embed.mjs'), readmeExample('embed.ts'));
      writeFileSync(join(app, 'host.mjs'), readmeExample('host.ts'));
      const env = cleanEnv({ CHS_NOW: '2025-06-30T00:00:00Z' });

      // The library example: ingest the small mailbox (34 messages, 4 client companies: fixtures/mailboxes/small.truth.json).
      const truth = JSON.parse(readFileSync(join(repo, 'fixtures', 'mailboxes', 'small.truth.json'), 'utf8')) as { messages: number; clientCount: number };
      const first = await run(process.execPath, ['embed.mjs', 'small.mbox', database], { cwd: app, env });
      expectOk(first, 'node embed.mjs');
      const read = /(\d+) messages read, (\d+) added, (\d+) new clients/.exec(first.stdout);
      expect(read, first.stdout).not.toBeNull();
      expect(Number(read?.[1])).toBe(truth.messages);
      expect(Number(read?.[2])).toBeGreaterThan(0);
      expect(Number(read?.[3])).toBe(truth.clientCount);
      expect(first.stdout).toMatch(new RegExp(`^${truth.clientCount} clients, \\d+ at risk$`, 'm'));
      // The example's engine.events listener heard each client that entered risk, once, with its reason.
      const atRisk = Number(new RegExp(`^${truth.clientCount} clients, (\\d+) at risk$`, 'm').exec(first.stdout)?.[1]);
      const heard = first.stdout.split('\n').filter((l) => l.startsWith('at risk: '));
      expect(atRisk).toBeGreaterThan(0);
      expect(heard, first.stdout).toHaveLength(atRisk);
      for (const line of heard) expect(line).toMatch(/^at risk: [^:]+: \S/);
      // Run again: the same mail is not stored twice.
      const again = await run(process.execPath, ['embed.mjs', 'small.mbox', database], { cwd: app, env });
      expectOk(again, 'node embed.mjs (again)');
      expect(again.stdout).toMatch(new RegExp(`^${truth.messages} messages read, 0 added, 0 new clients$`, 'm'));
      expect(again.stdout).not.toMatch(/^at risk: /m);

      // The packaged command line: a key for the HTTP API.
      const chs = join(app, 'node_modules', '.bin', 'chs');
      const keyRun = await run(chs, ['keys', 'create', '--workspace', 'ourco.com', '--name', 'packaging test', '--json', '--db', database], {
        cwd: app,
        env: cleanEnv({ CHS_DATA_DIR: join(app, 'data') }),
      });
      expectOk(keyRun, 'chs keys create');
      const key = (JSON.parse(keyRun.stdout) as { key: string }).key;
      expect(key).toMatch(/^sk-/);

      const auth = { authorization: `Bearer ${key}` };

      // The host example: the API mounted in the host's own Fastify, a job worker running.
      const host = await startServer(app, process.execPath, ['host.mjs', '0', database], env, /API at (http:\/\/\S+)\/api/);
      try {
        expect(await (await fetch(`${host.base}/hello`)).json()).toEqual({ from: 'host' });
        expect((await fetch(`${host.base}/api/health`)).status).toBe(200);
        const clients = await fetch(`${host.base}/api/clients?workspaceId=ourco.com`, { headers: auth });
        expect(clients.status).toBe(200);
        expect(((await clients.json()) as unknown[]).length).toBe(truth.clientCount);
        const anonymous = await fetch(`${host.base}/api/clients?workspaceId=ourco.com`);
        expect(anonymous.status).toBe(401);
        expect(((await anonymous.json()) as { code?: string }).code).toBe('AUTH_INVALID_KEY');
      } finally {
        // Closed in the README's order, nothing of ours keeps the process alive: it exits on its own.
        const end = await host.stop();
        expect(end, `host.mjs did not exit by itself after SIGTERM\n${host.stdout()}\n${host.stderr()}`).toEqual({ code: 0, signal: null });
        expect(host.stderr()).toBe('');
      }

      // The packaged `chs serve`: the API and the dashboard at /, as in a clone.
      const serve = await startServer(
        app,
        chs,
        ['serve', '--port', '0', '--db', database],
        cleanEnv({ CHS_DATA_DIR: join(app, 'data'), CHS_SCHEDULER: 'off' }),
        /chs: serving (http:\/\/127\.0\.0\.1:\d+)\/api/,
      );
      try {
        expect(serve.stderr()).not.toContain('the dashboard is not built');
        const page = await fetch(`${serve.base}/`, { headers: { accept: 'text/html' } });
        expect(page.status).toBe(200);
        expect(page.headers.get('content-type')).toMatch(/^text\/html/);
        expect(await page.text()).toContain('<title>Customer Health</title>');
        expect((await fetch(`${serve.base}/api/clients?workspaceId=ourco.com`, { headers: auth })).status).toBe(200);
      } finally {
        expect((await serve.stop()).code, serve.stderr()).toBe(0);
      }
    }, 180_000);
  }
});

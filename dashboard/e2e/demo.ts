/** The e2e tests' server: `chs demo` in a child process, on a port of its own. */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Env } from '../../runner/src/jobs/testing.js';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CHS_BIN = join(ROOT, 'runner/bin/chs.js');

/** Starts `chs demo --port 0` with `env` in `cwd`; resolves with the dashboard link it prints (on stderr). */
export function spawnDemo(env: Env, cwd: string): { server: ChildProcess; link: Promise<string> } {
  const server = spawn(process.execPath, [CHS_BIN, 'demo', '--port', '0'], { env, cwd });
  const link = new Promise<string>((ok, fail) => {
    let out = '';
    let err = '';
    const timer = setTimeout(() => fail(new Error(`chs demo printed no dashboard link in 150 s:\n${out}\n${err}`)), 150_000);
    // stdout is the runner's JSON log stream; the demo's lines and the link are on stderr.
    server.stdout.on('data', (d: Buffer) => {
      out += d.toString();
    });
    server.stderr.on('data', (d: Buffer) => {
      err += d.toString();
      const m = /^Dashboard: (http:\/\/\S+)$/m.exec(err);
      if (m) {
        clearTimeout(timer);
        ok(m[1]!);
      }
    });
    server.on('exit', (code) => {
      clearTimeout(timer);
      fail(new Error(`chs demo exited (${code}) before printing the link:\n${out}\n${err}`));
    });
  });
  return { server, link };
}

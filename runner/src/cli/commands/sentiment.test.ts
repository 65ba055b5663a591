import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { PassThrough, Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { CliContext } from '../context.js';
import { main } from '../main.js';

const squash = (s: number): number => s / Math.sqrt(s * s + 4);

class Capture extends Writable {
  text = '';
  isTTY?: boolean;
  override _write(chunk: Buffer, _enc: BufferEncoding, done: () => void): void {
    this.text += chunk.toString('utf8');
    done();
  }
}

function fakeContext(stdin: NodeJS.ReadableStream & { isTTY?: boolean }): { ctx: CliContext; stdout: Capture; stderr: Capture } {
  const stdout = new Capture();
  const stderr = new Capture();
  const ctx: CliContext = {
    env: {},
    stdout,
    stderr,
    stdin,
    config: () => {
      throw new Error('chs sentiment must not need a config');
    },
    openEngine: () => Promise.reject(new Error('chs sentiment must not open a database')),
  };
  return { ctx, stdout, stderr };
}

const parseLines = (text: string): { label: string; score: number }[] =>
  text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as { label: string; score: number });

describe('chs sentiment (in process)', () => {
  it('prints one {"label","score"} object per input line, in order, blank lines neutral', async () => {
    // Chunks cut mid-line; CRLF on one line; the last line has no newline.
    const stdin = Readable.from(['Great wo', 'rk!\n\nWe will cancel our subscription.\r\n', 'Meeting moved to 3pm.\nNo problems']);
    const { ctx, stdout, stderr } = fakeContext(stdin);
    expect(await main(['node', 'chs', 'sentiment'], ctx)).toBe(0);
    const out = parseLines(stdout.text);
    expect(out).toHaveLength(5);
    expect(out[0]?.label).toBe('positive');
    expect(out[0]?.score).toBeCloseTo(squash(3), 4); // "great work" is 3
    expect(out[1]).toEqual({ label: 'neutral', score: 0 });
    expect(out[2]?.label).toBe('negative');
    expect(out[2]?.score).toBeCloseTo(squash(-2.5), 4); // cancel -2 × 1.25
    expect(out[3]).toEqual({ label: 'neutral', score: 0 });
    expect(out[4]?.label).toBe('positive'); // the final line without a newline is scored
    for (const o of out) expect(Object.keys(o)).toEqual(['label', 'score']);
    expect(stdout.text.endsWith('\n')).toBe(true);
    expect(stderr.text).toBe('');
  });

  it('--json prints the same lines; only without it does a terminal get a hint on stderr', async () => {
    const input = 'Thanks so much!\nStill waiting on the refund.\n';
    const tty = (): NodeJS.ReadableStream & { isTTY?: boolean } => Object.assign(Readable.from([input]), { isTTY: true });
    const plain = fakeContext(tty());
    const json = fakeContext(tty());
    expect(await main(['node', 'chs', 'sentiment'], plain.ctx)).toBe(0);
    expect(await main(['node', 'chs', 'sentiment', '--json'], json.ctx)).toBe(0);
    expect(json.stdout.text).toBe(plain.stdout.text);
    expect(parseLines(json.stdout.text).map((o) => o.label)).toEqual(['positive', 'negative']);
    expect(json.stderr.text).toBe('');
    expect(plain.stderr.text).toMatch(/one text per line/);
  });

  it('empty input prints nothing', async () => {
    const { ctx, stdout } = fakeContext(Readable.from([]));
    expect(await main(['node', 'chs', 'sentiment', '--json'], ctx)).toBe(0);
    expect(stdout.text).toBe('');
  });

  it('streams: a line is answered before the input ends', async () => {
    const stdin = new PassThrough();
    const { ctx, stdout } = fakeContext(stdin);
    const done = main(['node', 'chs', 'sentiment', '--json'], ctx);
    stdin.write('We are thrilled.\n');
    for (let i = 0; i < 100 && stdout.text === ''; i++) await new Promise((r) => setTimeout(r, 10));
    expect(parseLines(stdout.text)).toHaveLength(1);
    stdin.end('The outage is unacceptable.\n');
    expect(await done).toBe(0);
    expect(parseLines(stdout.text).map((o) => o.label)).toEqual(['positive', 'negative']);
  });
});

describe('chs sentiment (the real bin)', () => {
  const root = fileURLToPath(new URL('../../../../', import.meta.url));
  const bin = `${root}runner/bin/chs.js`;
  const built = `${root}runner/dist/cli/commands/sentiment.js`;

  // The bin runs runner/dist: `npx tsc -b` (or `npm install`) builds it.
  it('reads stdin and writes one JSON line per input line', async () => {
    expect(existsSync(built), `${built} is missing: run npx tsc -b first`).toBe(true);
    const child = spawn(process.execPath, [bin, 'sentiment', '--json'], { cwd: root, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString('utf8')));
    child.stderr.on('data', (d: Buffer) => (err += d.toString('utf8')));
    child.stdin.end("We are not happy with the outage.\n\nThe migration went smoothly, great work.\nIt isn't working");
    const code = await new Promise<number | null>((resolve) => child.on('close', (exitCode) => resolve(exitCode)));
    expect(err).toBe('');
    expect(code).toBe(0);
    const lines = out.split('\n');
    expect(lines.pop()).toBe('');
    expect(lines.map((l) => (JSON.parse(l) as { label: string }).label)).toEqual(['negative', 'neutral', 'positive', 'negative']);
    expect(lines[1]).toBe('{"label":"neutral","score":0}');
  });
});

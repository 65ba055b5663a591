import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { RawMessage, SourceCursor } from '../interfaces.js';
import { mboxSource, parseEnvelopeDate } from './mbox.js';

const fixture = (name: string) => fileURLToPath(new URL(`./__fixtures__/${name}`, import.meta.url));

async function collect(path: string, from?: SourceCursor, chunkSize?: number): Promise<RawMessage[]> {
  const out: RawMessage[] = [];
  const source = mboxSource(path, chunkSize === undefined ? {} : { chunkSize });
  for await (const m of source.items(from)) out.push(m);
  return out;
}

const text = (m: RawMessage | undefined) => m?.raw.toString('utf8') ?? '';

describe('mboxSource', () => {
  it('splits an mboxrd file, unescapes >From lines and keeps an unescaped body From line', async () => {
    const msgs = await collect(fixture('mboxrd.mbox'));
    expect(msgs).toHaveLength(3);
    const first = text(msgs[0]);
    expect(first.startsWith('From: Alice <alice@example.com>\n')).toBe(true);
    expect(first).toContain('\nFrom the start, mboxrd escaped this.\n');
    expect(first).toContain('\n>From here, a quoted escaped line.\n');
    expect(first).toContain('\n> From with a space stays.\n');
    // The blank line the writer put before the next separator is not part of the message.
    expect(first.endsWith('a space stays.\n')).toBe(true);
    expect(text(msgs[1])).toContain('\nFrom Russia with love');
    expect(text(msgs[2])).toContain('Subject: third');
  });

  it('reads the envelope date of each separator as ISO UTC', async () => {
    const msgs = await collect(fixture('mboxrd.mbox'));
    expect(msgs.map((m) => m.envelopeDate)).toEqual(['2003-03-04T03:33:20.000Z', '2003-03-05T10:00:00.000Z', '2003-03-06T09:12:13.000Z']);
    expect(parseEnvelopeDate('From - ')).toBeUndefined();
    expect(parseEnvelopeDate('From 1844347792267117879@xxx Thu Nov 02 10:11:12 +0000 2017')).toBe('2017-11-02T10:11:12.000Z');
  });

  it('gives the key, kind, locations at separator offsets and a count', async () => {
    const path = fixture('mboxrd.mbox');
    const source = mboxSource(path);
    expect(source.kind).toBe('mbox');
    expect(source.key).toBe(`mbox:${path}`);
    expect(await source.total?.()).toBe(3);
    const bytes = readFileSync(path);
    const msgs = await collect(path);
    for (const m of msgs) {
      const offset = Number(m.location.slice(m.location.lastIndexOf('@') + 1));
      expect(m.location.startsWith(`${path}@`)).toBe(true);
      expect(bytes.toString('latin1', offset, offset + 5)).toBe('From ');
    }
    expect(msgs[2]?.cursor).toEqual({ offset: bytes.length });
  });

  it('resumes from every cursor with exactly the remaining messages', async () => {
    const path = fixture('mboxrd.mbox');
    const all = await collect(path);
    for (let i = 0; i < all.length; i++) {
      const rest = await collect(path, all[i]?.cursor);
      expect(rest.map(text)).toEqual(all.slice(i + 1).map(text));
    }
  });

  it('gives the same messages whatever the read chunk size', async () => {
    for (const name of ['mboxrd.mbox', 'crlf.mbox', 'bare-cr.mbox', 'content-length.mbox']) {
      const big = await collect(fixture(name));
      for (const size of [1, 7, 64]) {
        const small = await collect(fixture(name), undefined, size);
        expect(small.map(text)).toEqual(big.map(text));
        expect(small.map((m) => m.cursor)).toEqual(big.map((m) => m.cursor));
      }
    }
  });

  it('gives the same messages when items are transient (the consumer copies each before asking for the next)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'chs-mbox-'));
    const path = join(dir, 'sizes.mbox');
    // Small messages, some larger than the reader's buffer at the small chunk sizes, CRLF ones, quoted From lines.
    const body = (n: number) => Array.from({ length: n }, (_, i) => `line ${i} of the body\n`).join('');
    const parts = Array.from({ length: 60 }, (_, i) => {
      const eol = i % 7 === 3 ? '\r\n' : '\n';
      const text = `Subject: message ${i}\nMessage-ID: <m${i}@sizes.test>\n\n${body(i % 10 === 5 ? 400 : 3)}${i % 9 === 0 ? '>From the quoted line\n' : ''}`;
      return `From a${i}@b.example Tue Mar  4 03:33:20 2003\n${text}\n`.replace(/\n/g, eol);
    });
    writeFileSync(path, parts.join(''));
    for (const chunkSize of [1, 7, 64, 1000, undefined]) {
      const kept = (await collect(path, undefined, chunkSize)).map((m) => ({ text: text(m), cursor: m.cursor }));
      const copied: { text: string; cursor: SourceCursor }[] = [];
      for await (const m of mboxSource(path, chunkSize === undefined ? {} : { chunkSize }).items(undefined, { transient: true })) {
        copied.push({ text: text(m), cursor: m.cursor });
      }
      expect(copied, `chunks of ${chunkSize}`).toHaveLength(60);
      expect(copied, `chunks of ${chunkSize}`).toEqual(kept);
    }
  });

  it('reads transient items into one buffer again and again, and keeps other items intact in buffers of their own', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'chs-mbox-'));
    const path = join(dir, 'many.mbox');
    writeFileSync(path, Array.from({ length: 200 }, (_, i) => `From a@b.example Tue Mar  4 03:33:20 2003\nSubject: n${i}\n\nHello ${i}.\n\n`).join(''));
    const buffersOf = async (transient: boolean) => {
      const seen = new Set<ArrayBufferLike>();
      for await (const m of mboxSource(path, { chunkSize: 64 }).items(undefined, { transient })) seen.add(m.raw.buffer);
      return seen.size;
    };
    expect(await buffersOf(true)).toBe(1);
    expect(await buffersOf(false)).toBeGreaterThan(20);
  });

  it('keeps CRLF messages as CRLF with the same content', async () => {
    const lf = await collect(fixture('mboxrd.mbox'));
    const crlf = await collect(fixture('crlf.mbox'));
    expect(crlf).toHaveLength(3);
    expect(text(crlf[0])).toContain('\r\n');
    expect(crlf.map((m) => text(m).replace(/\r\n/g, '\n'))).toEqual(lf.map(text));
    expect(crlf.map((m) => m.envelopeDate)).toEqual(lf.map((m) => m.envelopeDate));
  });

  it('counts the same separators whatever the chunk size, a separator line split across chunks included', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'chs-mbox-'));
    const crlf = join(dir, 'crlf.mbox');
    writeFileSync(crlf, readFileSync(fixture('mboxrd.mbox'), 'latin1').replace(/\n/g, '\r\n'), 'latin1');
    const bom = join(dir, 'bom.mbox');
    writeFileSync(bom, Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), readFileSync(fixture('mboxrd.mbox'))]));
    for (const path of [fixture('mboxrd.mbox'), fixture('bare-cr.mbox'), crlf, bom]) {
      const expected = await mboxSource(path).total?.();
      expect(expected).toBe(3);
      // A byte-order mark is looked for in the first chunk (64 KiB and more in use), so not in chunks of 1 or 2 bytes.
      for (const chunkSize of path === bom ? [3, 5, 7, 13, 64, 100] : [1, 2, 3, 5, 7, 13, 64, 100])
        expect(await mboxSource(path, { chunkSize }).total?.(), `${path} in chunks of ${chunkSize}`).toBe(expected);
    }
  });

  it('reads a bare-CR mbox as LF', async () => {
    const lf = await collect(fixture('mboxrd.mbox'));
    const cr = await collect(fixture('bare-cr.mbox'));
    expect(cr.map(text)).toEqual(lf.map(text));
    expect(cr.every((m) => !m.raw.includes(13))).toBe(true);
    expect(await mboxSource(fixture('bare-cr.mbox')).total?.()).toBe(3);
  });

  it('turns bare CRs inside a message of an LF mbox into LF', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'chs-mbox-'));
    const path = join(dir, 'mixed.mbox');
    writeFileSync(path, 'From a@b.c Tue Mar  4 03:33:20 2003\nSubject: x\r\rone\rtwo\r\n');
    const [m] = await collect(path);
    expect(text(m)).toBe('Subject: x\n\none\ntwo\n');
    // It says so, and the parser then does not look again (parse.ts readHead).
    expect(m?.lineEndingsChecked).toBe(true);
  });

  it('yields no message with a bare CR, from any fixture, so each may say its line endings are checked', async () => {
    const bareCr = (b: Buffer) => b.some((c, i) => c === 13 && b[i + 1] !== 10);
    for (const name of ['mboxrd.mbox', 'bare-cr.mbox', 'content-length.mbox']) {
      const msgs = await collect(fixture(name));
      expect(msgs.length, name).toBeGreaterThan(0);
      for (const m of msgs) {
        expect(m.lineEndingsChecked, `${name} ${m.location}`).toBe(true);
        expect(bareCr(m.raw), `${name} ${m.location}`).toBe(false);
      }
    }
  });

  it('honours Content-Length over a separator-looking body line', async () => {
    const msgs = await collect(fixture('content-length.mbox'));
    expect(msgs).toHaveLength(2);
    expect(text(msgs[0])).toContain('\nFrom mallory@example.com Fri Mar  7 00:00:00 2003\nthis line is still body.\n');
    expect(text(msgs[1])).toContain('Subject: second with length');
    expect(msgs[0]?.envelopeDate).toBe('1996-06-03T12:50:27.000Z');
    expect(msgs[1]?.envelopeDate).toBeUndefined();
    const rest = await collect(fixture('content-length.mbox'), msgs[0]?.cursor);
    expect(rest.map(text)).toEqual([text(msgs[1])]);
  });

  it('skips a byte-order mark and reads a file without separator as one message', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'chs-mbox-'));
    const bom = join(dir, 'bom.mbox');
    writeFileSync(bom, Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('From -\nSubject: a\n\nx\n')]));
    const [m] = await collect(bom);
    expect(text(m)).toBe('Subject: a\n\nx\n');
    expect(m?.location).toBe(`${bom}@3`);
    const plain = join(dir, 'plain.eml');
    writeFileSync(plain, 'Subject: lone\n\nbody\n');
    expect((await collect(plain)).map(text)).toEqual(['Subject: lone\n\nbody\n']);
    const empty = join(dir, 'empty.mbox');
    writeFileSync(empty, '');
    expect(await collect(empty)).toEqual([]);
  });

  it('keeps a short quoted line at the very end of a message (no room for a From after the >)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'chs-mbox-'));
    const path = join(dir, 'short-quote.mbox');
    writeFileSync(path, 'From a@x.test Mon Jan  1 00:00:00 2024\nSubject: a\n\nquoted:\n>\n\nFrom b@x.test Mon Jan  1 00:00:00 2024\nSubject: b\n\n>>\n');
    const msgs = await collect(path);
    expect(msgs.map(text)).toEqual(['Subject: a\n\nquoted:\n>\n', 'Subject: b\n\n>>\n']);
  });

  it('throws SOURCE_UNREADABLE for a missing file and rejects a bad cursor', async () => {
    await expect(collect('/nonexistent/x.mbox')).rejects.toMatchObject({ code: 'SOURCE_UNREADABLE' });
    await expect(collect(fixture('mboxrd.mbox'), { offset: -1 })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
  });
});

describe('mboxSource at the edge', () => {
  it('does not throw on a file ending with a short line after a newline', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'chs-mbox-'));
    const path = join(dir, 'short.mbox');
    writeFileSync(path, 'From a@b.c Tue Mar  4 03:33:20 2003\nSubject: x\n\nbody\nFr');
    const msgs = await collect(path);
    expect(msgs.map(text)).toEqual(['Subject: x\n\nbody\nFr']);
    expect(await mboxSource(path).total?.()).toBe(1);
  });
});

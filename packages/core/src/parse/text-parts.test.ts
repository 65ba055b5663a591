import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateMailbox } from '@chs/fixtures';
import { corpusDir, CORPUS_HELPER_FILE, CORPUS_MBOXES } from '../test-support/corpus.js';
import { mboxSource } from '../source/mbox.js';
import { readBody, readHead, type HeadRead } from './parse.js';
import { readTextDirect } from './text-parts.js';

const crlf = (s: string): Buffer => Buffer.from(s.replace(/\n/g, '\r\n'), 'latin1');

function headOf(raw: Buffer): HeadRead {
  return readHead({ raw, location: 'test' });
}

/** The body as the pipeline reads it (direct when it can) and as mailparser alone reads it. */
async function bothWays(raw: Buffer): Promise<{ direct: string; library: string; directUsed: boolean } | undefined> {
  let read: HeadRead;
  try {
    read = headOf(raw);
  } catch {
    return undefined;
  }
  const library = await readBody(read, { direct: false, stripQuotes: false, backend: 'mailparser' }).then(
    (b) => b.text,
    () => null,
  );
  const direct = await readBody(read, { stripQuotes: false, backend: 'mailparser' }).then(
    (b) => b.text,
    () => null,
  );
  if (library === null || direct === null) {
    expect(direct === null).toBe(library === null);
    return undefined;
  }
  return { direct, library, directUsed: readTextDirect(read.raw) !== undefined };
}

describe('reading the text part without a MIME library', () => {
  it('reads a base64 text part beside an attachment, never decoding the attachment', () => {
    const pdf = Buffer.alloc(3000, 7).toString('base64').replace(/.{76}/g, '$&\n');
    const raw = crlf(
      `From: a@client.com\nSubject: s\nContent-Type: multipart/mixed; boundary="b1"\n\n--b1\nContent-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: base64\n\n${Buffer.from('We will not renew — the outages cost us a client.\n').toString('base64')}\n--b1\nContent-Type: application/pdf; name="x.pdf"\nContent-Disposition: attachment; filename="x.pdf"\nContent-Transfer-Encoding: base64\n\n${pdf}\n--b1--\n`,
    );
    const body = readTextDirect(headOf(raw).raw);
    expect(body).toMatchObject({ text: 'We will not renew — the outages cost us a client.\n', html: '', attachmentCount: 1 });
  });

  it('decodes quoted-printable in the declared charset, and takes the plain alternative over the HTML', () => {
    const raw = crlf(
      'From: a@client.com\nContent-Type: multipart/alternative; boundary=alt\n\n--alt\nContent-Type: text/plain; charset=iso-8859-1\nContent-Transfer-Encoding: quoted-printable\n\nGr=FC=DFe, wir k=FCndigen.\n--alt\nContent-Type: text/html; charset=utf-8\n\n<p>Grüße</p>\n--alt--\n',
    );
    expect(readTextDirect(headOf(raw).raw)).toMatchObject({ text: 'Grüße, wir kündigen.', html: '', attachmentCount: 0 });
  });

  it('gives the HTML when there is no text part, for the pipeline to turn into text', () => {
    const raw = crlf('From: a@client.com\nContent-Type: text/html; charset=utf-8\n\n<p>Still waiting for an answer.</p>\n');
    expect(readTextDirect(headOf(raw).raw)).toMatchObject({ text: '', html: '<p>Still waiting for an answer.</p>\n', attachmentCount: 0 });
  });

  it('leaves to the library what it would read differently: a forwarded message, flowed text, two text parts, padded or unclosed delimiters', () => {
    const shapes = [
      'Content-Type: multipart/mixed; boundary=m\n\n--m\nContent-Type: text/plain\n\nsee below\n--m\nContent-Type: message/rfc822\n\nFrom: x@y.com\nSubject: fwd\n\nforwarded text\n--m--\n',
      'Content-Type: text/plain; charset=us-ascii; format=flowed\n\n> Hi \nHello\n',
      'Content-Type: multipart/mixed; boundary=m\n\n--m\nContent-Type: text/plain\n\none\n--m\nContent-Type: text/plain\n\ntwo\n--m--\n',
      'Content-Type: multipart/mixed; boundary=m\n\n--m  \t\nContent-Type: text/plain\n\npadded\n--m--\n',
      'Content-Type: multipart/mixed; boundary=m\n\n--m\nContent-Type: text/plain\n\nnever closed\n',
      'Content-Type: multipart/mixed; boundary=m\n\n--m\nContent-Type: text/plain\n\nshown\n--m\nContent-Type: text/html\nContent-Disposition: inline\n\n<p>shown after</p>\n--m--\n',
      'Content-Type: text/html; boundary="--x"\n\n----x\nContent-Type: text/html\n\n<html></html>\n----x--\n',
    ];
    for (const shape of shapes) expect(readTextDirect(headOf(crlf(`From: a@client.com\n${shape}`)).raw), shape).toBeUndefined();
  });

  it('reads every generated client message exactly as mailparser does', async () => {
    let directUsed = 0;
    let n = 0;
    for (const m of generateMailbox({ count: 1500, seed: 7, attachmentRate: 0.2, maxAttachmentBytes: 40_000 })) {
      const r = await bothWays(m.raw);
      if (!r) continue;
      n += 1;
      expect(r.direct, `message ${m.index}`).toBe(r.library);
      if (r.directUsed) directUsed += 1;
    }
    // The generator writes the shapes real clients send: nearly all are read directly.
    expect(directUsed / n).toBeGreaterThan(0.95);
  });

  const CORPUS = corpusDir();
  it.runIf(CORPUS !== null)(
    'reads every message of the real-world corpus exactly as mailparser does',
    async () => {
      const dir = CORPUS!;
      const files: string[] = [];
      const walk = (d: string): void => {
        for (const f of readdirSync(d)) {
          const p = join(d, f);
          if (statSync(p).isDirectory()) walk(p);
          else if (!CORPUS_HELPER_FILE.test(p)) files.push(p);
        }
      };
      walk(dir);
      const mboxes = new Set<string>(CORPUS_MBOXES);
      let compared = 0;
      let directUsed = 0;
      const check = async (raw: Buffer, where: string): Promise<void> => {
        const r = await bothWays(raw);
        if (!r) return;
        compared += 1;
        expect(r.direct, where).toBe(r.library);
        if (r.directUsed) directUsed += 1;
      };
      for (const file of files) {
        const rel = relative(dir, file);
        if (mboxes.has(rel)) {
          for await (const m of mboxSource(file).items()) await check(m.raw, `${rel} ${m.location}`);
        } else {
          await check(readFileSync(file), rel);
        }
      }
      expect(compared).toBeGreaterThan(1700);
      // Most real mail has one of the simple shapes; the rest went to the library.
      expect(directUsed / compared).toBeGreaterThan(0.8);
    },
    120_000,
  );
});

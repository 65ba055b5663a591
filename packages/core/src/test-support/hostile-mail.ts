/**
 * Generators of hostile messages (issue 16): each is built in memory when a test asks for it,
 * so no megabytes of fixtures are committed. Every message is from a client (`client.example`)
 * to the workspace `ourco.com`, so the whole pipeline runs on it (head, filter, resolve, MIME
 * parse, HTML to text, quote stripping, scoring) unless a bound stops it first.
 */

/** What the run must make of a message: stored, skipped for a reason, or an error with its location. */
type HostileOutcome = 'added' | 'skipped' | 'error';

export interface HostileMessage {
  /** Short name, also the local part of its Message-ID (`<name@hostile.test>`). */
  name: string;
  /** What it attacks. */
  what: string;
  build(): Buffer;
  outcome: HostileOutcome;
}

export const HOSTILE_WORKSPACE = 'ourco.com';
/** mbox separator date: the date of last resort for messages whose Date is bait. */
const ENVELOPE = 'From sender@client.example Mon Mar  3 10:00:00 2025';

function message(name: string, extraHeaders: string, body: string | Buffer, contentType = 'text/plain; charset=utf-8'): Buffer {
  const head =
    `From: Ana Client <ana@client.example>\nTo: Me <me@ourco.com>\nSubject: hostile ${name}\n` +
    `Date: Mon, 3 Mar 2025 10:00:00 +0000\nMessage-ID: <${name}@hostile.test>\nMIME-Version: 1.0\n` +
    (contentType ? `Content-Type: ${contentType}\n` : '') +
    extraHeaders;
  return Buffer.concat([Buffer.from(`${head}\n`, 'latin1'), typeof body === 'string' ? Buffer.from(body, 'utf8') : body]);
}

/** A message whose Date (or another header) is the bait: the default Date line is replaced. */
function withDate(name: string, date: string, extra = ''): Buffer {
  return Buffer.from(
    message(name, extra, 'Thanks, the invoice looks right.\n')
      .toString('latin1')
      .replace(/^Date: .*$/m, `Date: ${date}`),
    'latin1',
  );
}

function multipartNest(depth: number): string {
  let body = 'Deep inside, a plain answer.\n';
  for (let d = depth; d >= 1; d--) {
    body = `--b${d}\nContent-Type: ${d === depth ? 'text/plain' : `multipart/mixed; boundary="b${d + 1}"`}\n\n${body}\n--b${d}--\n`;
  }
  return body;
}

function manyParts(parts: number): string {
  let body = '';
  for (let p = 0; p < parts; p++) body += `--many\nContent-Type: text/plain\n\npart ${p}\n`;
  return `${body}--many--\n`;
}

function base64Lines(bytes: number): string {
  const chunk = Buffer.alloc(57 * 1000, 0x41).toString('base64'); // 76-char lines, 1,000 of them
  const line = chunk.match(/.{1,76}/g)!.join('\n') + '\n';
  return line.repeat(Math.ceil(bytes / line.length));
}

const MB = 1_000_000;

/** The suite. Sizes are what the issue names: 1 MB headers, 10,000 parts, 100-deep nesting… */
export const HOSTILE_MESSAGES: readonly HostileMessage[] = [
  {
    name: 'html-lt-run',
    what: '2 MB of `<` in an HTML-only body (tag regex bait)',
    outcome: 'added',
    build: () => message('html-lt-run', '', `<p>hello</p>${'<'.repeat(2 * MB)}`, 'text/html; charset=utf-8'),
  },
  {
    name: 'html-comment-run',
    what: '`<!--` repeated over 2 MB, never closed',
    outcome: 'added',
    build: () => message('html-comment-run', '', `<p>hello</p>${'<!--'.repeat(MB / 2)}`, 'text/html'),
  },
  {
    name: 'html-script-run',
    what: '`<script>` repeated over 2 MB, never closed',
    outcome: 'added',
    build: () => message('html-script-run', '', `<p>hello</p>${'<script>'.repeat(MB / 4)}`, 'text/html'),
  },
  {
    name: 'html-blockquote-bomb',
    what: '80,000 nested blockquotes then 80,000 lines',
    outcome: 'added',
    build: () => message('html-blockquote-bomb', '', `<p>hello</p>${'<blockquote>'.repeat(80_000)}${'<br>x'.repeat(80_000)}`, 'text/html'),
  },
  {
    name: 'date-paren-run',
    what: '200,000 `(` in the Date header (comment regex bait)',
    outcome: 'added',
    build: () => withDate('date-paren-run', `Mon, 3 Mar 2025 10:00:00 +0000 ${'('.repeat(200_000)}`),
  },
  {
    name: 'date-nested-comments',
    what: 'Date with 100,000 nested comments',
    outcome: 'added',
    build: () => withDate('date-nested-comments', `${'('.repeat(100_000)}x${')'.repeat(100_000)} 3 Mar 2025 10:00:00 +0000`),
  },
  {
    name: 'header-angle-run',
    what: 'Subject, References and In-Reply-To of 60,000 `<` each',
    outcome: 'added',
    build: () => message('header-angle-run', `References: ${'<'.repeat(60_000)}\nIn-Reply-To: ${'<a'.repeat(30_000)}\nX-Note: ${'<'.repeat(60_000)}\n`, 'ok\n'),
  },
  {
    name: 'unclosed-quotes',
    what: 'From and Content-Type with long unclosed quotes',
    outcome: 'added',
    build: () =>
      Buffer.from(
        message('unclosed-quotes', `Cc: "${'a'.repeat(100_000)} <cc@client.example>\n`, 'ok\n', `text/plain; charset="${'x'.repeat(50_000)}`).toString(
          'latin1',
        ),
        'latin1',
      ),
  },
  {
    name: 'boundary-param-run',
    what: 'Content-Type with 20,000 `boundary="` never closed',
    outcome: 'added',
    build: () => message('boundary-param-run', '', 'ok\n', `text/plain; ${'boundary="; '.repeat(20_000)}`),
  },
  {
    name: 'encoded-word-run',
    what: 'Subject of 40,000 unterminated encoded words',
    outcome: 'added',
    build: () =>
      Buffer.from(
        message('encoded-word-run', '', 'ok\n')
          .toString('latin1')
          .replace(/^Subject: .*$/m, `Subject: ${'=?utf-8?q?'.repeat(20_000)}`),
        'latin1',
      ),
  },
  {
    name: 'header-1mb',
    what: 'one 1 MB header line (over the 256 KiB header cap)',
    outcome: 'error',
    build: () => message('header-1mb', `X-Junk: ${'j'.repeat(MB)}\n`, 'ok\n'),
  },
  {
    name: 'headers-folded-1mb',
    what: '1 MB of folded continuation lines',
    outcome: 'error',
    build: () => message('headers-folded-1mb', `X-Fold: a\n${' (\n'.repeat(MB / 3)}`, 'ok\n'),
  },
  {
    name: 'parts-10000',
    what: '10,000 MIME parts (mailparser refuses over its child-node limit)',
    outcome: 'error',
    build: () => message('parts-10000', '', manyParts(10_000), 'multipart/mixed; boundary="many"'),
  },
  {
    name: 'nesting-100',
    what: 'multipart nested 100 deep',
    outcome: 'added',
    build: () => message('nesting-100', '', multipartNest(100), 'multipart/mixed; boundary="b1"'),
  },
  {
    name: 'charset-unknown',
    what: 'unknown and invalid charsets, bytes that decode to nothing',
    outcome: 'added',
    build: () =>
      message('charset-unknown', '', Buffer.from([0x68, 0x69, 0x20, 0xff, 0xfe, 0xc3, 0x28, 0x0a]), 'text/plain; charset="x-no-such-charset-\u00e9"'),
  },
  {
    name: 'charset-utf7-qp',
    what: 'UTF-7 body and an encoded word in a charset nobody knows',
    outcome: 'added',
    build: () =>
      Buffer.from(
        message('charset-utf7-qp', '', '+AGEAYgBj-\n', 'text/plain; charset=utf-7')
          .toString('latin1')
          .replace(/^Subject: .*$/m, 'Subject: =?x-bogus?B?AAAA?= hi'),
        'latin1',
      ),
  },
  {
    name: 'nul-bytes',
    what: 'NUL bytes in headers and body (PostgreSQL refuses NUL in text)',
    outcome: 'added',
    build: () => message('nul-bytes', 'X-Nul: a\u0000b\n', `hello\u0000world ${'\u0000'.repeat(100_000)}\n`),
  },
  {
    name: 'nul-encoded',
    what: 'NUL in the Subject, a display name and the body, raw and as encoded words',
    outcome: 'added',
    build: () =>
      Buffer.from(
        message('nul-encoded', '', 'Hi\u0000 there, =00 thanks\n', 'text/plain; charset=utf-8')
          .toString('latin1')
          .replace(/^Subject: .*$/m, 'Subject: =?utf-8?Q?nul=00inside?= raw\u0000nul')
          .replace(/^From: .*$/m, 'From: =?utf-8?B?QW5hAEJ1Zw==?= <ana@client.example>'),
        'latin1',
      ),
  },
  {
    name: 'single-line-8mb',
    what: 'an 8 MB body without a line break',
    outcome: 'added',
    build: () => message('single-line-8mb', '', 'word '.repeat(1_600_000)),
  },
  {
    name: 'base64-bomb',
    what: '20 MB base64 attachment and a 6 MB base64 text part',
    outcome: 'added',
    build: () =>
      message(
        'base64-bomb',
        '',
        `--bomb\nContent-Type: text/plain\nContent-Transfer-Encoding: base64\n\n${base64Lines(6 * MB)}` +
          `--bomb\nContent-Type: application/zip; name=a.zip\nContent-Disposition: attachment; filename=a.zip\nContent-Transfer-Encoding: base64\n\n${base64Lines(20 * MB)}--bomb--\n`,
        'multipart/mixed; boundary="bomb"',
      ),
  },
  {
    name: 'no-header-end',
    what: 'a 4 MB "header" that never ends (no blank line)',
    outcome: 'error',
    build: () => Buffer.from(`X-A: ${'b'.repeat(4 * MB)}`, 'latin1'),
  },
];

/** The messages as one mbox (`From ` lines quoted inside bodies the mboxrd way), with their order. */
export function hostileMbox(messages: readonly HostileMessage[] = HOSTILE_MESSAGES): Buffer {
  const parts: Buffer[] = [];
  for (const m of messages) {
    const raw = m
      .build()
      .toString('latin1')
      .replace(/^(>*From )/gm, '>$1');
    parts.push(Buffer.from(`${ENVELOPE}\n${raw}${raw.endsWith('\n') ? '' : '\n'}\n`, 'latin1'));
  }
  return Buffer.concat(parts);
}

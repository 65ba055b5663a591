import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { BACKEND_NAMES } from './backends.js';
import { cutAttachmentBodies } from './cut.js';
import { htmlToText } from './html.js';
import { MessageParseError, parseMailDate, parseMessage, readHead } from './parse.js';

const fixture = (name: string) => readFileSync(fileURLToPath(new URL(`./__fixtures__/${name}`, import.meta.url)));

/** A message with a text body and three attachments, one of them 200 KB of base64. */
function withAttachments(): Buffer {
  const big = Buffer.alloc(150_000, 7).toString('base64').replace(/.{76}/g, '$&\r\n');
  const png = Buffer.alloc(30_000, 1).toString('base64').replace(/.{76}/g, '$&\r\n');
  return Buffer.from(
    [
      'Message-ID: <att-1@client.com>',
      'Date: Fri, 08 Mar 2024 08:00:00 +0000',
      'From: Finn <finn@client.com>',
      'To: sam@acme.com',
      'Subject: the files',
      'MIME-Version: 1.0',
      'Content-Type: multipart/mixed; boundary="outer"',
      '',
      '--outer',
      'Content-Type: multipart/alternative; boundary="inner"',
      '',
      '--inner',
      'Content-Type: text/plain; charset=utf-8',
      '',
      'Here are the files you asked for.',
      '--inner',
      'Content-Type: text/html; charset=utf-8',
      '',
      '<p>Here are the files you asked for.</p>',
      '--inner--',
      '--outer',
      'Content-Type: application/pdf; name="contract.pdf"',
      'Content-Disposition: attachment; filename="contract.pdf"',
      'Content-Transfer-Encoding: base64',
      '',
      big,
      '--outer',
      'Content-Type: image/png; name="logo.png"',
      'Content-Disposition: inline; filename="logo.png"',
      'Content-Transfer-Encoding: base64',
      '',
      png,
      '--outer',
      'Content-Type: text/csv; name="numbers.csv"',
      'Content-Disposition: attachment; filename="numbers.csv"',
      '',
      'a,b\r\n1,2',
      '--outer--',
      '',
    ].join('\r\n'),
  );
}

describe.each(BACKEND_NAMES)('parseMessage with %s', (backend) => {
  it('decodes encoded words, charsets, groups and display names', async () => {
    const m = await parseMessage({ raw: fixture('encoded.eml') }, { backend });
    expect(m.messageId).toBe('enc-1@mail.example.com');
    expect(m.messageIdSynthetic).toBe(false);
    expect(m.references).toEqual(['root@x.example', 'mid@x.example']);
    expect(m.inReplyTo).toBe('mid@x.example');
    expect(m.threadId).toBe('root@x.example');
    expect(m.date).toBe('2024-03-05T13:30:00.000Z');
    expect(m.dateSource).toBe('header');
    expect(m.from).toEqual({ email: 'juergen.mueller@example.de', name: 'Jürgen Müller' });
    expect(m.to).toEqual([
      { email: 'ana@acme.com', name: 'Ana B.' },
      { email: 'bob@acme.com', name: '' },
      { email: 'carol@acme.com', name: '' },
    ]);
    expect(m.cc).toEqual([{ email: 'francois@client.fr', name: 'François Dupré' }]);
    expect(m.subject).toBe('Prüfung der Rechnung – dringend');
    expect(m.text).toContain('Grüße, die Rechnung ist falsch.');
    expect(m.newText).toBe('Grüße, die Rechnung ist falsch.');
    expect(m.warnings).toEqual([]);
    expect(m.sizeBytes).toBe(fixture('encoded.eml').length);
  });

  it('turns an HTML-only body into text, with its blockquote as a quote', async () => {
    const m = await parseMessage({ raw: fixture('html-only.eml') }, { backend });
    expect(m.text).toContain('We are very happy with the service & want to renew.');
    expect(m.text).toContain('Café meeting next week?');
    expect(m.text).toContain('> Are you planning to renew?');
    expect(m.text).not.toContain('color:red');
    expect(m.newText).toBe('We are very happy with the service & want to renew.\n\nCafé meeting next week?');
  });

  it("reads a text/plain part that is an HTML page as text, so a vendor's list of headlines is not one sentence with a threat in it", async () => {
    const items = [
      'Notice of Termination of the Pipeline Tariff',
      'Proposed Rule Change by the Exchange Relating to Fees',
      'Cancellation of the Monthly Auction',
      'Final Rules on Capacity Release',
    ];
    const raw = Buffer.from(
      [
        'Message-ID: <monitor-1@vendor.example>',
        'Date: Thu, 25 Oct 2001 10:00:00 -0700',
        'From: jo@vendor.example',
        'To: sam@acme.com',
        'Subject: Monitor regulatory sites',
        'Content-Type: text/plain; charset=us-ascii',
        '',
        'Do you need to monitor web sites for new information?',
        'Below you will find a partial list of web sources we cover.<p>',
        `<table border=0 width=100%><tr><td class=x><ul>${items.map((t, i) => `<li><A HREF="http://example.org/${i}.htm">${t}</a>, October 25, 2001</li>`).join('')}</ul></td></tr></table>`,
        '<p>We also monitor news sources.<p>',
        '',
      ].join('\r\n'),
    );
    const m = await parseMessage({ raw }, { backend });
    expect(m.newText).not.toMatch(/<(?:li|a|td|p)\b/i);
    // Its own lines stay lines, and each headline is a line of its own.
    expect(m.newText).toContain('Do you need to monitor web sites for new information?\nBelow you will find a partial list of web sources we cover.');
    for (const t of items) expect(m.newText).toMatch(new RegExp(`^\\* ${t}, October 25, 2001$`, 'm'));
  });

  it('leaves plain text with addresses in angle brackets and an attachment marker as it is', async () => {
    const body = 'Hi Sam,\n\nSee <<report.doc>> and ask <finn@client.com> or <b>Ana</b> if unclear.\n\n> On Mon, Ana <ana@acme.com> wrote:\n> <p>old</p>';
    const raw = Buffer.from(
      [
        'Message-ID: <plain-1@client.com>',
        'Date: Fri, 08 Mar 2024 08:00:00 +0000',
        'From: finn@client.com',
        'To: sam@acme.com',
        'Subject: s',
        '',
        body,
        '',
      ].join('\r\n'),
    );
    const m = await parseMessage({ raw }, { backend });
    expect(m.text.trim()).toBe(body);
  });

  it('hashes a missing Message-ID stably and falls back to the last Received date', async () => {
    const raw = fixture('no-id-no-date.eml');
    const a = await parseMessage({ raw }, { backend });
    expect(a.messageIdSynthetic).toBe(true);
    expect(a.messageId).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(a.threadId).toBe(a.messageId);
    const again = await parseMessage({ raw: Buffer.from(raw) }, { backend });
    expect(again.messageId).toBe(a.messageId);
    // The same message stored with CRLF line ends is the same message.
    const crlf = await parseMessage({ raw: Buffer.from(raw.toString('latin1').replace(/\n/g, '\r\n'), 'latin1') }, { backend });
    expect(crlf.messageId).toBe(a.messageId);
    const other = await parseMessage({ raw: Buffer.from(raw.toString().replace('Hello.', 'Hello!')) }, { backend });
    expect(other.messageId).not.toBe(a.messageId);
    expect(a.date).toBe('2024-03-07T09:59:58.000Z');
    expect(a.dateSource).toBe('received');
  });

  it('falls back to the envelope date, then to epoch with dateSource none', async () => {
    const raw = Buffer.from('From: x@client.com\nSubject: undated\n\nbody\n');
    const env = await parseMessage({ raw, envelopeDate: '2003-03-04T03:33:20.000Z' }, { backend });
    expect(env.date).toBe('2003-03-04T03:33:20.000Z');
    expect(env.dateSource).toBe('envelope');
    const none = await parseMessage({ raw }, { backend });
    expect(none.date).toBe('1970-01-01T00:00:00.000Z');
    expect(none.dateSource).toBe('none');
  });

  it('counts attachments whose bodies were cut before parsing', async () => {
    const raw = withAttachments();
    const m = await parseMessage({ raw }, { backend });
    expect(m.attachmentCount).toBe(3);
    expect(m.text.trim()).toBe('Here are the files you asked for.');
    expect(m.sizeBytes).toBe(raw.length);
    expect(m.warnings).toEqual([]);
  });

  it('tells a delivery report or a calendar invitation by a part of that type, in either spelling, from a person who merely names one', () => {
    const mail = (partType: string, text = 'see attached') =>
      Buffer.from(
        [
          'Message-ID: <p@x>',
          'From: Ana <ana@client.example>',
          'To: me@ourco.com',
          'Date: Mon, 3 Mar 2025 10:00:00 +0000',
          'Content-Type: multipart/mixed; boundary="b"',
          '',
          '--b',
          'Content-Type: text/plain',
          '',
          text,
          '--b',
          `Content-Type: ${partType}`,
          '',
          'x',
          '--b--',
          '',
        ].join('\r\n'),
      );
    const signals = (raw: Buffer) => readHead({ raw }).head.signals;
    for (const t of ['message/delivery-status', 'Message/Delivery-Status']) expect(signals(mail(t))).toMatchObject({ deliveryReport: true, calendar: false });
    for (const t of ['text/calendar; method=REQUEST', 'Text/Calendar']) expect(signals(mail(t))).toMatchObject({ deliveryReport: false, calendar: true });
    // Words near those types are not the types: a person writing about delivery and calendars.
    expect(signals(mail('application/pdf', 'Delivery-wise, my calendar is full; text/plain is fine'))).toMatchObject({
      deliveryReport: false,
      calendar: false,
    });
  });

  it('reads delivery reports and list/bulk/auto-reply headers into signals', async () => {
    const bounce = await parseMessage({ raw: fixture('bounce.eml') }, { backend });
    expect(bounce.signals.deliveryReport).toBe(true);
    expect(bounce.from?.email).toBe('mailer-daemon@mx.example.com');
    const raw = Buffer.from(
      [
        'Message-ID: <s@x>',
        'X-GM-THRID: 1234567890',
        'X-Gmail-Labels: Inbox,Category Promotions,"Label, with comma"',
        'List-Unsubscribe: <mailto:u@x>',
        'List-Id: News <news.x>',
        'Precedence: Bulk',
        'Auto-Submitted: auto-replied',
        'X-Auto-Response-Suppress: OOF, AutoReply',
        'References: <r@x>',
        'From: a@x.com',
        '',
        'hi',
      ].join('\n'),
    );
    const m = await parseMessage({ raw }, { backend });
    expect(m.threadId).toBe('1234567890');
    expect(m.signals).toEqual({
      listUnsubscribe: true,
      listId: true,
      precedence: 'bulk',
      autoSubmitted: true,
      autoReplyHeader: true,
      deliveryReport: false,
      gmailLabels: ['Inbox', 'Category Promotions', 'Label, with comma'],
      espHeader: '',
      calendar: false,
    });
    const plain = await parseMessage({ raw: fixture('encoded.eml') }, { backend });
    expect(plain.signals).toEqual({
      listUnsubscribe: false,
      listId: false,
      precedence: '',
      autoSubmitted: false,
      autoReplyHeader: false,
      deliveryReport: false,
      gmailLabels: [],
      espHeader: '',
      calendar: false,
    });
    const notAuto = await parseMessage({ raw: Buffer.from('Auto-Submitted: no\nFrom: a@x.com\n\nx') }, { backend });
    expect(notAuto.signals.autoSubmitted).toBe(false);
  });

  it('warns about an unknown charset and still keeps the message', async () => {
    const m = await parseMessage({ raw: fixture('charset.eml') }, { backend });
    expect(m.warnings).toContainEqual({ kind: 'charset', reason: 'unknown charset "x-no-such-charset"' });
    expect(m.text).toContain('plain words');
  });

  it('throws MessageParseError for bytes that are no message', async () => {
    for (const raw of [Buffer.alloc(0), Buffer.from('just some words\nwithout any header\n'), Buffer.from([0, 1, 2, 255, 254])]) {
      const err = await parseMessage({ raw, location: 'x.mbox@0' }, { backend }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(MessageParseError);
      expect((err as MessageParseError).kind).toBe('parse');
      expect((err as MessageParseError).reason).not.toBe('');
    }
  });
});

describe('cutAttachmentBodies', () => {
  it('removes attachment bodies, keeps their headers and the text parts', () => {
    const raw = withAttachments();
    const { raw: cut, cutBytes } = cutAttachmentBodies(raw);
    const s = cut.toString('latin1');
    expect(cut.length).toBeLessThan(2_000);
    expect(cutBytes).toBe(raw.length - cut.length);
    expect(s).toContain('Content-Disposition: attachment; filename="contract.pdf"');
    expect(s).toContain('filename="logo.png"');
    expect(s).toContain('filename="numbers.csv"');
    expect(s).not.toContain('a,b');
    expect(s).toContain('Here are the files you asked for.');
    expect(s).toContain('<p>Here are the files you asked for.</p>');
    expect(s.endsWith('--outer--\r\n')).toBe(true);
  });

  it('leaves small messages and messages without attachments alone', () => {
    const small = fixture('bounce.eml');
    expect(cutAttachmentBodies(small).raw).toBe(small);
    const text = Buffer.from(`Subject: long\n\n${'word '.repeat(10_000)}`);
    expect(cutAttachmentBodies(text).raw).toBe(text);
  });

  it('warns when an attachment part has no closing boundary', () => {
    const raw = Buffer.from(
      `Content-Type: multipart/mixed; boundary=b\n\n--b\nContent-Type: text/plain\n\nhi\n--b\nContent-Type: application/zip\n\n${'A'.repeat(20_000)}\n`,
    );
    const r = cutAttachmentBodies(raw);
    expect(r.warnings).toEqual([{ kind: 'attachment', reason: 'attachment part application/zip truncated: no closing boundary' }]);
    expect(r.raw.length).toBeLessThan(200);
  });
});

describe('parseMailDate', () => {
  it('reads RFC 5322 dates and their common damage', () => {
    expect(parseMailDate('Mon, 14 May 2001 16:39:00 -0700 (PDT)')).toBe('2001-05-14T23:39:00.000Z');
    expect(parseMailDate('14 May 2001 16:39:00 GMT')).toBe('2001-05-14T16:39:00.000Z');
    expect(parseMailDate('Mon, 14 May 2001 16:39:00')).toBe('2001-05-14T16:39:00.000Z');
    expect(parseMailDate('garbage')).toBeUndefined();
    expect(parseMailDate('Mon, 14 May 1901 16:39:00 +0000')).toBeUndefined();
    expect(parseMailDate(undefined)).toBeUndefined();
  });
});

describe('htmlToText', () => {
  it('drops scripts and styles, breaks blocks, decodes entities and quotes blockquotes', () => {
    expect(htmlToText('<style>x{}</style><script>alert(1)</script><p>a&nbsp;&lt;b&gt; &#233;&#x263A;</p><div>c<br>d</div>')).toBe('a <b> é☺\n\nc\nd');
    expect(htmlToText('<p>top</p><blockquote><p>one</p><blockquote>two</blockquote></blockquote>')).toBe('top\n\n> one\n\n> > two');
  });
});

describe('cutAttachmentBodies at the edge', () => {
  it('does not throw when the message ends inside a boundary marker', () => {
    const head = `Content-Type: multipart/mixed; boundary=abcdef\n\n--abcdef\nContent-Type: application/zip\n\n${'A'.repeat(20_000)}\n--abc`;
    expect(() => cutAttachmentBodies(Buffer.from(head))).not.toThrow();
  });
});

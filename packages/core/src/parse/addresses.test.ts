import { simpleParser } from 'mailparser';
import { describe, expect, it } from 'vitest';
import type { Address } from '../interfaces.js';
import { decodeAddressHeaders, decodeSubject } from './addresses.js';
import { parseHeaderBlock } from './headers.js';
import { mailparserEnvelope } from '../test-support/mailparser-envelope.js';

/** Header lines as they arrive on the wire (latin1 text of the bytes, as parse.ts reads them). */
const CASES: Array<{ name: string; headers: string; from: Address | null; to: Address[]; cc: Address[]; subject: string }> = [
  {
    name: 'plain names and addresses, upper case',
    headers: 'From: Jane Doe <Jane.Doe@Acme.COM>\nTo: bob@ourco.com, "Smith, Ann" <ann@ourco.com>\nSubject: Renewal',
    from: { email: 'jane.doe@acme.com', name: 'Jane Doe' },
    to: [
      { email: 'bob@ourco.com', name: '' },
      { email: 'ann@ourco.com', name: 'Smith, Ann' },
    ],
    cc: [],
    subject: 'Renewal',
  },
  {
    name: 'encoded words (B and Q) in names and subject, folded lines',
    headers:
      'From: =?UTF-8?B?SsO8cmdlbiBNw7xsbGVy?= <jm@beispiel.de>\nTo: =?ISO-8859-1?Q?Andr=E9?=\n <andre@exemple.fr>\nSubject: =?UTF-8?Q?Pr=C3=BCfung_der?=\n =?UTF-8?Q?_Rechnung?=',
    from: { email: 'jm@beispiel.de', name: 'Jürgen Müller' },
    to: [{ email: 'andre@exemple.fr', name: 'André' }],
    cc: [],
    subject: 'Prüfung der Rechnung',
  },
  {
    name: 'raw 8-bit UTF-8 header bytes',
    headers: Buffer.from('From: Zoë Ångström <zoe@example.se>\nSubject: Café ☕ meeting', 'utf8').toString('latin1'),
    from: { email: 'zoe@example.se', name: 'Zoë Ångström' },
    to: [],
    cc: [],
    subject: 'Café ☕ meeting',
  },
  {
    name: 'groups flattened, repeated Cc lines joined',
    headers: 'From: a@x.com\nTo: Team: b@x.com, c@y.com;\nCc: d@z.com\nCc: E <e@z.com>',
    from: { email: 'a@x.com', name: '' },
    to: [
      { email: 'b@x.com', name: '' },
      { email: 'c@y.com', name: '' },
    ],
    cc: [
      { email: 'd@z.com', name: '' },
      { email: 'e@z.com', name: 'E' },
    ],
    subject: '',
  },
  {
    name: 'punycode domain to Unicode; an encoded word posing as an address is dropped',
    headers: 'From: Books <info@xn--bcher-kva.example>\nTo: =?utf-8?q?evil=40x.com?= <=?utf-8?q?ceo=40bank.com_=3Cx=3E?=>',
    from: { email: 'info@bücher.example', name: 'Books' },
    to: [],
    cc: [],
    subject: '',
  },
  {
    name: 'no From, empty To, comments and odd spacing',
    headers: 'To:   \nCc: (the boss) boss@acme.com (Boss)\nSubject:   Re:   spaced    out  ',
    from: null,
    to: [],
    cc: [{ email: 'boss@acme.com', name: 'the boss Boss' }], // addressparser keeps comments as name text
    subject: 'Re: spaced out',
  },
];

describe('address and subject headers read from the raw header block', () => {
  it.each(CASES)('$name', async (c) => {
    const h = parseHeaderBlock(`${c.headers}\n`);
    const ours = {
      from: decodeAddressHeaders(h.get('from')?.slice(0, 1))[0] ?? null,
      to: decodeAddressHeaders(h.get('to')),
      cc: decodeAddressHeaders(h.get('cc')),
      subject: decodeSubject(h.get('subject')?.[0]),
    };
    expect(ours).toEqual({ from: c.from, to: c.to, cc: c.cc, subject: c.subject });

    // The same message through mailparser: the envelope read without it must agree with it.
    const mail = await simpleParser(Buffer.from(`${c.headers}\n\nbody\n`, 'latin1'));
    expect(ours).toEqual(mailparserEnvelope(mail));
  });
});

describe('a subject with no encoded word', () => {
  it('reads exactly as through libmime, a literal joining marker included', async () => {
    const { default: libmime } = await import('libmime');
    const subjects = ['Renewal next month', 'Q3 = good? yes', 'What?= odd', 'a =\t? b', '50% off?!', 'x__\0JOIN\0__y', '=?', '', '  spaced   out  '];
    for (const s of subjects) expect(decodeSubject(s)).toBe(libmime.decodeWords(s.trim()).replace(/\s+/g, ' ').trim());
  });
});

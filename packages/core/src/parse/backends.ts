import { simpleParser, type AddressObject, type EmailAddress } from 'mailparser';
import PostalMime, { type Address as PostalAddress } from 'postal-mime';
import type { Address } from '../interfaces.js';

/** What a MIME parser library gives us; the rest (ids, dates, signals) is read from raw headers. */
export interface BackendResult {
  from: Address | null;
  to: Address[];
  cc: Address[];
  /** Decoded subject, '' when absent. */
  subject: string;
  /** Text parts joined; '' when there are none. */
  text: string;
  /** HTML when the message has some, '' otherwise. */
  html: string;
  attachmentCount: number;
}

/** A MIME parser library behind one small interface, so backends can be measured side by side. */
export interface ParserBackend {
  readonly name: BackendName;
  parse(raw: Buffer): Promise<BackendResult>;
}

export const BACKEND_NAMES = ['mailparser', 'postal-mime'] as const;
export type BackendName = (typeof BACKEND_NAMES)[number];

function pushAddress(out: Address[], email: string | undefined, name: string | undefined): void {
  const e = (email ?? '').trim().toLowerCase();
  if (e === '') return;
  out.push({ email: e, name: (name ?? '').trim() });
}

function fromMailparser(value: AddressObject | AddressObject[] | undefined): Address[] {
  if (!value) return [];
  const out: Address[] = [];
  const walk = (list: EmailAddress[]) => {
    for (const a of list) {
      if (a.group) walk(a.group);
      else pushAddress(out, a.address, a.name);
    }
  };
  for (const obj of Array.isArray(value) ? value : [value]) walk(obj.value);
  return out;
}

/**
 * mailparser with everything we do not read switched off: no text→HTML, no link detection, no
 * `cid:` → data-URL rewriting (which base64-encodes every image into the HTML), no HTML→text
 * (done once by parse.ts only when the message has no text part).
 */
export const mailparserBackend: ParserBackend = {
  name: 'mailparser',
  async parse(raw) {
    const mail = await simpleParser(raw, {
      skipHtmlToText: true,
      skipTextToHtml: true,
      skipTextLinks: true,
      skipImageLinks: true,
      keepCidLinks: true,
    });
    const from = fromMailparser(mail.from);
    return {
      from: from[0] ?? null,
      to: fromMailparser(mail.to),
      cc: fromMailparser(mail.cc),
      subject: mail.subject ?? '',
      text: mail.text ?? '',
      html: typeof mail.html === 'string' ? mail.html : '',
      attachmentCount: mail.attachments.length,
    };
  },
};

function fromPostal(list: PostalAddress[] | PostalAddress | undefined): Address[] {
  if (!list) return [];
  const out: Address[] = [];
  for (const a of Array.isArray(list) ? list : [list]) {
    if (a.group) for (const m of a.group) pushAddress(out, m.address, m.name);
    else pushAddress(out, a.address, a.name);
  }
  return out;
}

/** postal-mime, attachments kept as ArrayBuffers (no base64 re-encoding of their bytes). */
export const postalMimeBackend: ParserBackend = {
  name: 'postal-mime',
  async parse(raw) {
    const mail = await PostalMime.parse(raw, { attachmentEncoding: 'arraybuffer' });
    const from = fromPostal(mail.from);
    return {
      from: from[0] ?? null,
      to: fromPostal(mail.to),
      cc: fromPostal(mail.cc),
      subject: mail.subject ?? '',
      text: mail.text ?? '',
      html: mail.html ?? '',
      attachmentCount: mail.attachments.length,
    };
  },
};

export const BACKENDS: Readonly<Record<BackendName, ParserBackend>> = Object.freeze({
  mailparser: mailparserBackend,
  'postal-mime': postalMimeBackend,
});

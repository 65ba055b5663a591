// The libraries load on first use (in the worker threads, for the messages text-parts.ts leaves
// to them), not with the engine: loading mailparser alone took longer than `chs` should take to start.
let mailparser: Promise<typeof import('mailparser')> | undefined;
let postalMime: Promise<typeof import('postal-mime')> | undefined;

/**
 * What a MIME parser library gives us: the body. Addresses, subject, ids and dates are read from
 * the raw header block (parse.ts), so a parser is handed only the fields that shape the body.
 */
export interface BackendResult {
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

/**
 * mailparser with everything we do not read switched off: no text→HTML, no link detection, no
 * `cid:` → data-URL rewriting (which base64-encodes every image into the HTML), no HTML→text
 * (done once by parse.ts only when the message has no text part).
 */
export const mailparserBackend: ParserBackend = {
  name: 'mailparser',
  async parse(raw) {
    const { simpleParser } = await (mailparser ??= import('mailparser'));
    const mail = await simpleParser(raw, {
      skipHtmlToText: true,
      skipTextToHtml: true,
      skipTextLinks: true,
      skipImageLinks: true,
      keepCidLinks: true,
    });
    return {
      text: mail.text ?? '',
      html: typeof mail.html === 'string' ? mail.html : '',
      attachmentCount: mail.attachments.length,
    };
  },
};

/** postal-mime, attachments kept as ArrayBuffers (no base64 re-encoding of their bytes). */
const postalMimeBackend: ParserBackend = {
  name: 'postal-mime',
  async parse(raw) {
    const { default: PostalMime } = await (postalMime ??= import('postal-mime'));
    const mail = await PostalMime.parse(raw, { attachmentEncoding: 'arraybuffer' });
    return {
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

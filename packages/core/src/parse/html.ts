/** HTML longer than this is cut before conversion (bounds the work and the text kept). */
const MAX_HTML = 2_000_000;

const NAMED: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
  copy: '©',
  reg: '®',
  hellip: '…',
  mdash: '—',
  ndash: '–',
  lsquo: '‘',
  rsquo: '’',
  ldquo: '“',
  rdquo: '”',
  bull: '•',
  middot: '·',
  euro: '€',
  pound: '£',
  yen: '¥',
  cent: '¢',
  trade: '™',
  laquo: '«',
  raquo: '»',
  deg: '°',
  eacute: 'é',
  egrave: 'è',
  ecirc: 'ê',
  agrave: 'à',
  aacute: 'á',
  acirc: 'â',
  auml: 'ä',
  ouml: 'ö',
  uuml: 'ü',
  szlig: 'ß',
  ccedil: 'ç',
  ntilde: 'ñ',
  oacute: 'ó',
  iacute: 'í',
  uacute: 'ú',
  zwnj: '',
  zwj: '',
  shy: '',
  ensp: ' ',
  emsp: ' ',
  thinsp: ' ',
  times: '×',
};

function decodeEntities(s: string): string {
  if (s.indexOf('&') === -1) return s;
  return s.replace(/&(#x[0-9a-f]{1,6}|#\d{1,7}|[a-z][a-z0-9]{1,31});/gi, (whole, body: string) => {
    if (body.charCodeAt(0) === 35) {
      const code = body[1] === 'x' || body[1] === 'X' ? parseInt(body.slice(2), 16) : parseInt(body.slice(1), 10);
      if (!Number.isFinite(code) || code <= 0 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return whole;
      return String.fromCodePoint(code);
    }
    return NAMED[body] ?? NAMED[body.toLowerCase()] ?? whole;
  });
}

/** Blockquote nesting deeper than this is shown at this depth (each line's prefix stays short). */
const MAX_QUOTE_DEPTH = 10;

/** Elements whose content is never text: dropped with their content when closed. */
const NO_TEXT = new Set(['script', 'style', 'head', 'title']);
/** Elements that start or end a block: a line break. */
const BLOCKS = new Set(['p', 'div', 'tr', 'table', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'ul', 'ol', 'section', 'article', 'header', 'footer', 'pre', 'hr']);

/**
 * The next index of `needle` at or after `from`, remembered: while `from` only grows, every
 * character is scanned at most once over all queries (and a miss is final). This is what keeps
 * the pass linear on `<<<<…`, `<!--<!--…` or `<script><script>…` without their closers.
 */
class Forward {
  #at = -2;
  constructor(
    private readonly hay: string,
    private readonly needle: string,
  ) {}

  next(from: number): number {
    if (this.#at === -1 || this.#at >= from) return this.#at;
    this.#at = this.hay.indexOf(this.needle, from);
    return this.#at;
  }
}

const isNameChar = (c: number): boolean => (c >= 97 && c <= 122) || (c >= 48 && c <= 57);
const isSpace = (c: number): boolean => c === 32 || c === 9 || c === 10 || c === 12 || c === 13;

/**
 * Replaces markup in one left-to-right pass, in linear time whatever the input: comments and
 * the content of script/style/head/title go, `<br>` and block tags become line breaks, list
 * items `* `, blockquotes the markers \u0002/\u0003, every other `<…>` nothing. A `<` with no
 * `>` after it is text; an unclosed comment or script is read as a plain tag.
 */
function replaceMarkup(s: string): string {
  // ASCII-only lower-casing keeps every index (String#toLowerCase may change the length).
  const lower = s.replace(/[A-Z]+/g, (m) => m.toLowerCase());
  const tagEnd = new Forward(s, '>');
  const commentEnd = new Forward(s, '-->');
  const closers = new Map<string, Forward>();
  /** Index after `</name\s*>` at or after `from`, or -1. */
  const closeOf = (name: string, from: number): number => {
    let f = closers.get(name);
    if (!f) closers.set(name, (f = new Forward(lower, `</${name}`)));
    for (let p = f.next(from); p !== -1; p = f.next(p + 1)) {
      let q = p + 2 + name.length;
      while (q < s.length && isSpace(s.charCodeAt(q))) q++;
      if (s.charCodeAt(q) === 62) return q + 1;
    }
    return -1;
  };

  const out: string[] = [];
  let i = 0;
  while (i < s.length) {
    const lt = s.indexOf('<', i);
    if (lt === -1) break;
    out.push(s.slice(i, lt));
    i = lt;
    if (s.startsWith('<!--', lt)) {
      const end = commentEnd.next(lt + 4);
      if (end !== -1) {
        out.push(' ');
        i = end + 3;
        continue;
      }
    }
    const gt = tagEnd.next(lt + 1);
    if (gt === -1) break; // no `>` anywhere after: the rest is text
    const closing = s.charCodeAt(lt + 1) === 47;
    const nameStart = closing ? lt + 2 : lt + 1;
    let k = nameStart;
    const first = lower.charCodeAt(k);
    if (first >= 97 && first <= 122) while (k < gt && isNameChar(lower.charCodeAt(k))) k++;
    const name = lower.slice(nameStart, k);
    i = gt + 1;
    if (name === '') continue;
    if (!closing && NO_TEXT.has(name)) {
      const after = closeOf(name, gt + 1);
      if (after !== -1) {
        out.push(' ');
        i = after;
        continue;
      }
    }
    if (name === 'br') out.push(closing ? '' : '\n');
    else if (name === 'blockquote') out.push(closing ? '\u0003\n' : '\n\u0002');
    else if (name === 'li') out.push(closing ? '' : '\n* ');
    else if (BLOCKS.has(name)) out.push('\n');
    else if (closing && (name === 'td' || name === 'th')) out.push(' ');
  }
  out.push(s.slice(i));
  return out.join('');
}

/**
 * HTML to plain text, fast and linear: one hand-written pass over the markup (no regex that can
 * backtrack, no DOM). Block elements become line breaks and `<blockquote>` content is prefixed
 * with `> ` so quoted history in HTML-only replies is recognised by the quote stripper like
 * plain-text quotes.
 */
export function htmlToText(html: string): string {
  let s = html.length > MAX_HTML ? html.slice(0, MAX_HTML) : html;
  s = replaceMarkup(s.replace(/[\r\n]+/g, ' '));
  s = decodeEntities(s);

  // Apply blockquote depth as `> ` prefixes, line by line.
  if (s.indexOf('\u0002') !== -1) {
    let depth = 0;
    const out: string[] = [];
    const prefix = (d: number) => '> '.repeat(Math.min(d, MAX_QUOTE_DEPTH));
    for (const line of s.split('\n')) {
      if (line.indexOf('\u0002') === -1 && line.indexOf('\u0003') === -1) {
        out.push(line.trim() === '' ? '' : prefix(depth) + line);
        continue;
      }
      let lineDepth = depth;
      for (let c = 0; c < line.length; c++) {
        const ch = line.charCodeAt(c);
        if (ch === 2) {
          depth++;
          lineDepth = Math.max(lineDepth, depth);
        } else if (ch === 3) {
          depth = Math.max(0, depth - 1);
        }
      }
      // eslint-disable-next-line no-control-regex -- U+0002/U+0003 are the quote markers this module writes itself
      const text = line.replace(/[\u0002\u0003]/g, '');
      out.push(text.trim() === '' ? '' : prefix(lineDepth) + text);
    }
    s = out.join('\n');
  }

  return s
    .replace(/[ \t\u00a0]+/g, ' ')
    .replace(/ ?\n ?/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** How much of a plain-text body {@link plainIsHtml} reads. */
const HTML_SNIFF = 20_000;
/** Tags that only HTML markup uses (not `<john@acme.com>` nor `<<file.doc>>`). */
const MARKUP_TAG = /<\/?(p|br|div|span|font|table|tr|td|th|tbody|ul|ol|li|a|b|i|u|img|center|h[1-6]|style|html|body|head)(?=[\s/>])[^<>]{0,500}>/gi;

/**
 * Whether a text/plain part is HTML markup in fact: old mailers and bulk tools sent pages as
 * text/plain (`<p>`, `<table>`, `<a href=…>` in the "plain" text). At least 10 markup tags of at
 * least 3 kinds in the first 20,000 characters; `<john@acme.com>` and `<<report.doc>>` are not
 * tags. Read as plain text, such a page is one endless sentence of link texts, where a phrase
 * from one headline and a word from the next read as a client's threat.
 */
export function plainIsHtml(text: string): boolean {
  const head = text.length > HTML_SNIFF ? text.slice(0, HTML_SNIFF) : text;
  const kinds = new Set<string>();
  let tags = 0;
  for (const m of head.matchAll(MARKUP_TAG)) {
    tags++;
    kinds.add(m[1]!.toLowerCase());
    if (tags >= 10 && kinds.size >= 3) return true;
  }
  return false;
}

/** A text/plain part that is HTML markup, as text: its own line breaks kept, its tags read as {@link htmlToText} reads them. */
export function plainHtmlToText(text: string): string {
  return htmlToText(text.replace(/\r?\n/g, '<br>'));
}

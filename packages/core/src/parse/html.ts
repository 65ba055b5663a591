/** HTML longer than this is cut before conversion (pathological inputs must stay linear). */
const MAX_HTML = 2_000_000;

const NAMED: Record<string, string> = {
  amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ', copy: '©', reg: '®', hellip: '…',
  mdash: '—', ndash: '–', lsquo: '‘', rsquo: '’', ldquo: '“', rdquo: '”', bull: '•', middot: '·',
  euro: '€', pound: '£', yen: '¥', cent: '¢', trade: '™', laquo: '«', raquo: '»', deg: '°',
  eacute: 'é', egrave: 'è', ecirc: 'ê', agrave: 'à', aacute: 'á', acirc: 'â', auml: 'ä', ouml: 'ö',
  uuml: 'ü', szlig: 'ß', ccedil: 'ç', ntilde: 'ñ', oacute: 'ó', iacute: 'í', uacute: 'ú', zwnj: '',
  zwj: '', shy: '', ensp: ' ', emsp: ' ', thinsp: ' ', times: '×',
};

export function decodeEntities(s: string): string {
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

/**
 * HTML to plain text, fast and linear: regexes without nested quantifiers, no DOM. Block
 * elements become line breaks and `<blockquote>` content is prefixed with `> ` so quoted
 * history in HTML-only replies is recognised by the quote stripper like plain-text quotes.
 */
export function htmlToText(html: string): string {
  let s = html.length > MAX_HTML ? html.slice(0, MAX_HTML) : html;
  s = s
    .replace(/<!--[\s\S]*?-->/g, ' ')
    .replace(/<(script|style|head|title)\b[^>]*>[\s\S]*?<\/\1\s*>/gi, ' ')
    .replace(/[\r\n]+/g, ' ')
    .replace(/<br\b[^>]*>/gi, '\n')
    .replace(/<(blockquote)\b[^>]*>/gi, '\n\u0002')
    .replace(/<\/blockquote\s*>/gi, '\u0003\n')
    .replace(/<li\b[^>]*>/gi, '\n* ')
    .replace(/<\/?(p|div|tr|table|h[1-6]|ul|ol|section|article|header|footer|pre|hr)\b[^>]*>/gi, '\n')
    .replace(/<\/t[dh]\s*>/gi, ' ')
    .replace(/<[^>]*>/g, '');
  s = decodeEntities(s);

  // Apply blockquote depth as `> ` prefixes, line by line.
  if (s.indexOf('\u0002') !== -1) {
    let depth = 0;
    const out: string[] = [];
    for (const line of s.split('\n')) {
      if (line.indexOf('\u0002') === -1 && line.indexOf('\u0003') === -1) {
        out.push(line.trim() === '' ? '' : '> '.repeat(depth) + line);
        continue;
      }
      let text = '';
      let lineDepth = depth;
      for (const ch of line) {
        if (ch === '\u0002') {
          depth++;
          lineDepth = Math.max(lineDepth, depth);
        } else if (ch === '\u0003') {
          depth = Math.max(0, depth - 1);
        } else {
          text += ch;
        }
      }
      out.push(text.trim() === '' ? '' : '> '.repeat(lineDepth) + text);
    }
    s = out.join('\n');
  }

  return s
    .replace(/[ \t\u00a0]+/g, ' ')
    .replace(/ ?\n ?/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

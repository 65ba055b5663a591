const LF = 10;
const CR = 13;

/**
 * Index of the first body byte (just after the blank line ending the header block that starts
 * at `from`), or `limit` when the block never ends (a message of headers only).
 */
export function headerBlockEnd(buf: Buffer, from: number, limit: number = buf.length): number {
  if (buf[from] === LF) return from + 1;
  if (buf[from] === CR && buf[from + 1] === LF) return from + 2;
  let i = buf.indexOf(LF, from);
  while (i !== -1 && i < limit) {
    const c = buf[i + 1];
    if (c === LF) return i + 2;
    if (c === CR && buf[i + 2] === LF) return i + 3;
    i = buf.indexOf(LF, i + 1);
  }
  return limit;
}

/** Header name → raw values (folding removed, not decoded), in order of appearance. */
export type HeaderMap = Map<string, string[]>;

const HEADER_LINE = /^([!-9;-~]+)[ \t]*:[ \t]*(.*)$/;

/**
 * Parses a header block (latin1 text; values stay undecoded). Lines that are neither a header
 * nor a continuation are ignored, as most MUAs do.
 */
export function parseHeaderBlock(block: string): HeaderMap {
  const map: HeaderMap = new Map();
  const lines = block.split(/\r?\n/);
  let name: string | undefined;
  let value = '';
  const flush = () => {
    if (name === undefined) return;
    const list = map.get(name);
    if (list) list.push(value.trim());
    else map.set(name, [value.trim()]);
    name = undefined;
  };
  for (const line of lines) {
    if (line === '') continue;
    const first = line.charCodeAt(0);
    if ((first === 32 || first === 9) && name !== undefined) {
      value += ' ' + line.trim();
      continue;
    }
    const m = HEADER_LINE.exec(line);
    flush();
    if (m) {
      name = (m[1] as string).toLowerCase();
      value = m[2] ?? '';
    }
  }
  flush();
  return map;
}

/** True when the first line of the message looks like a header (or an mbox/Unix-from line). */
export function startsWithHeader(buf: Buffer): boolean {
  let i = 0;
  while (i < buf.length && (buf[i] === 32 || buf[i] === 9 || buf[i] === LF || buf[i] === CR)) i++;
  const end = buf.indexOf(LF, i);
  const line = buf.toString('latin1', i, end === -1 ? Math.min(buf.length, i + 2000) : Math.min(end, i + 2000));
  return HEADER_LINE.test(line.replace(/\r$/, '')) || line.startsWith('From ');
}

/**
 * The first parameter `name` of a structured header value (`boundary`, `charset`), unquoted.
 * One pass over `;`-separated parameters (a `;` inside quotes belongs to the value): linear
 * on any value, where a regex rescanned the rest from every `name="` of an unclosed run.
 */
export function headerParam(value: string, name: string): string | undefined {
  const want = name.toLowerCase();
  let i = value.indexOf(';');
  while (i !== -1) {
    let j = i + 1;
    while (j < value.length && /\s/.test(value[j] as string)) j++;
    if (value.slice(j, j + want.length).toLowerCase() === want) {
      let k = j + want.length;
      while (k < value.length && /\s/.test(value[k] as string)) k++;
      if (value[k] === '=') {
        k++;
        while (k < value.length && /\s/.test(value[k] as string)) k++;
        if (value[k] === '"') {
          const close = value.indexOf('"', k + 1);
          if (close !== -1) return value.slice(k + 1, close);
        }
        const m = /^[^;\s]+/.exec(value.slice(k, k + 1000));
        if (m) return m[0];
      }
    }
    // Next parameter: skip a quoted string so its `;` does not start one.
    let q = j;
    while (q < value.length && value[q] !== ';' && value[q] !== '"') q++;
    if (value[q] === '"') {
      const close = value.indexOf('"', q + 1);
      if (close === -1) return undefined;
      q = close + 1;
    }
    i = value.indexOf(';', q);
  }
  return undefined;
}

/** The lower-cased `type/subtype` of a Content-Type value, '' when absent. */
export function mediaType(value: string | undefined): string {
  if (!value) return '';
  const semi = value.indexOf(';');
  return (semi === -1 ? value : value.slice(0, semi)).trim().toLowerCase();
}

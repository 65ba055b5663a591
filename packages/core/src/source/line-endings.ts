const CR = 13;
const LF = 10;

/** True when the buffer holds a CR that is not the start of a CRLF pair. */
function hasBareCr(buf: Buffer): boolean {
  let i = buf.indexOf(CR);
  while (i !== -1) {
    if (buf[i + 1] !== LF) return true;
    i = buf.indexOf(CR, i + 2);
  }
  return false;
}

/**
 * Makes line endings consistent. Pure LF and pure CRLF messages are returned as they are (the
 * common case, no copy); a message with any bare CR (old Mac mail, or a mix) gets every line
 * ending turned into LF, so no parser ever sees a CR-only line break.
 */
export function normalizeLineEndings(buf: Buffer): Buffer {
  return hasBareCr(buf) ? crToLf(buf) : buf;
}

/** LF-only form of a message, used wherever the same mail in CRLF and LF must compare equal. */
export function toLf(buf: Buffer): Buffer {
  return buf.indexOf(CR) === -1 ? buf : crToLf(buf);
}

/** Every CRLF and bare CR as LF, in a new buffer. */
function crToLf(buf: Buffer): Buffer {
  const out = Buffer.allocUnsafeSlow(buf.length);
  let o = 0;
  for (let i = 0; i < buf.length; i++) {
    const c = buf[i] as number;
    if (c === CR) {
      out[o++] = LF;
      if (buf[i + 1] === LF) i++;
    } else {
      out[o++] = c;
    }
  }
  return out.subarray(0, o);
}

/**
 * The compact form of a health snapshot's explanation (docs/health-model.md, "Stored history").
 *
 * A client-day's components, reason, sentence and evidence are mostly the same from one day to the
 * next but for their figures: "Score stable at 72.3 (+0.2 points)." becomes "Score stable at 72.4
 * (+0.1 points)." So each is split into a **skeleton** — the JSON with every figure replaced by a
 * slot, kept once per workspace in `health_parts` and referenced by the days that share it — and
 * the day's **figures**, a few bytes each in the row. Six skeletons per day change independently
 * (PART_COUNT): the components without their raw `inputs` and without the messages their risks
 * name; the `inputs` (their keys come and go with the figures that are not 0); the reason and its
 * sentence; the evidence without the messages it points to; those messages (`day`,
 * `interactionIds`, new with each message); the lists of messages the components' risks name
 * (ids: a new message behind a risk changes this small part, not the components'). A row keeps
 * its parts' ids and its figures in one `detail` value (packDetail).
 *
 * Lossless by construction: every figure is written in a form that gives back the very text it had
 * (a decimal as its digits and the position of its point, anything else as a float64 or as its
 * text), and a value the skeleton cannot hold is kept whole.
 */
import { createHash } from 'node:crypto';
import { ChsError } from '../errors.js';

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** What a snapshot says beyond its score and confidence (components and evidence: JSON values). */
export interface SnapshotDetail<T = JsonValue> {
  components: T;
  reason: string | null;
  reasonText: string | null;
  evidence: T;
}

/** Parts per snapshot (see the top of this file); rows written before the messages' ids had a part of their own have 5. */
export const PART_COUNT = 6;
const PART_COUNT_BEFORE_IDS = 5;

/** The skeleton bodies of a detail's parts and the day's figures. */
interface EncodedDetail {
  parts: string[];
  figures: Uint8Array;
}

/**
 * A stored body is JSON text with two kinds of slot, each one raw control character (JSON text
 * never holds one: it escapes them): NUM in place of a number value, DIGITS inside a string in
 * place of a run of digits. Parsing turns NUM into the one-character string NUM and DIGITS into
 * its escape. A value whose strings hold either character is kept whole instead.
 */
const NUM = '\u0002';
const DIGITS = '\u0003';
/** In the components' body, in place of a list of message ids (ID_KEY), kept in the ids part. */
const IDS = '\u0004';
const IDS_AS_JSON = JSON.stringify(IDS);
/** Lists of message ids under this key in the components go to their own part (see the top of this file). */
const ID_KEY = 'interactionIds';
const NUM_AS_JSON = JSON.stringify(NUM);
const DIGITS_AS_JSON = JSON.stringify(DIGITS).slice(1, -1);
/** A body kept whole (a value with a slot character of its own): never the start of JSON text. */
const WHOLE = '!';
/** Numbers under these keys are kept in the skeleton: they are the same every day (weights, caps, the learned model's version). */
const LITERAL_KEYS: ReadonlySet<string> = new Set(['weight', 'cap', 'model']);
/** Strings under these keys are sentences: their figures go to the row. */
const SENTENCE_KEY = 'text';
const SENTENCE_KEYS: ReadonlySet<string> = new Set([SENTENCE_KEY]);
const DIGIT_RUN = /\d+(?:\.\d+)?/g;
/** Decimals with at most this many digits after the point are written as integers. */
const MAX_DECIMALS = 6;
const POW10 = [1, 10, 100, 1_000, 10_000, 100_000, 1_000_000] as const;
/** Tag (in the low 3 bits) of a figure not written as a decimal: a float64, or a sentence's digits as text. */
const OTHER = 7;
const MAX_MANTISSA = 2 ** 46;

class Unslottable extends Error {}

/** Writes figures as variable-length integers. */
class FigureWriter {
  #buf = new Uint8Array(64);
  #len = 0;
  #ensure(n: number): void {
    if (this.#len + n <= this.#buf.length) return;
    const next = new Uint8Array(Math.max(this.#buf.length * 2, this.#len + n));
    next.set(this.#buf.subarray(0, this.#len));
    this.#buf = next;
  }
  varint(v: number): void {
    this.#ensure(8);
    while (v >= 0x80) {
      this.#buf[this.#len++] = (v % 0x80) | 0x80;
      v = Math.floor(v / 0x80);
    }
    this.#buf[this.#len++] = v;
  }
  bytes(b: Uint8Array): void {
    this.#ensure(b.length);
    this.#buf.set(b, this.#len);
    this.#len += b.length;
  }
  get length(): number {
    return this.#len;
  }
  /** Drops what was written after `length` was `n`. */
  truncate(n: number): void {
    this.#len = n;
  }
  /** A copy of what was written, and a fresh start. */
  take(): Uint8Array {
    const out = this.#buf.slice(0, this.#len);
    this.#len = 0;
    return out;
  }
}

class FigureReader {
  #pos = 0;
  constructor(private readonly buf: Uint8Array) {}
  varint(): number {
    let v = 0;
    let mul = 1;
    for (;;) {
      const b = this.buf[this.#pos++];
      if (b === undefined) throw new ChsError('INTERNAL', 'health snapshot figures end early');
      v += (b & 0x7f) * mul;
      if (b < 0x80) return v;
      mul *= 0x80;
    }
  }
  bytes(n: number): Uint8Array {
    if (this.#pos + n > this.buf.length) throw new ChsError('INTERNAL', 'health snapshot figures end early');
    const out = this.buf.subarray(this.#pos, this.#pos + n);
    this.#pos += n;
    return out;
  }
  get ended(): boolean {
    return this.#pos === this.buf.length;
  }
  get position(): number {
    return this.#pos;
  }
}

function decimalText(mantissa: number, decimals: number, negative = mantissa < 0): string {
  const digits = String(Math.abs(mantissa)).padStart(decimals + 1, '0');
  const whole = digits.slice(0, digits.length - decimals);
  return `${negative ? '-' : ''}${whole}${decimals > 0 ? `.${digits.slice(digits.length - decimals)}` : ''}`;
}

const zigzag = (n: number): number => (n < 0 ? -2 * n - 1 : 2 * n);
const unzigzag = (z: number): number => (z % 2 === 1 ? -(z + 1) / 2 : z / 2);

/**
 * A number as the integer m and the d decimals with m / 10^d === n: that division and reading the
 * decimal text back both give the double nearest m·10^-d, so n comes back exactly. Anything else
 * (more decimals, huge) is written as its float64.
 */
function writeNumber(w: FigureWriter, n: number): void {
  if (!Number.isFinite(n)) throw new Unslottable();
  for (let d = 0; d <= MAX_DECIMALS; d++) {
    const p = POW10[d]!;
    const m = Math.round(n * p);
    if (Math.abs(m) <= MAX_MANTISSA && m / p === n) {
      w.varint(zigzag(m) * 8 + d);
      return;
    }
  }
  const b = new Uint8Array(8);
  new DataView(b.buffer).setFloat64(0, n);
  w.varint(OTHER + 8 * 8);
  w.bytes(b);
}

function readNumber(r: FigureReader): number {
  const head = r.varint();
  const tag = head % 8;
  if (tag !== OTHER) return unzigzag(Math.floor(head / 8)) / POW10[tag]!;
  const b = r.bytes(Math.floor(head / 8));
  return new DataView(b.buffer, b.byteOffset, b.byteLength).getFloat64(0);
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * A run of digits as written (DIGIT_RUN, `s` from `start` to `end`): as a decimal when it reads
 * back the same ("05" and "00.5" do not), else as text. Read by hand rather than by a pattern:
 * a sentence's digits are most of a day's figures.
 */
function writeDigits(w: FigureWriter, s: string, start = 0, end = s.length): void {
  let mantissa = 0;
  let decimals = -1;
  // A leading zero ("05", "00.5") would not read back as written; nor would too many digits.
  const ok = end - start <= 16 && (s.charCodeAt(start) !== 48 || end - start === 1 || s.charCodeAt(start + 1) === 46);
  for (let i = start; ok && i < end; i++) {
    const c = s.charCodeAt(i);
    if (c === 46) decimals = 0;
    else {
      mantissa = mantissa * 10 + (c - 48);
      if (decimals >= 0) decimals++;
    }
  }
  if (decimals < 0) decimals = 0;
  if (ok && decimals <= MAX_DECIMALS && mantissa <= MAX_MANTISSA) {
    w.varint(zigzag(mantissa) * 8 + decimals);
    return;
  }
  const bytes = encoder.encode(s.slice(start, end));
  w.varint(OTHER + 8 * bytes.length);
  w.bytes(bytes);
}

function readDigits(r: FigureReader): string {
  const head = r.varint();
  const tag = head % 8;
  if (tag !== OTHER) return decimalText(unzigzag(Math.floor(head / 8)), tag);
  return decoder.decode(r.bytes(Math.floor(head / 8)));
}

const keyJson = new Map<string, string>();
function jsonKey(k: string): string {
  let j = keyJson.get(k);
  if (j === undefined) {
    j = `${JSON.stringify(k)}:`;
    if (keyJson.size < 1_000) keyJson.set(k, j);
  }
  return j;
}

function jsonString(s: string, sentence: boolean, w: FigureWriter): string {
  if (s.includes(NUM) || s.includes(DIGITS) || s.includes(IDS)) throw new Unslottable();
  if (!sentence) return JSON.stringify(s);
  const slotted = s.replace(DIGIT_RUN, (digits) => {
    writeDigits(w, digits);
    return DIGITS;
  });
  const text = JSON.stringify(slotted);
  return slotted === s ? text : text.replaceAll(DIGITS_AS_JSON, DIGITS);
}

/** A list of message ids the ids part can hold: strings with no slot character. */
function isIdList(v: unknown): v is string[] {
  if (!Array.isArray(v)) return false;
  for (const x of v) if (typeof x !== 'string' || x.includes(NUM) || x.includes(DIGITS) || x.includes(IDS)) return false;
  return true;
}

/**
 * Appends the stored body of a value to `out`, its figures written to `w` in the order a
 * depth-first walk meets them. Writes what JSON.stringify writes (a key whose value is undefined
 * is left out, an undefined array item is null) but with slots. Pieces joined once at the end make
 * one flat string (concatenation would make a rope, flattened again by every comparison). With
 * `ids`, each list of message ids under ID_KEY is an IDS slot, the list appended to `ids`.
 */
function skeletonText(v: unknown, w: FigureWriter, key: string | null, out: string[], ids?: unknown[]): void {
  switch (typeof v) {
    case 'number':
      if (key !== null && LITERAL_KEYS.has(key)) out.push(JSON.stringify(v));
      else {
        writeNumber(w, v);
        out.push(NUM);
      }
      return;
    case 'string':
      out.push(jsonString(v, key !== null && SENTENCE_KEYS.has(key), w));
      return;
    case 'boolean':
      out.push(v ? 'true' : 'false');
      return;
    case 'undefined':
      out.push('null');
      return;
    case 'object': {
      if (v === null) {
        out.push('null');
        return;
      }
      if (Array.isArray(v)) {
        out.push('[');
        for (let i = 0; i < v.length; i++) {
          if (i > 0) out.push(',');
          skeletonText(v[i], w, null, out, ids);
        }
        out.push(']');
        return;
      }
      out.push('{');
      let first = true;
      for (const k in v) {
        if (!Object.hasOwn(v, k)) continue;
        const x = (v as Record<string, unknown>)[k];
        if (x === undefined) continue;
        if (!first) out.push(',');
        out.push(jsonKey(k));
        first = false;
        if (ids && k === ID_KEY && isIdList(x)) {
          out.push(IDS);
          ids.push(x);
        } else skeletonText(x, w, k, out, ids);
      }
      out.push('}');
      return;
    }
    default:
      throw new Unslottable();
  }
}

function fill(skel: JsonValue, r: FigureReader): JsonValue {
  if (typeof skel === 'string') {
    if (skel === NUM) return readNumber(r);
    if (!skel.includes(DIGITS)) return skel;
    const pieces = skel.split(DIGITS);
    let text = pieces[0]!;
    for (let i = 1; i < pieces.length; i++) text += readDigits(r) + pieces[i]!;
    return text;
  }
  if (skel === null || typeof skel !== 'object') return skel;
  if (Array.isArray(skel)) return skel.map((x) => fill(x, r));
  const out: { [key: string]: JsonValue } = {};
  for (const k of Object.keys(skel)) out[k] = fill(skel[k]!, r);
  return out;
}

/**
 * One part's body: its skeleton, or the value whole when a string of it holds a slot character.
 * With `ids`, its lists of message ids go there (nothing when it is kept whole).
 */
function partBody(value: unknown, w: FigureWriter, ids?: unknown[]): string {
  const mark = w.length;
  const idsMark = ids?.length ?? 0;
  try {
    const out: string[] = [];
    skeletonText(value, w, null, out, ids);
    return out.join('');
  } catch (err) {
    if (!(err instanceof Unslottable)) throw err;
    w.truncate(mark);
    if (ids) ids.length = idsMark;
    return WHOLE + (JSON.stringify(value) ?? 'null');
  }
}

/** `v` (a filled components part) with each IDS slot, in order, replaced by the next list of `lists`. */
function withIds(v: JsonValue, lists: JsonValue[], at: { i: number }): JsonValue {
  if (v === IDS) {
    const list = lists[at.i++];
    if (list === undefined) throw new ChsError('INTERNAL', 'health snapshot components name more message lists than its ids part holds');
    return list;
  }
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) return v.map((x) => withIds(x, lists, at));
  const out: { [key: string]: JsonValue } = {};
  for (const k of Object.keys(v)) out[k] = withIds(v[k]!, lists, at);
  return out;
}

/** The reason and its sentence as one value whose sentence is slotted like a `text`. */
const reasonValue = (d: SnapshotDetail<unknown>) => ({ code: d.reason, text: d.reasonText });

const isDigit = (c: number): boolean => c >= 48 && c <= 57;

/** The end of the digit run (DIGIT_RUN) that starts at `i`. */
function runEnd(s: string, i: number): number {
  let j = i;
  while (j < s.length && isDigit(s.charCodeAt(j))) j++;
  if (s.charCodeAt(j) === 46 && j + 1 < s.length && isDigit(s.charCodeAt(j + 1))) {
    j += 2;
    while (j < s.length && isDigit(s.charCodeAt(j))) j++;
  }
  return j;
}

/** Whether two sentences are the same once each run of digits is a slot. */
function sameSentence(a: string, b: string): boolean {
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const da = isDigit(a.charCodeAt(i));
    if (da !== isDigit(b.charCodeAt(j))) return false;
    if (da) {
      i = runEnd(a, i);
      j = runEnd(b, j);
    } else {
      if (a.charCodeAt(i) !== b.charCodeAt(j)) return false;
      i++;
      j++;
    }
  }
  return i === a.length && j === b.length;
}

/**
 * When `v` has the skeleton of `prev` (they differ, if at all, only in their figures), writes the
 * figures of `v` and returns true; otherwise returns false, having written some (the caller drops
 * them). One walk does both: the common day, whose skeleton is yesterday's, costs no more than
 * writing its figures. `tail`: an object's last keys, left out (split off into another part).
 */
function writeIfSame(prev: unknown, v: unknown, key: string | null, w: FigureWriter, tail: readonly string[] = NO_KEYS, ids?: unknown[]): boolean {
  switch (typeof v) {
    case 'number':
      if (typeof prev !== 'number') return false;
      if (key !== null && LITERAL_KEYS.has(key)) return Object.is(prev, v);
      if (!Number.isFinite(prev) || !Number.isFinite(v)) return false;
      writeNumber(w, v);
      return true;
    case 'string':
      if (typeof prev !== 'string') return false;
      if (key === null || !SENTENCE_KEYS.has(key)) return prev === v;
      if (!sameSentence(prev, v)) return false;
      writeSentenceFigures(v, w);
      return true;
    case 'object': {
      if (v === null || prev === null || typeof prev !== 'object') return v === prev;
      if (Array.isArray(v)) {
        if (!Array.isArray(prev) || prev.length !== v.length) return false;
        for (let i = 0; i < v.length; i++) if (!writeIfSame(prev[i], v[i], null, w, NO_KEYS, ids)) return false;
        return true;
      }
      if (Array.isArray(prev)) return false;
      const kv = Object.keys(v);
      const kp = Object.keys(prev);
      const n = kv.length - tail.length;
      if (kv.length !== kp.length || n < 0) return false;
      for (let j = 0; j < tail.length; j++) if (kv[n + j] !== tail[j] || kp[n + j] !== tail[j]) return false;
      for (let i = 0; i < n; i++) {
        const k = kv[i]!;
        if (k !== kp[i]) return false;
        const x = (v as Record<string, unknown>)[k];
        const y = (prev as Record<string, unknown>)[k];
        // A key left undefined is left out of the body: not worth matching, the body is built instead.
        if (x === undefined || y === undefined) return false;
        if (ids && k === ID_KEY) {
          // Lists of message ids are slots whatever they hold: the lists go to the ids part.
          const list = isIdList(x);
          if (list !== isIdList(y)) return false;
          if (list) {
            ids.push(x);
            continue;
          }
        }
        if (!writeIfSame(y, x, k, w, NO_KEYS, ids)) return false;
      }
      return true;
    }
    default:
      return prev === v;
  }
}

/** Writes the digit runs of a sentence (its figures; the skeleton is known to be another's). */
function writeSentenceFigures(v: string, w: FigureWriter): void {
  for (let i = 0; i < v.length;) {
    if (!isDigit(v.charCodeAt(i))) {
      i++;
      continue;
    }
    const end = runEnd(v, i);
    writeDigits(w, v, i, end);
    i = end;
  }
}

/** A detail as encoded, with what it was encoded from: what the next day is compared with. */
export interface EncodedFrom extends EncodedDetail {
  source: SnapshotDetail<unknown>;
  /** The lists of message ids its components' part left to the ids part. */
  ids: unknown[];
  /** Whether its components had their `inputs` split off, and its evidence its pointer (splitTail). */
  split: readonly [boolean, boolean];
}

/**
 * Whether the last keys of `v` whose values are defined are `keys`, in that order: what splitTail
 * splits off (checked without building the parts).
 */
function endsWith(v: unknown, keys: readonly string[]): boolean {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
  const all = Object.keys(v);
  let i = all.length - 1;
  for (let j = keys.length - 1; j >= 0; j--, i--) {
    while (i >= 0 && (v as Record<string, unknown>)[all[i]!] === undefined) i--;
    if (i < 0 || all[i] !== keys[j]) return false;
  }
  return true;
}

/**
 * `v` without its last keys when they are `keys`, in that order (as the rebuild writes them), and
 * their values; otherwise `v` whole and no values. Keys whose value is undefined do not count
 * (JSON leaves them out).
 */
function splitTail(v: unknown, keys: readonly string[]): [unknown, unknown[]] {
  if (!endsWith(v, keys)) return [v, []];
  const entries: [string, unknown][] = Object.entries(v as Record<string, unknown>).filter(([, x]) => x !== undefined);
  return [Object.fromEntries(entries.slice(0, entries.length - keys.length)), entries.slice(entries.length - keys.length).map(([, x]) => x)];
}

function joinTail(rest: JsonValue, tail: JsonValue, keys: readonly string[]): JsonValue {
  if (!Array.isArray(tail) || tail.length !== keys.length || rest === null || typeof rest !== 'object' || Array.isArray(rest)) return rest;
  const out: { [key: string]: JsonValue } = { ...rest };
  keys.forEach((k, i) => (out[k] = tail[i]!));
  return out;
}

const NO_KEYS: readonly string[] = [];
const INPUTS = ['inputs'] as const;
const POINTER = ['day', 'interactionIds'] as const;

/** The values of a detail's parts but the ids part, in PART_COUNT order. */
function partValues(d: SnapshotDetail<unknown>): unknown[] {
  const [components, inputs] = splitTail(d.components, INPUTS);
  const [evidence, pointer] = splitTail(d.evidence, POINTER);
  return [components, inputs, reasonValue(d), evidence, pointer];
}

/**
 * Part `k` of `d` (split as `split` says) has the skeleton of the same part of `p` (split the same
 * way): its figures are written. The parts are compared in place, without being built.
 */
function partIfSame(
  k: number,
  p: SnapshotDetail<unknown>,
  d: SnapshotDetail<unknown>,
  split: readonly [boolean, boolean],
  w: FigureWriter,
  ids: unknown[],
): boolean {
  const [inputs, pointer] = split;
  switch (k) {
    case 0:
      return writeIfSame(p.components, d.components, null, w, inputs ? INPUTS : NO_KEYS, ids);
    case 1:
      // The part is [inputs] (an array's item has no key), or [] when not split.
      return !inputs || writeIfSame((p.components as Record<string, unknown>)[INPUTS[0]], (d.components as Record<string, unknown>)[INPUTS[0]], null, w);
    case 2:
      // The part is {code: reason, text: reasonText} (reasonValue).
      return (d.reason === null || typeof d.reason === 'string') && d.reason === p.reason && writeIfSame(p.reasonText, d.reasonText, SENTENCE_KEY, w);
    case 3:
      return writeIfSame(p.evidence, d.evidence, null, w, pointer ? POINTER : NO_KEYS);
    case 4: {
      // The part is [day, interactionIds], or [] when not split.
      if (!pointer) return true;
      const pe = p.evidence as Record<string, unknown>;
      const de = d.evidence as Record<string, unknown>;
      return writeIfSame(pe[POINTER[0]], de[POINTER[0]], null, w) && writeIfSame(pe[POINTER[1]], de[POINTER[1]], null, w);
    }
    default:
      return false;
  }
}

/** Whether two collections of message-id lists are the same (the ids part: plain strings, no figures). */
function sameIdLists(a: readonly unknown[], b: readonly unknown[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as string[];
    const y = b[i] as string[];
    if (x.length !== y.length) return false;
    for (let j = 0; j < x.length; j++) if (x[j] !== y[j]) return false;
  }
  return true;
}

/**
 * Encodes a detail; `components` and `evidence` are anything JSON.stringify writes as they are.
 * With `previous` (usually the client's day before), a part whose skeleton is the same as there
 * takes its body as it is, and only its figures are written.
 */
export function encodeDetail(d: SnapshotDetail<unknown>, previous?: EncodedFrom): EncodedFrom {
  const w = shared;
  w.truncate(0);
  const split = [endsWith(d.components, INPUTS), endsWith(d.evidence, POINTER)] as const;
  const sameSplit = previous !== undefined && previous.split[0] === split[0] && previous.split[1] === split[1];
  let values: unknown[] | undefined;
  const parts: string[] = [];
  // Filled by the components' part (0), the value of the ids part (the last).
  const ids: unknown[] = [];
  for (let k = 0; k < PART_COUNT - 1; k++) {
    const prevBody = previous?.parts[k];
    const mark = w.length;
    if (sameSplit && prevBody !== undefined && !prevBody.startsWith(WHOLE) && partIfSame(k, previous.source, d, split, w, ids)) {
      parts.push(prevBody);
      continue;
    }
    w.truncate(mark);
    // A components' part compared half-way may have listed some of its messages.
    if (k === 0) ids.length = 0;
    values ??= partValues(d);
    parts.push(partBody(values[k], w, k === 0 ? ids : undefined));
  }
  const prevIds = previous?.parts[PART_COUNT - 1];
  parts.push(previous && prevIds !== undefined && !prevIds.startsWith(WHOLE) && sameIdLists(previous.ids, ids) ? prevIds : partBody(ids, w));
  return { parts, figures: w.take(), source: d, split, ids };
}

/** One writer for every call (encodeDetail is synchronous): a row's figures are copied out of it. */
const shared = new FigureWriter();

/** A part's body parsed once (callers cache it by part id). */
export type ParsedPart = { whole: true; value: JsonValue } | { whole: false; skeleton: JsonValue };

export function parsePart(body: string): ParsedPart {
  if (body.startsWith(WHOLE)) return { whole: true, value: JSON.parse(body.slice(1)) as JsonValue };
  return {
    whole: false,
    skeleton: JSON.parse(body.replaceAll(NUM, NUM_AS_JSON).replaceAll(DIGITS, DIGITS_AS_JSON).replaceAll(IDS, IDS_AS_JSON)) as JsonValue,
  };
}

/** A row's detail from its parts (PART_COUNT, or PART_COUNT_BEFORE_IDS for a row written before the ids part) and figures. */
export function decodeDetail(parts: readonly ParsedPart[], figures: Uint8Array): SnapshotDetail {
  if (parts.length !== PART_COUNT && parts.length !== PART_COUNT_BEFORE_IDS) {
    throw new ChsError('INTERNAL', `a health snapshot has ${PART_COUNT_BEFORE_IDS} or ${PART_COUNT} parts, not ${parts.length}`);
  }
  const r = new FigureReader(figures);
  const [filled, inputs, x, e, pointer, lists] = parts.map((p): JsonValue => (p.whole ? p.value : fill(p.skeleton, r)));
  if (!r.ended) throw new ChsError('INTERNAL', 'health snapshot figures left over: the row does not match its parts');
  let c = filled ?? null;
  if (lists !== undefined) {
    if (!Array.isArray(lists)) throw new ChsError('INTERNAL', 'a health snapshot ids part is not a list');
    const at = { i: 0 };
    c = withIds(c, lists, at);
    if (at.i !== lists.length) throw new ChsError('INTERNAL', 'a health snapshot ids part holds more lists than its components name');
  }
  const reason = x !== null && typeof x === 'object' && !Array.isArray(x) ? x : {};
  return {
    components: joinTail(c, inputs ?? null, INPUTS),
    reason: typeof reason.code === 'string' ? reason.code : null,
    reasonText: typeof reason.text === 'string' ? reason.text : null,
    evidence: joinTail(e ?? null, pointer ?? null, POINTER),
  };
}

/**
 * A row's `detail`: its parts' ids, then its figures. PART_COUNT ids follow a 0 (no part has id
 * 0); a row without it, written before the ids part, has PART_COUNT_BEFORE_IDS. A row written
 * since migration 019 holds its confidence too, right after the 0 (its `confidence` column is
 * then null, and says so: unpackDetail is told): 1 or 2 bytes instead of a float64 column.
 */
export function packDetail(partIds: readonly number[], figures: Uint8Array, confidence?: number): Uint8Array {
  if (partIds.length !== PART_COUNT) throw new ChsError('INTERNAL', `a health snapshot has ${PART_COUNT} parts, not ${partIds.length}`);
  const w = new FigureWriter();
  w.varint(0);
  if (confidence !== undefined) {
    if (!Number.isFinite(confidence)) throw new ChsError('INTERNAL', `a health snapshot's confidence is not a number: ${confidence}`);
    writeNumber(w, confidence);
  }
  for (const id of partIds) w.varint(id);
  w.bytes(figures);
  return w.take();
}

/** A row's parts' ids and figures, and its confidence when `withConfidence` (its column is null: see packDetail). */
export function unpackDetail(detail: Uint8Array, withConfidence = false): { partIds: number[]; figures: Uint8Array; confidence: number | null } {
  const r = new FigureReader(detail);
  const withIds = detail[0] === 0;
  if (withIds) r.varint();
  else if (withConfidence) throw new ChsError('INTERNAL', 'a health snapshot without its confidence has no place for it in its detail');
  const confidence = withConfidence ? readNumber(r) : null;
  const partIds = Array.from({ length: withIds ? PART_COUNT : PART_COUNT_BEFORE_IDS }, () => r.varint());
  return { partIds, figures: detail.subarray(r.position), confidence };
}

/** A part's key within its workspace: the first 128 bits of the SHA-256 of its body. */
export function partHash(body: string): string {
  return createHash('sha256').update(body).digest().subarray(0, 16).toString('base64url');
}

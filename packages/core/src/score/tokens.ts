/**
 * What the sentiment scorer and the signal detector both read words with: the same character
 * classes and the same negating contractions ("can't" → can not), so the two tokenise alike.
 */

const WORD_CHAR_RE = /[\p{L}\p{N}\p{M}]/u;

/** A letter, digit or combining mark (ASCII by comparison, the rest by Unicode class). */
export function isWordChar(c: number, ch: string): boolean {
  if (c < 128) return (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || (c >= 65 && c <= 90);
  return WORD_CHAR_RE.test(ch);
}

export function isSpace(c: number): boolean {
  return c === 32 || c === 10 || c === 9 || c === 13 || c === 12 || c === 11 || c === 160;
}

/** Lower-cased contractions with a "not" in them, spelled out. Entries, so a caller can extend them. */
export const NEGATING_CONTRACTIONS: readonly (readonly [string, readonly string[]])[] = [
  ["can't", ['can', 'not']],
  ['cant', ['can', 'not']],
  ['cannot', ['can', 'not']],
  ["won't", ['will', 'not']],
  ['wont', ['will', 'not']],
  ["shan't", ['shall', 'not']],
  ['dont', ['do', 'not']],
  ['doesnt', ['does', 'not']],
  ['didnt', ['did', 'not']],
  ['isnt', ['is', 'not']],
  ['wasnt', ['was', 'not']],
  ['arent', ['are', 'not']],
  ['werent', ['were', 'not']],
  ['couldnt', ['could', 'not']],
  ['shouldnt', ['should', 'not']],
  ['wouldnt', ['would', 'not']],
  ['havent', ['have', 'not']],
  ['hasnt', ['has', 'not']],
  ['hadnt', ['had', 'not']],
  ['aint', ['is', 'not']],
];

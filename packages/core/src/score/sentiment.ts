/**
 * The default sentiment scorer: AFINN-165 (from the `sentiment` package) made fit for business
 * e-mail. See docs/sentiment.md for the method, the thresholds and the measured accuracy.
 *
 * Per sentence: lexicon hits (words and phrases, longest phrase first) are summed, with
 * - negation: "not / no / never / without / zero / n't" flips the next scored word within three
 *   content words of the same clause ("no problems" is mildly positive, "not happy" negative);
 * - boosters ("very", "really", "so", ...) scale the next scored word by 1.3;
 * - contrast: words before "but" / "however" count half, after it one and a half;
 * - hypotheticals: an "if" clause counts a quarter ("let me know if you have any problems");
 * - scheduling: "cancel" next to "meeting / call / invite / ..." is logistics, not churn;
 * - negative words weigh NEGATIVE_WEIGHT more, because in CS mail complaints are understated
 *   and politeness is overstated.
 * The sentence sum `s` is squashed to s / sqrt(s² + ALPHA) in (-1, 1); a question counts
 * QUESTION_WEIGHT of that. The message score is the sum of sentence values over the number of
 * sentences with a hit plus QUIET_WEIGHT per sentence without one, so a single remark in a long
 * logistics mail is diluted but not erased. No hit at all → neutral with score 0.
 */
import { ChsError } from '../errors.js';
import type { SentimentLabel, SentimentResult, SentimentScorer } from '../interfaces.js';
import { buildLexicon, type PhraseEntry } from './lexicon.js';
import { isSpace, isWordChar, NEGATING_CONTRACTIONS } from './tokens.js';

/**
 * Label thresholds on the score: `score >= positive` is positive, `score <= negative` is
 * negative, anything between is neutral.
 */
export const SENTIMENT_THRESHOLDS: Readonly<{ positive: number; negative: number }> = Object.freeze({
  positive: 0.2,
  negative: -0.2,
});

export interface SentimentScorerOptions {
  /** Label thresholds on the final score. Default `SENTIMENT_THRESHOLDS` (±0.2). */
  thresholds?: { positive: number; negative: number };
  /**
   * Extra lexicon entries, words or phrases on AFINN's -5..5 scale, that override the built-in
   * ones (e.g. a product name that reads as a sentiment word: `{ "crusher": 0 }`). Default none.
   */
  lexicon?: Readonly<Record<string, number>>;
}

/** Tuning constants; chosen on fixtures/sentiment/labelled.jsonl, checked on holdout.jsonl. */
const ALPHA = 4;
const QUIET_WEIGHT = 0.25;
const QUESTION_WEIGHT = 0.75;
const NEGATIVE_WEIGHT = 1.25;
const NEGATED_POSITIVE = -0.75;
const NEGATED_NEGATIVE = -0.5;
const BOOST = 1.3;
const HYPOTHETICAL_WEIGHT = 0.1;
const NEGATION_REACH = 3;
const RESOLVER_REACH = 2;

const NEGATORS = new Set(['not', 'no', 'never', 'without', 'zero', 'nothing', 'none', 'neither', 'nor', 'hardly', 'barely', 'lack', 'lacks']);
const BOOSTERS = new Set([
  'very',
  'really',
  'extremely',
  'so',
  'super',
  'incredibly',
  'truly',
  'absolutely',
  'completely',
  'totally',
  'highly',
  'seriously',
  'deeply',
  'genuinely',
  'particularly',
  'especially',
  'hugely',
  'massively',
]);
/** Verbs that turn the problem they govern into good news ("fixed every bug", "resolved the issue"). */
const RESOLVERS = new Set([
  'fixed',
  'fix',
  'fixes',
  'resolved',
  'resolve',
  'resolves',
  'solved',
  'solve',
  'solves',
  'addressed',
  'sorted',
  'eliminated',
  'cleared',
]);
const CONTRAST = new Set(['but', 'however', 'though', 'yet']);
const HYPOTHETICAL = new Set(['if', 'whether']);
/** Function words that do not use up a negation's reach ("never had an issue"). */
const FILLER = new Set([
  'a',
  'an',
  'the',
  'any',
  'at',
  'all',
  'of',
  'to',
  'be',
  'been',
  'being',
  'is',
  'was',
  'were',
  'are',
  'am',
  'have',
  'has',
  'had',
  'do',
  'does',
  'did',
  'we',
  'i',
  'you',
  'they',
  'it',
  'our',
  'my',
  'your',
  'their',
  'its',
  'this',
  'that',
  'single',
  'one',
  'much',
  'very',
  'really',
  'so',
  'too',
  'seem',
  'seems',
  'think',
  'can',
  'could',
  'will',
  'would',
  'should',
  'may',
  'might',
  'must',
  'get',
  'got',
  'see',
  'seeing',
  'seen',
  'experience',
  'experienced',
  'experiencing',
  'real',
  'major',
  'big',
  'more',
  'further',
  'other',
  'ever',
  'since',
]);
/** Negative words that are logistics next to a scheduling word ("cancel the meeting", "a calendar conflict"). */
const SCHEDULING_SENSITIVE = new Set(['cancel', 'cancelled', 'canceled', 'cancelling', 'canceling', 'cancellation', 'conflict', 'conflicts', 'clash']);
const SCHEDULING = new Set([
  'meeting',
  'meetings',
  'call',
  'calls',
  'invite',
  'invites',
  'invitation',
  'appointment',
  'session',
  'webinar',
  'demo',
  'attendance',
  'sync',
  'kickoff',
  'standup',
  'lunch',
  'dinner',
  'reservation',
  'booking',
  'flight',
  'event',
  'calendar',
  'duplicate',
  'order',
  'training',
  'workshop',
  'interview',
  'trip',
  'morning',
  'afternoon',
  'evening',
  'monday',
  'tuesday',
  'wednesday',
  'thursday',
  'friday',
  'slot',
  'time',
]);
/** A sentence made only of one of these and a name is a sign-off ("Best, Sam"). */
const SIGN_OFF = new Set(['best', 'regards', 'cheers', 'sincerely', 'warmly', 'warm']);

// One lookup per token instead of one per word class: this loop runs on every token of every mail.
const NEGATOR = 1;
const BOOSTER = 2;
const CONTRASTIVE = 4;
const HYPOTHETICAL_MARK = 8;
const FILLER_WORD = 16;
const SCHEDULING_WORD = 32;
const RESOLVER = 64;
const ROLE = new Map<string, number>();
for (const [set, bit] of [
  [NEGATORS, NEGATOR],
  [BOOSTERS, BOOSTER],
  [CONTRAST, CONTRASTIVE],
  [HYPOTHETICAL, HYPOTHETICAL_MARK],
  [FILLER, FILLER_WORD],
  [SCHEDULING_SENSITIVE, SCHEDULING_WORD],
  [RESOLVERS, RESOLVER],
] as const) {
  for (const w of set) ROLE.set(w, (ROLE.get(w) ?? 0) | bit);
}

// A Map, not an object literal: a word like "constructor" must not hit Object.prototype.
const CONTRACTIONS: ReadonlyMap<string, readonly string[]> = new Map(NEGATING_CONTRACTIONS);

/** Marks a clause boundary (comma, semicolon, colon, dash, bracket) inside a sentence. */
const CLAUSE = ',';

function pushWord(out: string[], raw: string): void {
  let w = raw;
  const fixed = CONTRACTIONS.get(w);
  if (fixed) {
    for (const f of fixed) out.push(f);
    return;
  }
  if (w.endsWith("n't")) {
    out.push(w.slice(0, -3), 'not');
    return;
  }
  if (w.endsWith("'s")) w = w.slice(0, -2);
  out.push(w);
}

function normalise(text: string): string {
  return text.toLowerCase().replace(/[\u2018\u2019\u02bc]/g, "'");
}

/**
 * Splits lower-cased text into sentences of word tokens; clause marks (, ; : brackets, dashes)
 * appear as `CLAUSE` tokens. A sentence ends at . ! ? followed by a space, a quote, a bracket or
 * the end (so "acme.com" and "3.5" do not end one), and at a blank line. Words keep inner
 * apostrophes; any other character separates words. A hand-written scanner: about twice as fast as
 * the equivalent regular expression, and this runs on every message.
 */
function sentences(text: string): { tokens: string[]; question: boolean }[] {
  const out: { tokens: string[]; question: boolean }[] = [];
  let tokens: string[] = [];
  let words = 0;
  const end = (question: boolean): void => {
    if (words > 0) out.push({ tokens, question });
    tokens = [];
    words = 0;
  };
  const clause = (): void => {
    if (tokens.length > 0 && tokens[tokens.length - 1] !== CLAUSE) tokens.push(CLAUSE);
  };
  const n = text.length;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    const ch = text[i] as string;
    if (isWordChar(c, ch)) {
      const start = i;
      i++;
      while (i < n) {
        const d = text.charCodeAt(i);
        if (isWordChar(d, text[i] as string)) i++;
        else if (d === 39 && i + 1 < n && isWordChar(text.charCodeAt(i + 1), text[i + 1] as string)) i += 2;
        else break;
      }
      pushWord(tokens, text.slice(start, i));
      words++;
      continue;
    }
    if (c === 46 || c === 33 || c === 63) {
      let question = false;
      while (i < n) {
        const d = text.charCodeAt(i);
        if (d === 63) question = true;
        else if (d !== 46 && d !== 33) break;
        i++;
      }
      const next = i < n ? text.charCodeAt(i) : 32;
      if (isSpace(next) || next === 34 || next === 39 || next === 41 || next === 93) end(question);
      continue;
    }
    if (c === 44 || c === 59 || c === 58 || c === 40 || c === 41 || c === 0x2013 || c === 0x2014) clause();
    else if (c === 45 && i > 0 && i + 1 < n && isSpace(text.charCodeAt(i - 1)) && isSpace(text.charCodeAt(i + 1))) clause();
    else if (c === 10) {
      let j = i + 1;
      while (j < n && (text.charCodeAt(j) === 32 || text.charCodeAt(j) === 9 || text.charCodeAt(j) === 13)) j++;
      if (j < n && text.charCodeAt(j) === 10) {
        end(false);
        i = j + 1;
        continue;
      }
    }
    i++;
  }
  end(false);
  return out;
}

/** The scorer's word tokeniser, also used to key the lexicon's phrases. */
function tokenizeWords(text: string): string[] {
  const out: string[] = [];
  for (const s of sentences(normalise(text))) for (const t of s.tokens) if (t !== CLAUSE) out.push(t);
  return out;
}

function matchPhrase(tokens: readonly string[], i: number, list: readonly PhraseEntry[] | undefined): PhraseEntry | undefined {
  if (!list) return undefined;
  for (const p of list) {
    if (i + p.rest.length >= tokens.length) continue;
    let ok = true;
    for (let k = 0; k < p.rest.length; k++) {
      if (tokens[i + 1 + k] !== p.rest[k]) {
        ok = false;
        break;
      }
    }
    if (ok) return p;
  }
  return undefined;
}

function nearScheduling(tokens: readonly string[], i: number): boolean {
  for (let k = Math.max(0, i - 2); k <= Math.min(tokens.length - 1, i + 5); k++) {
    if (SCHEDULING.has(tokens[k] ?? '')) return true;
  }
  return false;
}

/** Sum of lexicon hits in one sentence, and how many there were. */
function scoreSentence(
  tokens: readonly string[],
  words: ReadonlyMap<string, number>,
  phrases: ReadonlyMap<string, PhraseEntry[]>,
): { sum: number; hits: number } {
  const first = tokens[0];
  if (first !== undefined && SIGN_OFF.has(first) && tokens.length <= 3) return { sum: 0, hits: 0 };
  let sum = 0;
  let hits = 0;
  let negReach = 0;
  let resolveReach = 0;
  let boostReach = 0;
  let hypothetical = false;
  let weight = 1;
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i] as string;
    if (t === CLAUSE) {
      negReach = 0;
      resolveReach = 0;
      boostReach = 0;
      hypothetical = false;
      continue;
    }
    const phrase = matchPhrase(tokens, i, phrases.get(t));
    const role = ROLE.get(t) ?? 0;
    let value: number | undefined;
    if (phrase) {
      value = phrase.score;
      i += phrase.rest.length;
    } else if (role & NEGATOR) {
      negReach = NEGATION_REACH;
      continue;
    } else if (role & CONTRASTIVE) {
      sum *= 0.5;
      weight = 1.5;
      negReach = 0;
      hypothetical = false;
      continue;
    } else if (role & HYPOTHETICAL_MARK) {
      hypothetical = true;
      continue;
    } else if (role & BOOSTER) {
      boostReach = 2;
      continue;
    } else {
      value = words.get(t);
      if (value !== undefined && value < 0 && role & SCHEDULING_WORD && nearScheduling(tokens, i)) value = 0;
    }
    if (value === undefined || value === 0) {
      if (!(role & FILLER_WORD)) {
        if (negReach > 0) negReach--;
        if (resolveReach > 0) resolveReach--;
        if (boostReach > 0) boostReach--;
      }
      continue;
    }
    let s = value;
    if (negReach > 0) {
      s *= s > 0 ? NEGATED_POSITIVE : NEGATED_NEGATIVE;
      negReach = 0;
    } else if (resolveReach > 0 && s < 0) {
      s *= NEGATED_NEGATIVE;
      resolveReach = 0;
    }
    if (role & RESOLVER) resolveReach = RESOLVER_REACH;
    if (boostReach > 0) {
      s *= BOOST;
      boostReach = 0;
    }
    if (hypothetical) s *= HYPOTHETICAL_WEIGHT;
    if (s < 0) s *= NEGATIVE_WEIGHT;
    sum += s * weight;
    hits++;
  }
  return { sum, hits };
}

function checkThresholds(t: { positive: number; negative: number }): void {
  const ok = Number.isFinite(t.positive) && Number.isFinite(t.negative) && t.positive > 0 && t.positive <= 1 && t.negative < 0 && t.negative >= -1;
  if (!ok) {
    throw new ChsError('INVALID_INPUT', 'sentiment thresholds must satisfy -1 <= negative < 0 < positive <= 1', {
      details: { positive: t.positive, negative: t.negative },
    });
  }
}

/** Maps a score to its label with the given thresholds. */
export function labelFor(score: number, thresholds: { positive: number; negative: number } = SENTIMENT_THRESHOLDS): SentimentLabel {
  if (score >= thresholds.positive) return 'positive';
  if (score <= thresholds.negative) return 'negative';
  return 'neutral';
}

/**
 * "Thanks, Maria" closing a longer message is a sign-off, not praise; "Thanks so much!" scores
 * more than a bare thanks and is kept.
 */
function isClosingThanks(tokens: readonly string[], sum: number): boolean {
  const first = tokens[0];
  return (first === 'thanks' || first === 'thank' || first === 'thx' || first === 'many') && tokens.length <= 4 && sum <= 1.5;
}

const NEUTRAL: SentimentResult = Object.freeze({ label: 'neutral', score: 0 });

/** The default scorer. Pure and synchronous; safe to share across calls (not across threads). */
export function createSentimentScorer(options: SentimentScorerOptions = {}): SentimentScorer {
  const thresholds = Object.freeze({ ...(options.thresholds ?? SENTIMENT_THRESHOLDS) });
  checkThresholds(thresholds);
  const { words, phrases } = buildLexicon(tokenizeWords, options.lexicon);
  return {
    score(text: string): SentimentResult {
      if (typeof text !== 'string' || text.length === 0) return { ...NEUTRAL };
      let total = 0;
      let scored = 0;
      let quiet = 0;
      const all = sentences(normalise(text));
      for (let k = 0; k < all.length; k++) {
        const s = all[k] as (typeof all)[number];
        const { sum, hits } = scoreSentence(s.tokens, words, phrases);
        if (hits === 0 || sum === 0 || (k > 0 && k === all.length - 1 && isClosingThanks(s.tokens, sum))) {
          quiet++;
          continue;
        }
        const v = sum / Math.sqrt(sum * sum + ALPHA);
        total += s.question ? v * QUESTION_WEIGHT : v;
        scored++;
      }
      if (scored === 0) return { ...NEUTRAL };
      const raw = total / (scored + QUIET_WEIGHT * quiet);
      // Rounded so the same text always prints the same digits; clamped against float drift.
      const score = Math.max(-1, Math.min(1, Math.round(raw * 10_000) / 10_000)) || 0;
      return { label: labelFor(score, thresholds), score };
    },
  };
}

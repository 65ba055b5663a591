import { describe, expect, it } from 'vitest';
import { isChsError } from '../errors.js';
import { createSentimentScorer, labelFor, SENTIMENT_THRESHOLDS } from './sentiment.js';

// Hand-worked values use the documented method (docs/sentiment.md): a sentence's lexicon sum s
// becomes s / sqrt(s² + 4); negative hits weigh 1.25; a negated positive word is × -0.75, a
// negated negative one × -0.5; the message score is Σ sentence values / (scored + 0.25 × quiet).
const squash = (s: number): number => s / Math.sqrt(s * s + 4);

const scorer = createSentimentScorer();
const score = (text: string) => scorer.score(text);

describe('not enough signal', () => {
  it.each(['', '   ', '\n\n', '...!!!', 'Meeting moved to 3pm on Thursday.', 'Best,\nSam', '🙂🙂'])('%j is neutral with score 0', (text) => {
    expect(score(text)).toEqual({ label: 'neutral', score: 0 });
  });

  it('a word that names an Object.prototype member is just a word', () => {
    expect(score('constructor toString hasOwnProperty __proto__')).toEqual({ label: 'neutral', score: 0 });
  });
});

describe('AFINN words and negation', () => {
  it('scores a plain AFINN word: "happy" is 3', () => {
    const r = score('We are happy.');
    expect(r.label).toBe('positive');
    expect(r.score).toBeCloseTo(squash(3), 4); // 0.8321
  });

  it('"not happy" flips to negative: 3 × -0.75 × 1.25', () => {
    const r = score('We are not happy.');
    expect(r.label).toBe('negative');
    expect(r.score).toBeCloseTo(squash(-2.8125), 4); // -0.8150
  });

  it('"no problems" is mildly positive: -2 × -0.5', () => {
    const r = score('No problems.');
    expect(r.label).toBe('positive');
    expect(r.score).toBeCloseTo(squash(1), 4); // 0.4472
  });

  it('"never had an issue" reaches over function words: issue -1 × -0.5', () => {
    const r = score('We never had an issue.');
    expect(r.label).toBe('positive');
    expect(r.score).toBeCloseTo(squash(0.5), 4); // 0.2425
  });

  it('"no issues at all" and "not bad" are positive', () => {
    expect(score('No issues at all.').label).toBe('positive');
    expect(score('Not bad.').label).toBe('positive');
  });

  it('"isn\'t working" is the phrase "not working" (-2), with straight or curly apostrophes', () => {
    const straight = score("It isn't working.");
    expect(straight.label).toBe('negative');
    expect(straight.score).toBeCloseTo(squash(-2.5), 4); // -0.7809
    expect(score('It isn’t working.')).toEqual(straight);
    expect(score('It isnt working.')).toEqual(straight);
  });

  it('a comma ends the reach of a negation', () => {
    // "No," answers; "broken" (-2) is not negated.
    expect(score('No, it is broken.').label).toBe('negative');
  });
});

describe('business lexicon', () => {
  it.each([
    ['We will escalate this.', 'negative'],
    ['Please process a refund.', 'negative'],
    ['Another outage today.', 'negative'],
    ['I am following up again.', 'negative'],
    ['We are still waiting.', 'negative'],
    ['We are switching to a competitor.', 'negative'],
    ['We plan to renew.', 'positive'],
    ['We want to expand to two more teams.', 'positive'],
    ['Great work!', 'positive'],
    ['It is resolved.', 'positive'],
  ] as const)('%j is %s', (text, label) => {
    expect(score(text).label).toBe(label);
  });

  it('multi-word phrases score as one entry: "following up again" is -2, not three words', () => {
    expect(score('I am following up again.').score).toBeCloseTo(squash(-2.5), 4);
  });

  it('"thanks so much" (3) outweighs a bare "thanks" (0.5), which alone is too weak to label', () => {
    expect(score('Thanks so much.').score).toBeCloseTo(squash(3), 4);
    expect(score('Thanks.').score).toBeCloseTo(squash(0.5), 4); // 0.2425
    expect(score('Received, thanks. I will reply tomorrow.')).toEqual({ label: 'neutral', score: 0.194 }); // 0.2425 / 1.25
  });

  it('a closing "Thanks, Maria" is a sign-off, not praise; a closing "Thanks so much!" still counts', () => {
    // outage -3 × 1.25; the closing thanks is a quiet sentence: squash(-3.75) / (1 + 0.25)
    expect(score('Another outage today.\nThanks,\nMaria').score).toBeCloseTo(squash(-3.75) / 1.25, 4);
    // alone, the same thanks is the only signal and is kept
    expect(score('Thanks, Maria').score).toBeCloseTo(squash(0.5), 4);
    expect(score('The migration is done. Thanks so much!').score).toBeCloseTo(squash(3) / 1.25, 4);
  });

  it('"cancel" next to a meeting is logistics; next to a subscription it is churn', () => {
    expect(score("We need to cancel tomorrow's meeting.")).toEqual({ label: 'neutral', score: 0 });
    expect(score('Please cancel our subscription.').score).toBeCloseTo(squash(-2.5), 4);
  });

  it('an "if" clause counts a tenth: -2 × 0.1 × 1.25', () => {
    const r = score('Let me know if you have any problems.');
    expect(r.label).toBe('neutral');
    expect(r.score).toBeCloseTo(squash(-0.25), 4); // -0.1240
  });

  it('a resolution verb turns the problem it governs into good news', () => {
    // fixed 1.5, bug -2 × -0.5 = 1 → 2.5
    expect(score('You fixed the bug.').score).toBeCloseTo(squash(2.5), 4);
  });

  it('after "but" counts more than before it', () => {
    // great 3 → halved to 1.5; outage -3 and unacceptable -3, each × 1.25 × 1.5
    const r = score('The product is great, but the outage was unacceptable.');
    expect(r.label).toBe('negative');
    expect(r.score).toBeCloseTo(squash(1.5 - 2 * 5.625), 4);
  });

  it('sentences without signal dilute by a quarter each', () => {
    const r = score('We are happy. The call is at 3pm. Room four is booked.');
    expect(r.score).toBeCloseTo(squash(3) / 1.5, 4);
  });

  it('a question counts three quarters', () => {
    expect(score('Is the outage over?').score).toBeCloseTo(0.75 * squash(-3.75), 4);
  });

  it('extra lexicon entries override and add phrases', () => {
    const custom = createSentimentScorer({ lexicon: { outage: 0, 'acme rocks': 4 } });
    expect(custom.score('Another outage today.')).toEqual({ label: 'neutral', score: 0 });
    expect(custom.score('Acme rocks.').score).toBeCloseTo(squash(4), 4);
    // The default scorer is unaffected.
    expect(score('Another outage today.').label).toBe('negative');
  });
});

describe('range and thresholds', () => {
  it('stays finite and within [-1, 1] on extreme and odd input', () => {
    const texts = [
      'terrible awful horrible unacceptable outage broken frustrated '.repeat(5000),
      'thrilled fantastic amazing outstanding brilliant '.repeat(5000),
      '\u0000\uFFFF\uD800 \u202E not not not no never',
      Array.from({ length: 2000 }, (_, i) => String.fromCharCode((i * 7919) % 0x3000)).join(''),
    ];
    for (const t of texts) {
      const r = score(t);
      expect(Number.isFinite(r.score)).toBe(true);
      expect(r.score).toBeGreaterThanOrEqual(-1);
      expect(r.score).toBeLessThanOrEqual(1);
      expect(r.label).toBe(labelFor(r.score));
    }
    expect(score(texts[0] as string).score).toBeLessThan(-0.99);
    expect(score(texts[1] as string).score).toBeGreaterThan(0.99);
  });

  it('labels at the documented thresholds (±0.2, inclusive)', () => {
    expect(SENTIMENT_THRESHOLDS).toEqual({ positive: 0.2, negative: -0.2 });
    expect(labelFor(0.2)).toBe('positive');
    expect(labelFor(0.1999)).toBe('neutral');
    expect(labelFor(0)).toBe('neutral');
    expect(labelFor(-0.1999)).toBe('neutral');
    expect(labelFor(-0.2)).toBe('negative');
  });

  it('custom thresholds change the label, not the score', () => {
    const strict = createSentimentScorer({ thresholds: { positive: 0.3, negative: -0.3 } });
    expect(strict.score('We never had an issue.')).toEqual({ label: 'neutral', score: score('We never had an issue.').score });
  });

  it('rejects thresholds that cannot be ordered', () => {
    for (const thresholds of [
      { positive: -0.1, negative: -0.2 },
      { positive: 0.2, negative: 0.1 },
      { positive: 1.5, negative: -0.2 },
      { positive: Number.NaN, negative: -0.2 },
    ]) {
      let caught: unknown;
      try {
        createSentimentScorer({ thresholds });
      } catch (err) {
        caught = err;
      }
      expect(isChsError(caught, 'INVALID_INPUT')).toBe(true);
    }
  });

  it('is pure: the same text gives the same result, whatever came before', () => {
    const first = score('The sync is still not working and we are frustrated.');
    score('We are thrilled with the renewal.');
    expect(score('The sync is still not working and we are frustrated.')).toEqual(first);
  });
});

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { isChsError } from '../errors.js';
import type { SentimentLabel, SentimentScorer } from '../interfaces.js';
import { createAfinnBaselineScorer, evaluateSentiment, parseLabelledJsonl, type LabelledText } from './evaluate.js';
import { createSentimentScorer } from './sentiment.js';

const fixture = (name: string): LabelledText[] =>
  parseLabelledJsonl(readFileSync(fileURLToPath(new URL(`../../../../fixtures/sentiment/${name}`, import.meta.url)), 'utf8'));

describe('evaluateSentiment', () => {
  it('computes accuracy and per-label precision / recall (hand-worked)', () => {
    // A fake scorer that reads the answer from the text.
    const fake: SentimentScorer = { score: (text) => ({ label: text as SentimentLabel, score: 0 }) };
    const examples: LabelledText[] = [
      { text: 'positive', label: 'positive' }, // right
      { text: 'positive', label: 'neutral' }, // wrong
      { text: 'neutral', label: 'neutral' }, // right
      { text: 'negative', label: 'negative' }, // right
      { text: 'neutral', label: 'negative' }, // wrong
    ];
    const e = evaluateSentiment(fake, examples);
    expect(e.total).toBe(5);
    expect(e.correct).toBe(3);
    expect(e.accuracy).toBeCloseTo(0.6, 10);
    // positive: predicted twice, right once; one true positive, found.
    expect(e.perLabel.positive).toEqual({ support: 1, precision: 0.5, recall: 1 });
    // neutral: predicted twice, right once; two true neutrals, one found.
    expect(e.perLabel.neutral).toEqual({ support: 2, precision: 0.5, recall: 0.5 });
    // negative: predicted once, right; two true negatives, one found.
    expect(e.perLabel.negative).toEqual({ support: 2, precision: 1, recall: 0.5 });
    expect(e.confusion.negative).toEqual({ positive: 0, neutral: 1, negative: 1 });
    expect(e.errors.map((x) => [x.label, x.predicted])).toEqual([
      ['neutral', 'positive'],
      ['negative', 'neutral'],
    ]);
  });

  it('an empty set has accuracy 0 and no division by zero', () => {
    const e = evaluateSentiment(createSentimentScorer(), []);
    expect(e.accuracy).toBe(0);
    expect(e.perLabel.positive).toEqual({ support: 0, precision: 0, recall: 0 });
  });
});

describe('parseLabelledJsonl', () => {
  it('reads lines, skipping blank ones', () => {
    expect(parseLabelledJsonl('{"text":"a","label":"positive"}\n\n{"text":"b","label":"negative"}\r\n')).toEqual([
      { text: 'a', label: 'positive' },
      { text: 'b', label: 'negative' },
    ]);
  });

  it.each(['not json', '{"text":"a","label":"happy"}', '{"label":"neutral"}'])('rejects %j with INVALID_INPUT', (line) => {
    let caught: unknown;
    try {
      parseLabelledJsonl(line);
    } catch (err) {
      caught = err;
    }
    expect(isChsError(caught, 'INVALID_INPUT')).toBe(true);
  });
});

describe('the labelled business-email sets', () => {
  const dev = fixture('labelled.jsonl');
  const holdout = fixture('holdout.jsonl');
  const ours = createSentimentScorer();
  const baselines = [createAfinnBaselineScorer('sign'), createAfinnBaselineScorer('comparative')];

  it('are large enough and balanced across labels', () => {
    expect(dev.length).toBeGreaterThanOrEqual(200);
    expect(holdout.length).toBeGreaterThanOrEqual(60);
    for (const set of [dev, holdout]) {
      for (const label of ['positive', 'neutral', 'negative'] as const) {
        const share = set.filter((x) => x.label === label).length / set.length;
        expect(share).toBeGreaterThan(0.3);
      }
    }
    expect(new Set(dev.map((x) => x.text)).size).toBe(dev.length);
  });

  // The lexicon was tuned on the dev set and never on the held-out one; both minimums sit a few
  // points under the measured figures (see docs/sentiment.md) so that a small lexicon change does
  // not trip them, while a real regression does.
  it('our scorer reaches 93% on the dev set and 85% on the held-out set', () => {
    expect(evaluateSentiment(ours, dev).accuracy).toBeGreaterThanOrEqual(0.93);
    expect(evaluateSentiment(ours, holdout).accuracy).toBeGreaterThanOrEqual(0.85);
  });

  it('beats plain AFINN (raw-score sign, and comparative with the same thresholds) by 15 points on both sets', () => {
    for (const set of [dev, holdout]) {
      const mine = evaluateSentiment(ours, set).accuracy;
      for (const baseline of baselines) {
        expect(mine - evaluateSentiment(baseline, set).accuracy).toBeGreaterThanOrEqual(0.15);
      }
    }
  });

  it('finds most complaints: negative recall of at least 85% on both sets', () => {
    for (const set of [dev, holdout]) {
      expect(evaluateSentiment(ours, set).perLabel.negative.recall).toBeGreaterThanOrEqual(0.85);
    }
  });
});

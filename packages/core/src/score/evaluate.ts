/**
 * Measures a sentiment scorer against a labelled set (fixtures/sentiment/*.jsonl), and the plain
 * AFINN baseline it is compared with.
 */
import { createRequire } from 'node:module';
import { ChsError } from '../errors.js';
import type { SentimentLabel, SentimentScorer } from '../interfaces.js';
import { SENTIMENT_THRESHOLDS, labelFor } from './sentiment.js';

export interface LabelledText {
  text: string;
  label: SentimentLabel;
}

export interface LabelStats {
  /** Examples with this true label. */
  support: number;
  /** Of those predicted as this label, the share that truly are (0 when none predicted). */
  precision: number;
  /** Of those truly this label, the share predicted as it (0 when support is 0). */
  recall: number;
}

export interface SentimentEvaluation {
  total: number;
  correct: number;
  /** correct / total (0 for an empty set). */
  accuracy: number;
  perLabel: Record<SentimentLabel, LabelStats>;
  /** confusion[truth][predicted] = count. */
  confusion: Record<SentimentLabel, Record<SentimentLabel, number>>;
  /** The examples the scorer got wrong, with what it said. */
  errors: { text: string; label: SentimentLabel; predicted: SentimentLabel; score: number }[];
}

const LABELS: readonly SentimentLabel[] = ['positive', 'neutral', 'negative'];

function isLabel(v: unknown): v is SentimentLabel {
  return typeof v === 'string' && (LABELS as readonly string[]).includes(v);
}

/** Parses `{"text","label"}` JSON lines; blank lines are skipped, a bad line throws INVALID_INPUT. */
export function parseLabelledJsonl(content: string): LabelledText[] {
  const out: LabelledText[] = [];
  const lines = content.split(/\r?\n/);
  lines.forEach((line, i) => {
    if (line.trim() === '') return;
    let row: unknown;
    try {
      row = JSON.parse(line);
    } catch (cause) {
      throw new ChsError('INVALID_INPUT', `labelled set line ${i + 1}: not JSON`, { cause });
    }
    const r = row as { text?: unknown; label?: unknown };
    if (typeof r.text !== 'string' || !isLabel(r.label)) {
      throw new ChsError('INVALID_INPUT', `labelled set line ${i + 1}: needs a string "text" and a "label" of positive|neutral|negative`);
    }
    out.push({ text: r.text, label: r.label });
  });
  return out;
}

/** Accuracy and per-label precision / recall of `scorer` over `examples`. */
export function evaluateSentiment(scorer: SentimentScorer, examples: readonly LabelledText[]): SentimentEvaluation {
  const zero = (): Record<SentimentLabel, number> => ({ positive: 0, neutral: 0, negative: 0 });
  const confusion: Record<SentimentLabel, Record<SentimentLabel, number>> = { positive: zero(), neutral: zero(), negative: zero() };
  const errors: SentimentEvaluation['errors'] = [];
  let correct = 0;
  for (const ex of examples) {
    const { label, score } = scorer.score(ex.text);
    confusion[ex.label][label]++;
    if (label === ex.label) correct++;
    else errors.push({ text: ex.text, label: ex.label, predicted: label, score });
  }
  const stats = (l: SentimentLabel): LabelStats => {
    const tp = confusion[l][l];
    const support = LABELS.reduce((n, p) => n + confusion[l][p], 0);
    const predicted = LABELS.reduce((n, t) => n + confusion[t][l], 0);
    return { support, precision: predicted === 0 ? 0 : tp / predicted, recall: support === 0 ? 0 : tp / support };
  };
  return {
    total: examples.length,
    correct,
    accuracy: examples.length === 0 ? 0 : correct / examples.length,
    perLabel: { positive: stats('positive'), neutral: stats('neutral'), negative: stats('negative') },
    confusion,
    errors,
  };
}

interface AfinnAnalyzer {
  analyze(text: string): { score: number; comparative: number };
}

/**
 * Plain AFINN as the `sentiment` package gives it, the baseline the default scorer must beat.
 * `sign`: the label is the sign of the raw score (positive > 0, negative < 0), the package's own
 * reading. `comparative`: the package's comparative score (sum / tokens) squashed like ours
 * (x / sqrt(x² + 0.01) keeps its sign and maps one ±1 hit among ten tokens to ±0.71) and labelled
 * with SENTIMENT_THRESHOLDS.
 */
export function createAfinnBaselineScorer(mode: 'sign' | 'comparative' = 'sign'): SentimentScorer {
  const require = createRequire(import.meta.url);
  const Sentiment = require('sentiment') as new () => AfinnAnalyzer;
  const analyzer = new Sentiment();
  return {
    score(text) {
      const r = analyzer.analyze(text);
      if (mode === 'sign') {
        const score = Math.max(-1, Math.min(1, r.score / 5));
        return { label: r.score > 0 ? 'positive' : r.score < 0 ? 'negative' : 'neutral', score };
      }
      const score = r.comparative / Math.sqrt(r.comparative * r.comparative + 0.01);
      return { label: labelFor(score, SENTIMENT_THRESHOLDS), score };
    },
  };
}

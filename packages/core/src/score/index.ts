export { createSentimentScorer, SENTIMENT_THRESHOLDS, type SentimentScorerOptions } from './sentiment.js';
export { evaluateSentiment, parseLabelledJsonl, createAfinnBaselineScorer, type LabelledText, type LabelStats, type SentimentEvaluation } from './evaluate.js';
export { detectSignals, SIGNAL_BITS, type TextSignals } from './signals.js';

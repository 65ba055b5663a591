/**
 * Response schemas of GET /metrics/* and GET /ingest/email-stats, tied to the core functions
 * that compute the answers.
 */
import { Type, type Static } from '@sinclair/typebox';
import type { emailEngagement, getSummary, healthTrend, ingestEmailStats, interactionMix, runBacktest, scoreDeltas, sentimentTrendSeries } from '@chs/core';
import { assertSame, Count, Day, Timestamp, type Returned } from './common.js';

const Score = Type.Number({ minimum: 0, maximum: 100 });
const Money = Type.Number({ minimum: 0 });
const Fraction = Type.Number({ minimum: 0, maximum: 1 });

export const SummarySchema = Type.Object(
  {
    totals: Type.Object({ clients: Count, contacts: Count, interactionsWindow: Count, renewals30d: Count, openTasks: Count }),
    revenue: Type.Object({ mrrTotal: Money, mrrAtRisk: Money, renewals30dValue: Money, avgClientValue: Money }),
    health: Type.Object({
      avgScore: Score,
      change7: Type.Number({ description: 'Change of the average score over the window, in points' }),
      change7Pct: Type.Number({ description: 'The same change in percent of the earlier average' }),
      threshold: Score,
      atRiskCount: Count,
      improvingCount: Count,
      churnCalibration: Type.Object(
        {
          available: Type.Boolean(),
          model: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()], {
            description: 'The learned model whose scores are calibrated; null for the hand-written weights',
          }),
          horizonDays: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()]),
          outcomes: Type.Union([Count, Type.Null()], { description: 'Renewal outcomes the calibration was fitted on' }),
          text: Type.String({ description: 'What the churn probability is, or why there is none' }),
        },
        { description: 'Engine extension: the churn calibration the topRisks probabilities rest on (chs health learn fits it), or why there is none' },
      ),
    }),
    lists: Type.Object({
      topRisks: Type.Array(
        Type.Object({
          clientId: Type.String(),
          name: Type.String(),
          score: Score,
          mrr: Money,
          reason: Type.String(),
          reasonCode: Type.String(),
          churnProbability: Type.Union([Fraction, Type.Null()], {
            description:
              'Engine extension: the calibrated chance this client churns at a renewal health.churnCalibration.horizonDays later; null without a calibration',
          }),
        }),
      ),
      topImproving: Type.Array(Type.Object({ clientId: Type.String(), name: Type.String(), score: Score, scoreChange: Type.Number(), mrr: Money })),
      renewals: Type.Array(Type.Object({ clientId: Type.String(), name: Type.String(), renewalDate: Day, mrr: Money, daysUntil: Type.Integer() })),
    }),
    windowDays: Type.Integer({ minimum: 1 }),
    asOf: Timestamp,
  },
  {
    examples: [
      {
        totals: { clients: 42, contacts: 310, interactionsWindow: 655, renewals30d: 3, openTasks: 0 },
        revenue: { mrrTotal: 126000, mrrAtRisk: 18400, renewals30dValue: 9600, avgClientValue: 3000 },
        health: {
          avgScore: 67.2,
          change7: -1.4,
          change7Pct: -2.04,
          threshold: 40,
          atRiskCount: 5,
          improvingCount: 7,
          churnCalibration: {
            available: true,
            model: null,
            horizonDays: 60,
            outcomes: 180,
            text: 'Churn probability: the chance a client with this score churns at a renewal 60 days later, fitted on 180 renewals (2025-01-14 to 2026-11-02) scored by the hand-written weights.',
          },
        },
        lists: {
          topRisks: [
            {
              clientId: 'cli_01HZX4V9K2M8Q7',
              name: 'Globex',
              score: 38.5,
              mrr: 4200,
              reason: 'Stated an intent to leave on 2026-11-20.',
              reasonCode: 'churn_intent',
              churnProbability: 0.41,
            },
          ],
          topImproving: [{ clientId: 'cli_01HZX4VA0B3N6R', name: 'Initech', score: 81, scoreChange: 9.5, mrr: 2500 }],
          renewals: [{ clientId: 'cli_01HZX4V9K2M8Q7', name: 'Globex', renewalDate: '2026-12-15', mrr: 4200, daysUntil: 20 }],
        },
        windowDays: 7,
        asOf: '2026-11-25T12:00:00.000Z',
      },
    ],
  },
);

export const HealthTrendSchema = Type.Array(
  Type.Object({
    date: Day,
    avgScore: Score,
    clientCount: Count,
  }),
  { description: "Buckets from oldest to newest; a bucket's date is its first day" },
);

export const SentimentTrendSchema = Type.Array(
  Type.Object({
    date: Day,
    avgSentiment: Type.Number({ minimum: 0, maximum: 1, description: 'Mean sentiment mapped to [0, 1]; 0.5 is neutral' }),
    volume: Count,
    positive: Count,
    neutral: Count,
    negative: Count,
  }),
);

export const InteractionMixSchema = Type.Array(
  Type.Object({
    source: Type.String({ description: 'The interaction type (email, meeting, call, note, support_ticket, …)' }),
    count: Count,
    percentage: Type.Number({ minimum: 0, maximum: 100, description: 'One decimal; the items sum to exactly 100' }),
  }),
);

export const DeltasSchema = Type.Array(
  Type.Object({
    reason: Type.String(),
    totalDelta: Type.Number(),
    count: Count,
    avgDelta: Type.Number(),
    clients: Type.Array(Type.Object({ id: Type.String(), name: Type.String(), delta: Type.Number(), currentScore: Score, previousScore: Score })),
  }),
);

const EngagedClient = Type.Object({
  clientId: Type.String(),
  name: Type.String(),
  openRate: Fraction,
  responseRate: Fraction,
  emailCount: Count,
});

export const EmailEngagementSchema = Type.Object({
  avgOpenRate: Fraction,
  avgResponseRate: Fraction,
  totalEmailsSent: Count,
  totalEmailsReceived: Count,
  totalClients: Count,
  topEngaged: Type.Array(EngagedClient),
  leastEngaged: Type.Array(EngagedClient),
  openTrackingEnabled: Type.Boolean({ description: 'Extension: whether any outbound e-mail in the window carried open tracking' }),
  note: Type.String({ description: 'Extension: what the open rate means here' }),
  windowDays: Type.Integer({ minimum: 1 }),
});

export const IngestEmailStatsSchema = Type.Object({
  windowDays: Type.Integer({ minimum: 1 }),
  emailsProcessed: Count,
  emailsInbound: Count,
  emailsOutbound: Count,
  openTrackingEnabled: Type.Boolean(),
  openRate: Fraction,
  responseRate: Fraction,
  avgSentimentScore: Type.Number({ minimum: 0, maximum: 1, description: 'Mean e-mail sentiment mapped to [0, 1]; 0.5 (neutral) without e-mails' }),
  topClients: Type.Array(
    Type.Object({
      clientId: Type.String(),
      clientName: Type.String(),
      emailCount: Count,
      avgSentiment: Type.Number({ minimum: 0, maximum: 1 }),
      openRate: Fraction,
    }),
  ),
  processingErrors: Type.Object({ parseErrors: Count, attachmentErrors: Count, sentimentErrors: Count, charsetErrors: Count }),
  note: Type.String(),
});

assertSame<Returned<typeof getSummary>, Static<typeof SummarySchema>>(true);
assertSame<Returned<typeof healthTrend>, Static<typeof HealthTrendSchema>>(true);
assertSame<Returned<typeof sentimentTrendSeries>, Static<typeof SentimentTrendSchema>>(true);
assertSame<Returned<typeof interactionMix>, Static<typeof InteractionMixSchema>>(true);
assertSame<Returned<typeof scoreDeltas>, Static<typeof DeltasSchema>>(true);
assertSame<Returned<typeof emailEngagement>, Static<typeof EmailEngagementSchema>>(true);
assertSame<Returned<typeof ingestEmailStats>, Static<typeof IngestEmailStatsSchema>>(true);

const NullableFraction = Type.Union([Fraction, Type.Null()]);
const BacktestHorizonProperties = {
  days: Type.Integer({ minimum: 1, maximum: 365, description: 'Days before each outcome its score was read' }),
  outcomes: Type.Integer({ minimum: 0, description: 'Outcomes with a stored score that many days before them' }),
  churned: Count,
  downgraded: Count,
  renewed: Count,
  withoutHistory: Type.Integer({ minimum: 0, description: 'Outcomes without a score then (left out)' }),
  auc: Type.Union([Fraction, Type.Null()], { description: 'ROC AUC: the chance a churning client scored lower than a kept one; null without both' }),
  flagged: Type.Integer({ minimum: 0, description: 'Outcomes whose client was at risk then' }),
  precision: Type.Union([Fraction, Type.Null()], { description: 'Of the flagged, the share that churned' }),
  recall: Type.Union([Fraction, Type.Null()], { description: 'Of the churns, the share flagged' }),
  liftTopDecile: Type.Union([Type.Number({ minimum: 0 }), Type.Null()], { description: 'Churn rate of the riskiest tenth over that of all' }),
  brier: Type.Union([Fraction, Type.Null()], {
    description: 'Brier score of the churn probability calibrated on the score (out of fold): 0 perfect, 0.25 a coin',
  }),
  reliability: Type.Array(Type.Object({ from: Fraction, to: Fraction, outcomes: Count, predicted: NullableFraction, observed: NullableFraction }), {
    description: 'Probability bins: the mean probability given and the share that churned',
  }),
  roc: Type.Array(Type.Object({ fpr: Fraction, tpr: Fraction }), { description: 'The ROC curve, from (0,0) to (1,1)' }),
};
const BacktestHorizonSchema = Type.Object(BacktestHorizonProperties);

export const BacktestSchema = Type.Object(
  {
    ...BacktestHorizonProperties,
    threshold: Score,
    leadTimeDaysMedian: Type.Union([Type.Number({ minimum: 0 }), Type.Null()], {
      description: 'Median of the days each churned client had been at risk without a break before it churned',
    }),
    churnsRedAtLeast45Days: Count,
    churns: Type.Array(
      Type.Object({
        clientId: Type.String(),
        date: Day,
        scoreBefore: Type.Union([Score, Type.Null()]),
        signalsBefore: Type.Array(Type.String(), {
          description:
            'The risk signals that held `days` before (churn_intent, escalation, unanswered, gone_quiet, slow_replies, negative_tone), most severe first',
        }),
        leadTimeDays: Type.Integer({ minimum: 0 }),
      }),
    ),
    horizons: Type.Array(BacktestHorizonSchema, { description: 'The same figures 30, 60 and 90 days before (and at `days`)' }),
    summary: Type.String({ description: 'What it says, in words' }),
  },
  { description: 'Extension (not in the spec): how well the stored score history foresaw the recorded renewal outcomes' },
);

assertSame<Returned<typeof runBacktest>, Static<typeof BacktestSchema>>(true);

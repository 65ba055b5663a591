/**
 * Response schemas of the learned health model endpoints (routes/health-models.ts: GET and POST
 * /health/models, POST /health/models/{version}/apply, POST /health/models/revert), an extension
 * not in the spec, tied to the core's types (health/models.ts, metrics/learn.ts).
 */
import { Type, type Static } from '@sinclair/typebox';
import { MODEL_STATUSES, type HealthModelView, type LearnResult } from '@chs/core';
import { assertSame, Count, Day, Nullable, Timestamp } from './common.js';

const Weight = Type.Number({ minimum: 0, maximum: 1 });
const Auc = Nullable(Type.Number({ minimum: 0, maximum: 1 }));

const WeightsSchema = Type.Object(
  { sentiment: Weight, engagement: Weight, responsiveness: Weight, recency: Weight },
  { description: 'The share of each component in the score (0-1; they sum to about 1)' },
);

const CalibrationSchema = Nullable(
  Type.Object(
    { a: Type.Number(), b: Type.Number() },
    { description: 'Churn probability from a score: 1 / (1 + e^-(a + b · (100 − score) / 100)); null when the renewals were all of one kind' },
  ),
);

const modelExample = {
  version: 2,
  status: 'offered',
  createdAt: '2025-06-30T09:00:00.000Z',
  appliedAt: null,
  previousVersion: null,
  horizonDays: 60,
  outcomes: 142,
  churned: 23,
  from: '2024-07-02',
  to: '2025-06-27',
  weights: { sentiment: 0.22, engagement: 0.18, responsiveness: 0.2, recency: 0.4 },
  intercept: -1.8423,
  coefficients: {
    sentiment: -0.9,
    engagement: -0.74,
    responsiveness: -0.82,
    recency: -1.63,
    churn_intent: 1.21,
    escalation: 0.64,
    unanswered: 0.38,
    gone_quiet: 0.52,
    slow_replies: 0.17,
    negative_tone: 0.29,
  },
  lambda: 1,
  heldOut: { outcomes: 113, churned: 19, folds: 4, aucLearned: 0.8112, aucDefault: 0.7634 },
  calibration: { a: -3.1, b: 4.6 },
  baseline: { weights: { sentiment: 0.25, engagement: 0.25, responsiveness: 0.25, recency: 0.25 }, calibration: { a: -3.0, b: 4.2 } },
};

const HealthModelSchema = Type.Object(
  {
    version: Type.Integer({ minimum: 1, description: 'The model number in the workspace (1, 2, …); what apply takes' }),
    status: Type.Union(
      MODEL_STATUSES.map((s) => Type.Literal(s)),
      {
        description:
          '`offered`: it beat the hand-written weights on later renewals and may be applied; `rejected`: it did not (kept for the record, cannot be applied); ' +
          '`active`: in use; `retired`: was in use (may be applied again)',
      },
    ),
    createdAt: Timestamp,
    appliedAt: Nullable(Timestamp),
    previousVersion: Nullable(Type.Integer({ minimum: 1, description: 'The learned model in use when this one was applied; null: the hand-written weights' })),
    horizonDays: Type.Integer({ minimum: 1, maximum: 365, description: 'Days before each renewal the scores were read' }),
    outcomes: Type.Integer({ minimum: 0, description: 'Renewals it learned from (with a score `horizonDays` before)' }),
    churned: Type.Integer({ minimum: 0, description: 'Churns among them' }),
    from: Day,
    to: Day,
    weights: WeightsSchema,
    intercept: Type.Number({ description: 'Intercept of the logistic model the weights come from' }),
    coefficients: Type.Record(Type.String(), Type.Number(), {
      description: 'Coefficient of each feature: the four components (per 100 points) and the risk signals (0/1); negative lowers the churn odds',
    }),
    lambda: Type.Number({ minimum: 0, description: 'Ridge penalty of the fit' }),
    heldOut: Type.Object(
      {
        outcomes: Count,
        churned: Count,
        folds: Count,
        aucLearned: Auc,
        aucDefault: Auc,
      },
      {
        description:
          'Cross-validation by time: each later block of renewals scored by weights fitted on the earlier ones only (aucLearned) and by the hand-written weights (aucDefault)',
      },
    ),
    calibration: CalibrationSchema,
    baseline: Type.Object(
      { weights: WeightsSchema, calibration: CalibrationSchema },
      { description: 'The hand-written weights on the same renewals, and their calibration' },
    ),
  },
  { description: 'Extension (not in the spec): health weights learned from the renewal outcomes', examples: [modelExample] },
);

export const HealthModelListSchema = Type.Object(
  {
    active: Nullable(Type.Integer({ minimum: 1, description: 'The version in use; null: the hand-written weights score' })),
    models: Type.Array(HealthModelSchema, { description: 'Every model learned, newest first' }),
  },
  { description: 'Extension (not in the spec): the learned health models of the workspace', examples: [{ active: null, models: [modelExample] }] },
);

export const LearnedHealthModelSchema = Type.Object(
  {
    model: HealthModelSchema,
    summary: Type.String({ description: 'What the fit found and whether it is offered, in words' }),
  },
  { description: 'Extension (not in the spec): the model a fit stored, offered or rejected' },
);

const clientsRescored = Type.Integer({ minimum: 0, description: 'Clients whose score from today was rebuilt with the model now in use' });

export const AppliedHealthModelSchema = Type.Object(
  { model: HealthModelSchema, clientsRescored },
  { description: 'Extension (not in the spec): the model now in use' },
);

export const RevertedHealthModelSchema = Type.Object(
  {
    model: Type.Union([HealthModelSchema, Type.Null()], { description: 'The learned model in use again; null: the hand-written weights' }),
    clientsRescored,
  },
  { description: 'Extension (not in the spec): the model in use after going back one step' },
);

assertSame<HealthModelView, Static<typeof HealthModelSchema>>(true);
assertSame<{ active: number | null; models: HealthModelView[] }, Static<typeof HealthModelListSchema>>(true);
assertSame<LearnResult, Static<typeof LearnedHealthModelSchema>>(true);
assertSame<{ model: HealthModelView; clientsRescored: number }, Static<typeof AppliedHealthModelSchema>>(true);
assertSame<{ model: HealthModelView | null; clientsRescored: number }, Static<typeof RevertedHealthModelSchema>>(true);

/**
 * Response schemas of the client outcome endpoints (routes/outcomes.ts: POST and GET
 * /clients/{clientId}/outcomes), an extension not in the spec, tied to the core's types.
 */
import { Type, type Static } from '@sinclair/typebox';
import { OUTCOME_SOURCES, OUTCOMES, type listClientOutcomes, type recordOutcome } from '@chs/core';
import { assertSame, Nullable, Timestamp, type Returned } from './common.js';

export const OutcomeKindSchema = Type.Union(
  OUTCOMES.map((o) => Type.Literal(o)),
  { description: 'How the renewal ended: `renewed`, `churned` or `downgraded` (with the MRR before and after)' },
);

const outcomeExample = {
  id: 'out_01HZX6C2D4E8F0',
  clientId: 'cli_01HZX4V9K2M8Q7',
  date: '2026-11-15',
  outcome: 'downgraded',
  mrrBefore: 4200,
  mrrAfter: 2500,
  source: 'api',
  createdAt: '2026-11-16T09:12:00.000Z',
  updatedAt: '2026-11-16T09:12:00.000Z',
};

export const OutcomeSchema = Type.Object(
  {
    id: Type.String({ description: 'The outcome id (`out_…`)' }),
    clientId: Type.String(),
    date: Type.String({ format: 'date', description: 'The day the renewal was decided; one outcome per client and day' }),
    outcome: OutcomeKindSchema,
    mrrBefore: Nullable(Type.Number({ minimum: 0, description: 'MRR before the renewal (always given for a downgrade)' })),
    mrrAfter: Nullable(Type.Number({ minimum: 0, description: 'MRR after it (always given for a downgrade, and below mrrBefore)' })),
    source: Type.Union(
      OUTCOME_SOURCES.map((s) => Type.Literal(s)),
      { description: 'Where it was recorded: `csv` (chs outcomes import), `api` (this API) or `hubspot`' },
    ),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { description: 'Extension (not in the spec): how the renewal of a client ended', examples: [outcomeExample] },
);

export const OutcomeListSchema = Type.Object(
  { outcomes: Type.Array(OutcomeSchema, { description: 'The outcomes of the client, oldest first' }) },
  { description: 'Extension (not in the spec): the renewal outcomes of a client', examples: [{ outcomes: [outcomeExample] }] },
);

assertSame<Returned<typeof recordOutcome>['outcome'], Static<typeof OutcomeSchema>>(true);
assertSame<{ outcomes: Returned<typeof listClientOutcomes> }, Static<typeof OutcomeListSchema>>(true);

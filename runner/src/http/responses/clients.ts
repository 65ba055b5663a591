/**
 * Response schemas of the client endpoints (GET /clients, /clients/last-interactions,
 * /clients/{clientId}, /clients/{clientId}/interactions, PATCH /clients/{clientId}), tied to the
 * core's types. Those reads are sent as JSON text from the read cache, so these schemas document
 * and test the answer; they never re-serialise it.
 */
import { Type, type Static } from '@sinclair/typebox';
import type {
  getClientHealthHistory,
  InteractionView,
  lastInteractions,
  listClientInteractions,
  listClients,
  Pagination,
  readClientDetails,
  toClientView,
} from '@chs/core';
import { assertSame, Count, Day, Nullable, PaginationSchema, Timestamp, type Returned } from './common.js';

const clientExample = {
  id: 'cli_01HZX4V9K2M8Q7',
  name: 'Globex',
  domain: 'globex.com',
  sentimentScore: 38.5,
  lastInteraction: '2026-11-20T14:03:00.000Z',
  mrr: 4200,
  renewalDate: '2026-12-15',
  csmOwner: 'ana@acme.com',
  isExcluded: false,
  createdAt: '2026-01-10T09:00:00.000Z',
  updatedAt: '2026-11-20T14:05:12.000Z',
};

export const ClientSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  domain: Type.String(),
  sentimentScore: Type.Number({ minimum: 0, maximum: 100, description: 'The health score, 0-100 (50 until first computed)' }),
  lastInteraction: Nullable(Timestamp),
  mrr: Nullable(Type.Number({ minimum: 0 })),
  renewalDate: Nullable(Day),
  csmOwner: Nullable(Type.String({ description: "The account manager's e-mail address" })),
  isExcluded: Type.Boolean({ description: 'Excluded clients are left out of every metric' }),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const ClientListSchema = Type.Array(ClientSchema, { description: 'Every client, excluded ones too, by name', examples: [[clientExample]] });

export const LastInteractionsSchema = Type.Record(Type.String(), Nullable(Timestamp), {
  description: 'Client id → its last interaction (null when none)',
  examples: [{ cli_01HZX4V9K2M8Q7: '2026-11-20T14:03:00.000Z', cli_01HZX4VA0B3N6R: null }],
});

export const ClientDetailsSchema = Type.Object(
  {
    client: ClientSchema,
    metrics: Type.Object({
      totalInteractions: Count,
      avgResponseTime: Nullable(Type.Number({ minimum: 0, description: 'Mean hours of our reply to their message in a thread; null when we never replied' })),
      lastMonthInteractions: Count,
      sentimentTrend: Type.Union([Type.Literal('improving'), Type.Literal('stable'), Type.Literal('declining')]),
    }),
    contacts: Type.Array(Type.Object({ email: Type.String(), name: Type.String(), title: Type.String(), lastSeen: Nullable(Timestamp) })),
    health: Type.Object(
      {
        score: Type.Number({ minimum: 0, maximum: 100 }),
        date: Nullable(Day),
        confidence: Nullable(Type.Number({ minimum: 0, maximum: 1 })),
        reason: Type.String(),
        reasonCode: Type.String(),
        risks: Type.Array(Type.Object({ code: Type.String(), text: Type.String(), interactionIds: Type.Array(Type.String()) }), {
          description: 'Every risk signal that holds, most severe first, with the interactions that show it',
        }),
      },
      { description: 'Extension: why the score is where it is, from the latest snapshot' },
    ),
  },
  {
    examples: [
      {
        client: clientExample,
        metrics: { totalInteractions: 182, avgResponseTime: 26.4, lastMonthInteractions: 14, sentimentTrend: 'declining' },
        contacts: [{ email: 'hank@globex.com', name: 'Hank Scorpio', title: 'CEO', lastSeen: '2026-11-20T14:03:00.000Z' }],
        health: {
          score: 38.5,
          date: '2026-11-25',
          confidence: 0.9,
          reason: 'Stated an intent to leave on 2026-11-20.',
          reasonCode: 'churn_intent',
          risks: [{ code: 'churn_intent', text: 'Stated an intent to leave on 2026-11-20.', interactionIds: ['int_01HZX5B7'] }],
        },
      },
    ],
  },
);

const InteractionSchema = Type.Object({
  id: Type.String(),
  type: Type.String({ description: 'email, meeting, call, note, support_ticket, …' }),
  subject: Type.String(),
  sentiment: Type.String({ description: 'positive, neutral or negative' }),
  date: Timestamp,
  from: Type.String(),
  to: Type.String(),
  summary: Type.String(),
  sentimentScore: Type.Number({ minimum: -1, maximum: 1, description: 'Extension: the score behind `sentiment`' }),
  direction: Type.String({ description: 'Extension: inbound or outbound' }),
  source: Type.String({ description: 'Extension: where it came from' }),
});

export const InteractionsPageSchema = Type.Object({ interactions: Type.Array(InteractionSchema), pagination: PaginationSchema });

export const ClientHealthHistorySchema = Type.Object(
  {
    clientId: Type.String(),
    windowDays: Type.Integer({ minimum: 1, maximum: 365 }),
    days: Type.Array(
      Type.Object({
        date: Day,
        score: Type.Number({ minimum: 0, maximum: 100 }),
        confidence: Type.Number({ minimum: 0, maximum: 1 }),
        change: Nullable(Type.Number({ description: 'Since the day before; null on the first day of the history' })),
        reasonCode: Nullable(Type.String()),
        reason: Nullable(Type.String({ description: "The sentence that explains the day's move, or the risk that holds" })),
        sentiment: Nullable(Type.Number({ minimum: 0, maximum: 100, description: "The sentiment component's value that day" })),
        interactionIds: Type.Array(Type.String(), { description: "The interactions that show the day's reason" }),
        model: Type.Optional(
          Type.Integer({
            minimum: 1,
            description: 'Engine extension: the learned health model that scored the day (GET /health/models); absent when the hand-written weights did',
          }),
        ),
      }),
      { description: 'One point per day of the window that has a snapshot, oldest first' },
    ),
    components: Type.Array(
      Type.Object({
        name: Type.Union([Type.Literal('sentiment'), Type.Literal('engagement'), Type.Literal('responsiveness'), Type.Literal('recency')]),
        value: Nullable(Type.Number({ minimum: 0, maximum: 100 })),
        weight: Nullable(Type.Number({ minimum: 0, maximum: 1 })),
        contribution: Nullable(Type.Number()),
      }),
      { description: 'The components of the latest snapshot (empty before the first)' },
    ),
    evidence: Type.Array(InteractionSchema, {
      description: 'The interactions behind the current risks and the moves of at least 2 points, newest first (at most 30)',
    }),
  },
  {
    description: 'Extension: the score history with the reason of each move',
    examples: [
      {
        clientId: 'cli_01HZX4V9K2M8Q7',
        windowDays: 90,
        days: [
          {
            date: '2026-11-20',
            score: 38.5,
            confidence: 0.9,
            change: -12.5,
            reasonCode: 'churn_intent',
            reason: 'Stated an intent to leave on 2026-11-20.',
            sentiment: 31,
            interactionIds: ['int_01HZX5B7'],
          },
        ],
        components: [{ name: 'sentiment', value: 31, weight: 0.4, contribution: 12.4 }],
        evidence: [],
      },
    ],
  },
);

assertSame<ReturnType<typeof toClientView>, Static<typeof ClientSchema>>(true);
assertSame<Returned<typeof listClients>, Static<typeof ClientListSchema>>(true);
assertSame<Returned<typeof lastInteractions>, Static<typeof LastInteractionsSchema>>(true);
assertSame<Returned<typeof readClientDetails>['details'], Static<typeof ClientDetailsSchema>>(true);
assertSame<InteractionView, Static<typeof InteractionSchema>>(true);
assertSame<Pagination, Static<typeof PaginationSchema>>(true);
assertSame<Returned<typeof listClientInteractions>, Static<typeof InteractionsPageSchema>>(true);
assertSame<Returned<typeof getClientHealthHistory>, Static<typeof ClientHealthHistorySchema>>(true);

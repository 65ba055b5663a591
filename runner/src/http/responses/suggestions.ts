/**
 * Response schemas of the suggested-client endpoints (extension): GET /clients/suggested,
 * POST /clients/suggested/{domain}/accept and POST /clients/suggested/{domain}/ignore, tied to
 * the core's types.
 */
import { Type, type Static } from '@sinclair/typebox';
import type { listSuggestedClients, SuggestedClient } from '@chs/core';
import { assertSame, Count, Nullable, Timestamp, type Returned } from './common.js';
import { ClientSchema } from './clients.js';

const SuggestionStatusSchema = Type.Union([Type.Literal('suggested'), Type.Literal('ignored')]);

const SuggestedClientSchema = Type.Object({
  clientId: Type.String({ description: 'The client id it keeps when accepted' }),
  domain: Type.String(),
  name: Type.String(),
  status: SuggestionStatusSchema,
  reason: Type.String({
    description:
      'Why it is not a client: personal (conversations about no work), pitch (only sales pitches), cc_only, mass_mail, role_sender, co_recipient or policy (the workspace takes clients from the CRM only)',
  }),
  reasonText: Type.String({ description: 'The reason in plain words' }),
  messages: Count,
  messagesFrom: Type.Integer({ minimum: 0, description: 'Of the messages, those sent by someone there' }),
  people: Type.Integer({ minimum: 0, description: 'Distinct addresses there that wrote' }),
  firstAt: Nullable(Timestamp),
  lastAt: Nullable(Timestamp),
});

export const SuggestedClientListSchema = Type.Object(
  {
    suggestions: Type.Array(SuggestedClientSchema, { description: 'Most messages first, then by domain' }),
    total: Type.Integer({ minimum: 0, description: 'Suggestions with this status in all' }),
  },
  {
    description: 'Extension: domains our mail names that are not scored clients',
    'x-extension': true,
    examples: [
      {
        suggestions: [
          {
            clientId: 'cli_01HZX6C2QW8E',
            domain: 'initech.com',
            name: 'Initech',
            status: 'suggested',
            reason: 'co_recipient',
            reasonText: "only named as a co-recipient of someone else's mail",
            messages: 6,
            messagesFrom: 0,
            people: 0,
            firstAt: '2026-09-02T08:15:00.000Z',
            lastAt: '2026-11-18T16:40:00.000Z',
          },
        ],
        total: 1,
      },
    ],
  },
);

export const AcceptedSuggestionSchema = Type.Object(
  { client: ClientSchema },
  { description: 'Extension: the accepted client, scored over its whole stored history', 'x-extension': true },
);

export const IgnoredSuggestionSchema = Type.Object(
  { suggestion: Type.Object({ clientId: Type.String(), domain: Type.String(), status: Type.Literal('ignored') }) },
  { description: 'Extension: the ignored suggestion; its mail stays stored and later mail never makes it a client', 'x-extension': true },
);

assertSame<SuggestedClient, Static<typeof SuggestedClientSchema>>(true);
assertSame<Returned<typeof listSuggestedClients>, Static<typeof SuggestedClientListSchema>>(true);

/**
 * The catalogue is one source of truth: docs/events.md publishes exactly its schemas (regenerate
 * with `npm run docs:events -w @chs/core`), every type is documented in the table of when it is
 * recorded, and a payload of each type as the engine builds it passes its schema while a wrong
 * one does not.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Value } from '@sinclair/typebox/value';
import { describe, expect, it } from 'vitest';
import { EVENT_DATA, EVENT_TYPES, eventSchema, type EventType } from './catalogue.js';

const doc = readFileSync(fileURLToPath(new URL('../../../../docs/events.md', import.meta.url)), 'utf8');

describe('the event catalogue', () => {
  it('docs/events.md carries each type’s schema as generated, and says when each is recorded', () => {
    const types = Object.keys(EVENT_DATA) as EventType[];
    for (const t of types) {
      const section = doc.split(`### \`${t}\`\n`)[1];
      expect(section, `docs/events.md has no schema section for ${t}: run npm run docs:events -w @chs/core`).toBeDefined();
      const block = /```json\n([\s\S]*?)\n```/.exec(section!)?.[1];
      expect(JSON.parse(block ?? 'null'), `the schema of ${t} in docs/events.md is stale: run npm run docs:events -w @chs/core`).toEqual(
        JSON.parse(JSON.stringify(eventSchema(t))),
      );
      expect(doc).toContain(`| \`${t}\` |`);
    }
    expect(EVENT_TYPES).not.toContain('webhook.test');
    expect(EVENT_TYPES).toHaveLength(types.length - 1);
  });

  it('a payload as the engine builds it passes its schema; a renamed or missing field does not', () => {
    const payload = {
      id: 'evt_x',
      type: 'client.churn_intent',
      version: 1,
      occurredAt: '2025-03-20T00:00:00.000Z',
      workspaceId: 'ourco.com',
      data: {
        client: { id: 'cl_1', name: 'Globex', domain: 'globex.com', mrr: 4200, renewalDate: null, csmOwner: null },
        score: 30,
        text: 'We will not renew.',
        interactionIds: ['in_1'],
        lastMessageAt: '2025-03-19T10:00:00.000Z',
      },
    };
    const schema = eventSchema('client.churn_intent');
    expect(Value.Check(schema, payload)).toBe(true);
    expect(Value.Check(schema, { ...payload, data: { ...payload.data, quote: payload.data.text } })).toBe(false);
    const { text: _dropped, ...withoutText } = payload.data;
    expect(Value.Check(schema, { ...payload, data: withoutText })).toBe(false);
    expect(Value.Check(schema, { ...payload, type: 'client.escalation' })).toBe(false);
  });
});

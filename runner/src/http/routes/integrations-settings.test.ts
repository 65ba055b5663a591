import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { connectIntegration } from '@chs/core';
import { dropTestSchemas, testDialects } from '@chs/core/testing';
import { startTestApp } from '../testing.js';

/**
 * A CS lead maps the HubSpot pipeline where renewals are worked (PATCH /integrations/hubspot/settings,
 * an extension), so closed deals there become renewal outcomes, and unmaps it again.
 */
afterAll(() => dropTestSchemas());
const dialects = await testDialects();

describe.each(dialects.map((d) => [d.name, d] as const))('HubSpot settings over HTTP on %s', (_name, dialect) => {
  it('maps the renewal pipeline once HubSpot is connected, reads it back, refuses a malformed id and unmaps it', async () => {
    const t = await startTestApp({ dialect, workspace: 'ourco.com' });
    try {
      const url = `/api/integrations/hubspot/settings?workspaceId=${t.workspaceId}`;
      const patch = (json: unknown) => t.request(url, { method: 'PATCH', json });

      // The settings live with the connection: none before HubSpot is connected.
      const early = await patch({ renewalPipelineId: '31415926' });
      expect(early.status).toBe(400);
      expect(await early.json()).toMatchObject({ code: 'INTEGRATION_NOT_CONNECTED', status: 400 });
      expect((await t.request(url)).status).toBe(400);

      await connectIntegration(t.engine.store.db, randomBytes(32), {
        workspaceId: t.workspaceId,
        provider: 'hubspot',
        credentials: { accessToken: 'pat-na1-x' },
      });
      expect(await (await t.request(url)).json()).toEqual({ provider: 'hubspot', workspaceId: 'ourco.com', renewalPipelineId: null });

      const mapped = await patch({ renewalPipelineId: '31415926' });
      expect(mapped.status).toBe(200);
      expect(await mapped.json()).toEqual({ provider: 'hubspot', workspaceId: 'ourco.com', renewalPipelineId: '31415926' });
      // An empty body changes nothing.
      expect(await (await patch({})).json()).toMatchObject({ renewalPipelineId: '31415926' });

      for (const bad of [{ renewalPipelineId: 'two words' }, { renewalPipelineId: '' }, { renewalPipelineId: 7 }, { pipeline: '1' }]) {
        const r = await patch(bad);
        expect(r.status, JSON.stringify(bad)).toBe(400);
      }
      expect(await (await t.request(url)).json()).toMatchObject({ renewalPipelineId: '31415926' });

      expect(await (await patch({ renewalPipelineId: null })).json()).toMatchObject({ renewalPipelineId: null });
      expect(await (await t.request(url)).json()).toMatchObject({ renewalPipelineId: null });
    } finally {
      await t.close();
    }
  });
});

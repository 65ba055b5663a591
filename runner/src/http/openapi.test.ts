/**
 * The OpenAPI document is the whole contract: redocly's recommended rules pass with no error and
 * no warning, defaults are optional to the caller, the generated client types are current, and
 * an answer that drifts from its schema fails the test that sees it (contract-check.ts).
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { createEngine, createWorkspace } from '@chs/core';
import { buildApp } from './app.js';
import { createLogger } from './logging.js';
import { openApiDocument } from './openapi-document.js';
import { renderOpenApiTypes, TYPES_FILE } from '../../scripts/openapi-types.mjs';
import { JSON_CONTENT_TYPE } from './read-cache.js';
import { WorkspaceQuery } from './schemas.js';
import { startTestApp, testConfig } from './testing.js';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../../../', import.meta.url));
const REDOCLY = join(root, 'node_modules', '.bin', 'redocly');

interface Operation {
  operationId?: string;
  parameters?: { name: string; in: string; required?: boolean; schema?: { default?: unknown } }[];
  requestBody?: { content: Record<string, { schema: { required?: string[]; properties?: Record<string, { default?: unknown }> } }> };
  responses: Record<string, { content?: Record<string, { schema?: unknown; example?: unknown; examples?: unknown }> }>;
}
type Doc = { servers?: unknown[]; info: { license?: { name: string } }; paths: Record<string, Record<string, Operation>> };

const operations = (doc: Doc) => Object.entries(doc.paths).flatMap(([path, item]) => Object.entries(item).map(([method, op]) => ({ path, method, op })));

describe('the OpenAPI document', () => {
  it('passes redocly lint (recommended rules) with 0 errors and 0 warnings', async () => {
    // Never skipped: a missing binary fails here, in CI too (it is a root devDependency).
    expect(existsSync(REDOCLY), `${REDOCLY} is missing: run npm ci`).toBe(true);
    const dir = mkdtempSync(join(tmpdir(), 'chs-openapi-'));
    writeFileSync(join(dir, 'openapi.json'), JSON.stringify(await openApiDocument()));
    writeFileSync(join(dir, 'redocly.yaml'), 'extends:\n  - recommended\n');
    // One exemption, by pointer: the OAuth callbacks (Google's, HubSpot's) are opened by a browser
    // and their success is a 302 to CHS_PUBLIC_URL (no 2XX). Any other operation without a 2XX still fails the lint.
    const callbacks = ['google', 'hubspot'].map((p) => `    - '#/paths/~1api~1integrations~1${p}~1callback/get/responses'\n`).join('');
    writeFileSync(join(dir, '.redocly.lint-ignore.yaml'), `openapi.json:\n  operation-2xx-response:\n${callbacks}`);
    const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' };
    const result = await run(REDOCLY, ['lint', join(dir, 'openapi.json'), '--config', join(dir, 'redocly.yaml'), '--format=json'], {
      env,
      cwd: dir,
      timeout: 60_000,
    }).catch((err: { stdout?: string; stderr?: string }) => ({ stdout: err.stdout ?? '', stderr: err.stderr ?? (err instanceof Error ? err.message : '') }));
    let report: { totals: { errors: number; warnings: number }; problems: { ruleId: string; message: string; location?: { pointer?: string }[] }[] };
    try {
      report = JSON.parse(result.stdout) as typeof report;
    } catch {
      throw new Error(`redocly printed no JSON report:\n${result.stdout}\n${result.stderr}`);
    }
    const problems = report.problems.map((p) => `${p.ruleId}: ${p.message} at ${p.location?.[0]?.pointer ?? '?'}`);
    expect(problems).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
  }, 60_000);

  it('names every operation (unique operationId), documents a JSON success body for each, servers and the licence', async () => {
    const doc = (await openApiDocument()) as unknown as Doc;
    const ops = operations(doc);
    expect(ops.length).toBeGreaterThanOrEqual(32);
    const ids = ops.map((o) => o.op.operationId);
    expect(ids.every((id) => typeof id === 'string' && /^[a-z][A-Za-z]+$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    for (const { path, method, op } of ops) {
      const success = Object.entries(op.responses).filter(([code]) => code.startsWith('2'));
      // A browser's landing route (the OAuth callback) succeeds with a redirect and no body.
      const redirect = Object.entries(op.responses).some(([code, r]) => code.startsWith('3') && r.content === undefined);
      expect(success.length + (redirect ? 1 : 0), `${method} ${path}`).toBeGreaterThan(0);
      for (const [, r] of success) expect(r.content?.['application/json']?.schema, `${method} ${path}`).toBeDefined();
      // The shared error body.
      for (const range of ['4XX', '5XX']) expect(op.responses[range]?.content?.['application/json']?.schema, `${method} ${path} ${range}`).toBeDefined();
    }
    expect(doc.servers?.length).toBeGreaterThan(0);
    expect(doc.info.license?.name).toBe('MIT');
  });

  it('gives examples for the main reads: the summary, the client list and a client', async () => {
    const doc = (await openApiDocument()) as unknown as Doc;
    for (const id of ['getMetricsSummary', 'listClients', 'getClient']) {
      const op = operations(doc).find((o) => o.op.operationId === id);
      const media = op?.op.responses['200']?.content?.['application/json'];
      expect(media?.example ?? media?.examples ?? (media?.schema as { examples?: unknown } | undefined)?.examples, id).toBeDefined();
    }
  });

  it('marks no parameter or body member with a default as required (the server fills it in)', async () => {
    const doc = (await openApiDocument()) as unknown as Doc;
    const wrong: string[] = [];
    let defaults = 0;
    for (const { path, method, op } of operations(doc)) {
      for (const p of op.parameters ?? []) {
        if (p.schema?.default === undefined) continue;
        defaults += 1;
        if (p.required) wrong.push(`${method} ${path} ${p.in} ${p.name}`);
      }
      const body = op.requestBody?.content['application/json']?.schema;
      for (const [name, s] of Object.entries(body?.properties ?? {})) {
        if (s.default === undefined) continue;
        defaults += 1;
        if (body?.required?.includes(name)) wrong.push(`${method} ${path} body ${name}`);
      }
    }
    expect(wrong).toEqual([]);
    // limit/offset ×2, windowDays ×7, interval, minDelta, syncType, maxEmails, batchSize at least.
    expect(defaults).toBeGreaterThanOrEqual(15);
    const interactions = doc.paths['/api/clients/{clientId}/interactions']?.get?.parameters ?? [];
    expect(
      interactions
        .filter((p) => p.required)
        .map((p) => p.name)
        .sort(),
    ).toEqual(['clientId', 'workspaceId']);
  });

  it('has its generated client types (src/http/openapi-types.ts) up to date', async () => {
    const fresh = await renderOpenApiTypes(await openApiDocument());
    const committed = readFileSync(TYPES_FILE, 'utf8');
    // Stale: run `npm run openapi:types -w runner` (after `npm run build`) and commit the file.
    expect(committed === fresh, 'src/http/openapi-types.ts is stale: npm run build && npm run openapi:types -w runner').toBe(true);
  }, 30_000);
});

/** Routes whose answers drift from their schemas on purpose, and ones that must pass untouched. */
const drifting = (): FastifyPluginAsync => async (plain) => {
  const app = plain.withTypeProvider<TypeBoxTypeProvider>();
  const Answer = Type.Object({ name: Type.String(), count: Type.Integer() });
  const schema = { querystring: WorkspaceQuery, response: { 200: Answer } };
  app.get('/drift/extra', { schema }, async () => ({ name: 'a', count: 1, undocumented: true }));
  // JSON text, as the read cache sends it (an untyped reply, as in routes/clients.ts).
  const text = (reply: FastifyReply, body: string): FastifyReply => reply.type(JSON_CONTENT_TYPE).send(body);
  app.get('/drift/type', { schema }, async (_request, reply) => text(reply, '{"name":"a","count":"1"}'));
  app.get('/drift/ok', { schema }, async () => ({ name: 'a', count: 1 }));
  // Pre-serialised JSON text (as the read cache sends it) passes through byte for byte.
  app.get('/drift/text', { schema }, async (_request, reply) => text(reply, '{"count":2,  "name":"b"}'));
};

describe('answers checked against their response schema in every HTTP test', () => {
  it('turns an undocumented member or a wrong type into a loud 500 and fails close(); a matching answer passes untouched', async () => {
    const t = await startTestApp({ extraRoutes: [drifting] });
    let closed = false;
    try {
      const get = async (path: string) => {
        const res = await t.request(`/api/drift/${path}?workspaceId=acme.com`);
        return { status: res.status, text: await res.text() };
      };
      expect(await get('ok')).toEqual({ status: 200, text: '{"name":"a","count":1}' });
      expect(await get('text')).toEqual({ status: 200, text: '{"count":2,  "name":"b"}' });
      const extra = await get('extra');
      expect(extra.status).toBe(500);
      expect(JSON.parse(extra.text)).toMatchObject({ code: 'CONTRACT_VIOLATION', status: 500 });
      expect(extra.text).toContain('undocumented');
      const type = await get('type');
      expect(type.status).toBe(500);
      expect(type.text).toContain('/count must be integer');
      // Error answers are checked against the shared error body, and they match it.
      expect((await t.request('/api/drift/ok?workspaceId=other.com')).status).toBe(403);
      expect(t.contractViolations).toHaveLength(2);
      closed = true;
      await expect(t.close()).rejects.toThrow(/do not match the OpenAPI document:\nGET \/api\/drift\/extra → 200/);
    } finally {
      if (!closed) await t.close();
    }
  });

  it('never reshapes an answer: the serializer is JSON.stringify, whatever the response schema', async () => {
    const engine = await createEngine({ database: ':memory:' });
    const { apiKey } = await createWorkspace(engine.store.db, { domain: 'acme.com', name: 'Acme', ownerEmail: 'ana@acme.com' });
    const app = await buildApp({ engine, config: testConfig(), logger: createLogger({ level: 'silent' }), extraRoutes: [drifting] });
    try {
      const get = (path: string) => app.inject({ url: `/api/drift/${path}?workspaceId=acme.com`, headers: { authorization: `Bearer ${apiKey.key}` } });
      // fast-json-stringify would have dropped `undocumented`; the answer is the handler's object as is.
      const res = await get('extra');
      expect(res.statusCode).toBe(200);
      expect(res.body).toBe('{"name":"a","count":1,"undocumented":true}');
      expect((await get('type')).body).toBe('{"name":"a","count":"1"}');
    } finally {
      await app.close();
      await engine.close();
    }
  });
});

/**
 * Probes for load balancers and orchestrators: `GET /api/health` (liveness: the process answers)
 * and `GET /api/ready` (readiness: the database answers and is migrated, and Redis answers when
 * `CHS_REDIS_URL` is set; 503 NOT_READY otherwise). No key, not rate-limited (`config.probe`).
 */
import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { checkStoreReadiness } from '@chs/core';
import { mappingOf } from '../errors.js';
import { ErrorBodySchema } from '../schemas.js';
import type { AppDeps } from '../types.js';
import { RUNNER_VERSION } from '../../version.js';

const CheckState = Type.Union([Type.Literal('ok'), Type.Literal('failed'), Type.Literal('not_configured')]);

const HealthResponse = Type.Object({
  status: Type.Literal('ok'),
  version: Type.String({ description: 'The runner version' }),
  uptimeSeconds: Type.Number({ description: 'Seconds since this process started' }),
});

const Checks = Type.Object({
  database: CheckState,
  redis: CheckState,
});

const ReadyResponse = Type.Object({ status: Type.Literal('ready'), checks: Checks });
const NotReadyResponse = Type.Composite([ErrorBodySchema, Type.Object({ checks: Checks })]);

export const probeRoutes =
  (deps: AppDeps, rateLimitPing?: () => Promise<void>): FastifyPluginAsync =>
  async (plain) => {
    const app = plain.withTypeProvider<TypeBoxTypeProvider>();
    app.get(
      '/health',
      {
        config: { public: true, probe: true },
        schema: {
          tags: ['operations'],
          operationId: 'getHealth',
          summary: 'Liveness: the process answers (no key, not rate-limited)',
          security: [],
          response: { 200: HealthResponse },
        },
      },
      async () => ({ status: 'ok' as const, version: RUNNER_VERSION, uptimeSeconds: Math.round(process.uptime()) }),
    );
    app.get(
      '/ready',
      {
        config: { public: true, probe: true },
        schema: {
          tags: ['operations'],
          operationId: 'getReadiness',
          summary: 'Readiness: database reachable and migrated, Redis answering when configured (no key, not rate-limited)',
          security: [],
          response: { 200: ReadyResponse, 503: NotReadyResponse },
        },
      },
      async (request, reply) => {
        const [store, redis] = await Promise.all([
          checkStoreReadiness(deps.engine.store),
          rateLimitPing
            ? rateLimitPing().then(
                () => null,
                (err: unknown) => (err instanceof Error ? err.message : String(err)),
              )
            : Promise.resolve(undefined),
        ]);
        const checks = {
          database: store.ok ? ('ok' as const) : ('failed' as const),
          redis: redis === undefined ? ('not_configured' as const) : redis === null ? ('ok' as const) : ('failed' as const),
        };
        if (store.ok && checks.redis !== 'failed') return { status: 'ready' as const, checks };
        // The details (hosts, ports, driver messages) go to the log: this answer needs no key.
        request.log.warn({ checks, database: store.problem, redis }, 'not ready');
        const problems = [
          store.ok ? undefined : store.reachable ? store.problem : 'the database does not answer',
          checks.redis === 'failed' ? 'Redis does not answer' : undefined,
        ].filter((x): x is string => x !== undefined);
        return reply.code(503).send({ error: `Not ready: ${problems.join('; ')}`, code: 'NOT_READY', status: mappingOf('NOT_READY').status, checks });
      },
    );
  };

import type { FastifyPluginAsync } from 'fastify';
import type { Engine } from '@chs/core';
import type { RunnerConfig } from '../config.js';

/** Everything the HTTP app needs, injected by whoever builds it (serve command, tests). */
export interface AppDeps {
  engine: Engine;
  config: RunnerConfig;
}

/** Who is calling: set by the auth hook on every /api request that passed it. */
export interface AuthContext {
  workspaceId: string;
  keyId: string;
  userId: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    auth: AuthContext;
  }
}

/**
 * A route module: a Fastify plugin built from the app's dependencies, registered under `/api`.
 * Routes are thin: schema (TypeBox), call the engine, shape the response. Auth (API key and the
 * `workspaceId` check) has already run: read `request.auth.workspaceId`.
 */
export type RouteModule = (deps: AppDeps) => FastifyPluginAsync;

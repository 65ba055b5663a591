/**
 * The extensions GET and POST /health/models, POST /health/models/{version}/apply and POST
 * /health/models/revert (issue 27, "learned weights, adopted only when they earn it"): the HTTP
 * face of `chs health learn` and `chs health model list|apply|revert`. The core decides
 * everything (metrics/learn.ts fits and offers or rejects, health/models.ts applies and reverts
 * and marks every client's score stale from today); after an apply or a revert the route rebuilds
 * those scores before it answers, as the CLI does, so the scores read next are the new model's.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import {
  applyHealthModel,
  DEFAULT_BACKTEST_DAYS,
  learnHealthModel,
  listHealthModels,
  MIN_LEARN_CHURNS,
  MIN_LEARN_OUTCOMES,
  revertHealthModel,
} from '@chs/core';
import { WorkspaceQuery } from '../schemas.js';
import type { AppDeps } from '../types.js';
import { AppliedHealthModelSchema, HealthModelListSchema, LearnedHealthModelSchema, RevertedHealthModelSchema } from '../responses/health-models.js';

const LearnBody = Type.Object(
  {
    days: Type.Integer({
      minimum: 1,
      maximum: 365,
      default: DEFAULT_BACKTEST_DAYS,
      description: `Days before each renewal the score is read, 1-365 (default ${DEFAULT_BACKTEST_DAYS})`,
    }),
  },
  { additionalProperties: false, 'x-extension': true, description: 'Extension (not in the spec): how to learn the weights' },
);

const ModelParams = Type.Object({ version: Type.Integer({ minimum: 1, maximum: 1_000_000, description: 'The model number (GET /health/models)' }) });

export const healthModelRoutes =
  (deps: AppDeps): FastifyPluginAsync =>
  async (plain) => {
    const app = plain.withTypeProvider<TypeBoxTypeProvider>();
    const db = deps.engine.store.db;
    const tags = ['metrics', 'extension'];
    /** The scores from today, rebuilt with the model now in use (apply and revert marked them stale). */
    const rescore = async (workspaceId: string): Promise<number> => (await deps.engine.rebuildHealth(workspaceId, new Map())).clientsScored;

    app.get(
      '/health/models',
      {
        schema: {
          tags,
          operationId: 'listHealthModels',
          summary: 'Extension: the health weights learned from renewal outcomes, newest first, and the one in use',
          description: 'Not in the spec (extension). `active` is the version in use, null while the hand-written weights (the settings’ healthWeights) score.',
          querystring: WorkspaceQuery,
          response: { 200: HealthModelListSchema },
        },
      },
      async (request) => {
        const models = await listHealthModels(db, request.auth.workspaceId);
        return { active: models.find((m) => m.status === 'active')?.version ?? null, models };
      },
    );

    app.post(
      '/health/models',
      {
        // The only body member has a default, so no body at all is the defaults.
        preValidation: async (request) => {
          if (request.body === undefined) (request as { body: unknown }).body = {};
        },
        schema: {
          tags,
          operationId: 'learnHealthModel',
          summary: 'Extension: learn health weights from the renewal outcomes; offered only when they beat the hand-written ones',
          description:
            'Not in the spec (extension). A ridge logistic regression of churn on what the score knew `days` before each recorded renewal, tested on later ' +
            'renewals than it learned from. Stored either way: `offered` when its held-out AUC beats the hand-written weights’ by 0.01 or more, else `rejected`. ' +
            `Never applied by itself. Fewer than ${MIN_LEARN_OUTCOMES} renewals with a score then, or fewer than ${MIN_LEARN_CHURNS} churns among them, is 409 CONFLICT.`,
          querystring: WorkspaceQuery,
          body: LearnBody,
          response: { 201: LearnedHealthModelSchema },
        },
      },
      async (request, reply) => {
        const learned = await learnHealthModel(db, request.auth.workspaceId, { days: request.body.days, now: deps.engine.clock() });
        return reply.code(201).send(learned);
      },
    );

    app.post(
      '/health/models/:version/apply',
      {
        schema: {
          tags,
          operationId: 'applyHealthModel',
          summary: 'Extension: score with a learned model from today on',
          description:
            'Not in the spec (extension). An offered (or retired) model scores from today: every client’s score from today is rebuilt with it before the answer; ' +
            'earlier days keep the model that scored them. The model in use until now is kept for a revert. Applying the active model changes nothing. ' +
            'A rejected model is 409 INVALID_TRANSITION; an unknown version 404 NOT_FOUND.',
          params: ModelParams,
          querystring: WorkspaceQuery,
          response: { 200: AppliedHealthModelSchema },
        },
      },
      async (request) => {
        const { workspaceId } = request.auth;
        const model = await applyHealthModel(db, workspaceId, request.params.version, deps.engine.clock());
        return { model, clientsRescored: await rescore(workspaceId) };
      },
    );

    app.post(
      '/health/models/revert',
      {
        schema: {
          tags,
          operationId: 'revertHealthModel',
          summary: 'Extension: go back one step to the model in use before the last apply (or the hand-written weights)',
          description:
            'Not in the spec (extension). The model in use is retired; the one it replaced (null: the hand-written weights) scores again from today, ' +
            'and every client’s score from today is rebuilt before the answer. 409 INVALID_TRANSITION while the hand-written weights are in use.',
          querystring: WorkspaceQuery,
          response: { 200: RevertedHealthModelSchema },
        },
      },
      async (request) => {
        const { workspaceId } = request.auth;
        const model = await revertHealthModel(db, workspaceId, deps.engine.clock());
        return { model, clientsRescored: await rescore(workspaceId) };
      },
    );
  };

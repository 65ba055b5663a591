/**
 * POST /notifications/test: a real test e-mail to the calling user's confirmed address, by SMTP or
 * into the outbox, from an allowed sender, within the workspace's hourly budget (notify/on-demand.ts).
 */
import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { ChsError, getSettings, getUser } from '@chs/core';
import type { Mailer } from '../../notify/mailer.js';
import { ON_DEMAND_EMAILS_PER_HOUR, reserveOnDemand, whereSent } from '../../notify/on-demand.js';
import { SuccessMessage, WorkspaceId } from '../schemas.js';
import type { AppDeps } from '../types.js';

export const notificationRoutes =
  (deps: AppDeps & { mailer: Mailer }): FastifyPluginAsync =>
  async (plain) => {
    const app = plain.withTypeProvider<TypeBoxTypeProvider>();
    const db = deps.engine.store.db;

    app.post(
      '/notifications/test',
      {
        schema: {
          tags: ['notifications'],
          operationId: 'sendTestNotification',
          summary: 'Send a test e-mail to the calling user',
          description:
            `At most ${ON_DEMAND_EMAILS_PER_HOUR} e-mails an hour per workspace are sent on request (test e-mails and address confirmations together); ` +
            'beyond, 429 NOTIFICATION_RATE_LIMITED with Retry-After. The sender (workspace.notifications.emailFrom) must be on the workspace’s domains or the operator allow-list (400 SENDER_NOT_ALLOWED).',
          querystring: Type.Object({ workspaceId: WorkspaceId, channel: Type.Literal('email', { description: 'Only `email` is supported' }) }),
          response: { 200: SuccessMessage },
        },
      },
      async (request) => {
        const { workspaceId, userId } = request.auth;
        const [user, settings] = await Promise.all([getUser(db, userId), getSettings(db, workspaceId)]);
        if (!user) throw new ChsError('NOT_FOUND', 'the user of this API key no longer exists');
        const slot = await reserveOnDemand(
          { db, mailer: deps.mailer, ...(deps.config.emailFromAllowList ? { allowList: deps.config.emailFromAllowList } : {}) },
          { workspaceId, kind: 'test', to: user.email },
        );
        const sent = await slot.send({
          subject: `Customer Health Service: test notification for ${settings.workspaceName}`,
          text:
            `Hello ${user.name},\n\n` +
            `this is a test e-mail from the Customer Health Service for workspace ${workspaceId}.\n` +
            'If you can read it, e-mail notifications (digests and alerts) will reach you.\n',
        });
        return { success: true, message: `Test e-mail to ${user.email} sent ${whereSent(sent)}` };
      },
    );
  };

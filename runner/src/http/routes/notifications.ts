/** POST /notifications/test: a real test e-mail to the calling user, by SMTP or into the outbox. */
import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { ChsError, getSettings, getUser, recordTestNotification } from '@chs/core';
import type { Mailer } from '../../notify/mailer.js';
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
          summary: 'Send a test e-mail to the calling user',
          querystring: Type.Object({ workspaceId: WorkspaceId, channel: Type.Literal('email', { description: 'Only `email` is supported' }) }),
          response: { 200: SuccessMessage },
        },
      },
      async (request) => {
        const { workspaceId, userId } = request.auth;
        const [user, settings] = await Promise.all([getUser(db, userId), getSettings(db, workspaceId)]);
        if (!user) throw new ChsError('NOT_FOUND', 'the user of this API key no longer exists');
        const sent = await deps.mailer.send({
          from: settings.notifications.emailFrom,
          to: user.email,
          subject: `Customer Health Service: test notification for ${settings.workspaceName}`,
          text:
            `Hello ${user.name},\n\n` +
            `this is a test e-mail from the Customer Health Service for workspace ${workspaceId}.\n` +
            'If you can read it, e-mail notifications (digests and alerts) will reach you.\n',
        });
        await recordTestNotification(db, { workspaceId, recipient: user.email, transport: sent.transport, messageId: sent.messageId, now: new Date() });
        const message =
          sent.transport === 'smtp'
            ? `Test e-mail sent to ${user.email} through ${sent.description}`
            : `No SMTP server configured (CHS_SMTP_URL): test e-mail to ${user.email} written to ${sent.description}`;
        return { success: true, message };
      },
    );
  };

/**
 * Connecting and disconnecting a provider over HTTP (engine extensions, docs/integrations.md):
 *
 *   POST   /integrations/google/authorize   (key) the consent URL of a Google sign-in for the workspace
 *   GET    /integrations/google/callback    (no key) where Google sends the browser back: consumes
 *                                           the single-use state, stores the tokens, 302 to CHS_PUBLIC_URL;
 *                                           a refused sign-in is an HTML page saying why
 *   DELETE /integrations/{provider}         (key) revokes the grant at the provider (Google) and
 *                                           forgets the credentials
 */
import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { disconnectAndRevoke, finishGoogleSignIn, isChsError, loadOrCreateSecretKey, startGoogleSignIn, type SecretKey } from '@chs/core';
import { HttpError, mappingOf } from '../errors.js';
import { ErrorBodySchema, WorkspaceQuery } from '../schemas.js';
import type { AppDeps } from '../types.js';
import { IntegrationParams } from './integrations-status.js';

export const GOOGLE_CALLBACK_PATH = '/api/integrations/google/callback';

const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The page a browser lands on when a sign-in is refused: what happened, the code, the way back. */
function refusalPage(title: string, message: string, code: string, back: string | undefined): string {
  const link = back ? `<p><a href="${escapeHtml(back)}">Back to Customer Health</a></p>` : '';
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="robots" content="noindex"><title>${escapeHtml(title)}</title></head>` +
    `<body style="font-family:sans-serif;max-width:40em;margin:4em auto"><h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p>` +
    `<p><small>code: <code>${escapeHtml(code)}</code></small></p>${link}</body></html>`
  );
}

/** An error of the callback: a page for a browser (Accept: text/html), the documented error body for anyone else. */
const PageOrError = (description: string) => ({
  description,
  content: { 'text/html': { schema: { type: 'string' } }, 'application/json': { schema: ErrorBodySchema } },
});

/** Whether the caller is a browser: it asks for HTML. */
const wantsHtml = (accept: string | undefined): boolean => /\btext\/html\b/i.test(accept ?? '');

const AuthorizeResponse = Type.Object({
  url: Type.String({ description: 'Google’s consent URL: send the user’s browser there' }),
  expiresAt: Type.String({ description: 'ISO 8601: the sign-in must be completed before this (10 minutes)' }),
});

const CallbackQuery = Type.Object(
  {
    state: Type.Optional(Type.String({ description: 'The single-use state the authorize call put in the consent URL' })),
    code: Type.Optional(Type.String({ description: 'The authorization code' })),
    error: Type.Optional(Type.String({ description: 'Set instead of code when the user refused (access_denied) or Google refused the request' })),
    error_description: Type.Optional(Type.String()),
  },
  // Google adds scope, authuser, hd, prompt…: accepted and ignored. No length bounds here (a
  // refusal must be the page, not a JSON error): the state is checked for length, the rest is
  // bounded by the URL limit and cut before use.
  { additionalProperties: true },
);

const DisconnectResponse = Type.Object({
  provider: Type.String(),
  workspaceId: Type.String(),
  disconnected: Type.Boolean({ description: 'Whether there was a connection; its credentials are forgotten either way' }),
  revoked: Type.Union([Type.Boolean(), Type.Null()], {
    description:
      'true: the provider confirmed the revoke; false: it did not (revokeError says why; the credentials were forgotten all the same); null: nothing to revoke',
  }),
  revokeError: Type.Union([Type.String(), Type.Null()]),
  message: Type.String(),
});

export const integrationConnectRoutes =
  (deps: AppDeps): FastifyPluginAsync =>
  async (plain) => {
    const app = plain.withTypeProvider<TypeBoxTypeProvider>();
    const { config } = deps;
    const db = deps.engine.store.db;
    const tags = ['integrations'];
    let key: SecretKey | undefined;
    // Read on first use (it may create the key file), as the CLI does.
    const secretKey = (): SecretKey => (key ??= loadOrCreateSecretKey(config.dataDir, config.secretKey));
    const google = config.providers;
    const signIn = () => {
      if (!config.publicUrl || !config.googleOAuth) {
        throw new HttpError(
          'OAUTH_NOT_CONFIGURED',
          'The Google sign-in is not configured on this server: set CHS_PUBLIC_URL, CHS_GOOGLE_CLIENT_ID and CHS_GOOGLE_CLIENT_SECRET (docs/integrations.md)',
        );
      }
      return { publicUrl: config.publicUrl, clientId: config.googleOAuth.clientId, clientSecret: config.googleOAuth.clientSecret };
    };

    app.post(
      '/integrations/google/authorize',
      {
        schema: {
          tags,
          operationId: 'authorizeGoogle',
          summary: 'Engine extension: start a Google sign-in for the workspace; answers the consent URL',
          description:
            'Send the user’s browser to `url`. After consent Google sends it to GET /api/integrations/google/callback, which stores the tokens (encrypted) and ' +
            'redirects to CHS_PUBLIC_URL. The state in the URL is single-use, bound to this workspace and valid 10 minutes. Each sign-in adds the signed-in ' +
            'mailbox to the workspace (or replaces that mailbox’s tokens). 409 OAUTH_NOT_CONFIGURED when CHS_PUBLIC_URL or the OAuth client is not set.',
          querystring: WorkspaceQuery,
          response: { 200: AuthorizeResponse },
        },
      },
      async (request) => {
        const s = signIn();
        return startGoogleSignIn(db, secretKey(), {
          workspaceId: request.auth.workspaceId,
          userId: request.auth.userId,
          client: { clientId: s.clientId, clientSecret: s.clientSecret, redirectUri: `${s.publicUrl}${GOOGLE_CALLBACK_PATH}`, authUrl: google.googleAuth },
          now: new Date(),
        });
      },
    );

    app.get(
      '/integrations/google/callback',
      {
        // No key: the browser comes back from Google. Its URL carries the code, so the request
        // logs (which print the URL) skip this path (app.ts, disableRequestLogging).
        config: { public: true },
        schema: {
          tags,
          operationId: 'googleCallback',
          summary: 'Engine extension: Google’s redirect after consent (no key; opened by the browser)',
          description:
            'Consumes the single-use state, exchanges the code (PKCE), reads the mailbox address, stores the tokens encrypted, then answers 302 to ' +
            '`CHS_PUBLIC_URL/?integration=google&account=<address>`. A refused sign-in answers an HTML page naming the reason and its code: OAUTH_FAILED (400) ' +
            'for denied consent, an unknown, expired or already used state, or a code Google refused (used twice, expired). A caller that does not ask for ' +
            'text/html (no browser) gets the same as the documented error body.',
          security: [],
          querystring: CallbackQuery,
          response: {
            302: { description: 'Connected: on to CHS_PUBLIC_URL', type: 'null' },
            400: PageOrError('The sign-in was refused (OAUTH_FAILED): denied consent, bad, expired or used state, a code Google refused'),
            404: PageOrError('The workspace the sign-in was started for no longer exists'),
            409: PageOrError('The Google sign-in is not configured on this server (OAUTH_NOT_CONFIGURED)'),
            500: PageOrError('Server error'),
            502: PageOrError('Google answered with an error (PROVIDER_ERROR)'),
          },
        },
      },
      async (request, reply) => {
        try {
          const s = signIn();
          const done = await finishGoogleSignIn(db, secretKey(), {
            query: request.query,
            client: { clientId: s.clientId, clientSecret: s.clientSecret, authUrl: google.googleAuth, tokenUrl: google.googleToken, apiUrl: google.googleApi },
            logger: deps.engine.logger,
            now: () => new Date(),
          });
          request.log.info({ workspaceId: done.workspaceId, provider: 'google' }, 'google connected by sign-in');
          const back = new URL(`${s.publicUrl}/`);
          back.searchParams.set('integration', 'google');
          if (done.integration.accountEmail) back.searchParams.set('account', done.integration.accountEmail);
          return reply.code(302).header('location', back.toString()).header('cache-control', 'no-store').send();
        } catch (err) {
          const code = isChsError(err) || err instanceof HttpError ? err.code : 'INTERNAL';
          const m = mappingOf(code);
          if (m.status >= 500) request.log.error({ err, code }, 'google sign-in callback failed');
          else request.log.warn({ code: m.code, reason: isChsError(err) ? err.details?.reason : undefined }, 'google sign-in refused');
          const message = m.expose && err instanceof Error ? err.message : m.publicMessage;
          const title = m.code === 'OAUTH_FAILED' ? 'Google sign-in not completed' : 'Google sign-in failed';
          const status = m.status === 400 || m.status === 404 || m.status === 409 || m.status === 502 ? m.status : 500;
          const shown = status === m.status ? { error: message, code: m.code } : { error: mappingOf('INTERNAL').publicMessage, code: 'INTERNAL' };
          void reply.code(status).header('cache-control', 'no-store');
          if (!wantsHtml(request.headers.accept)) return reply.send({ ...shown, status });
          return reply
            .type('text/html; charset=utf-8')
            .send(refusalPage(title, shown.error, shown.code, config.publicUrl ? `${config.publicUrl}/` : undefined));
        }
      },
    );

    app.delete(
      '/integrations/:provider',
      {
        schema: {
          tags,
          operationId: 'disconnectIntegration',
          summary: 'Engine extension: disconnect a provider (revoke at Google, then forget the credentials)',
          description:
            'Google: the refresh token is revoked at Google’s revoke endpoint (CHS_GOOGLE_REVOKE_URL). The credentials are forgotten whatever the revoke did; ' +
            '`revoked: false` with `revokeError` says it failed (remove the access in the Google account instead). HubSpot and Intercom tokens are only forgotten. ' +
            'With `account`, only that Google mailbox is disconnected; without, every account of the provider.',
          params: IntegrationParams,
          querystring: Type.Object({
            ...WorkspaceQuery.properties,
            account: Type.Optional(
              Type.String({ minLength: 1, maxLength: 320, description: 'One account only (a Google mailbox address); default every account of the provider' }),
            ),
          }),
          response: { 200: DisconnectResponse },
        },
      },
      async (request) => {
        const ws = request.auth.workspaceId;
        const provider = request.params.provider;
        const account = request.query.account;
        const r = await disconnectAndRevoke(db, secretKey(), ws, provider, { account, googleRevokeUrl: google.googleRevoke });
        const message = !r.disconnected
          ? `${provider}${account ? ` (${account})` : ''} was not connected to ${ws}`
          : r.revoked === false
            ? `Disconnected ${provider} from ${ws}: the credentials are forgotten, but the revoke failed (${r.revokeError ?? 'unknown'}); remove the access in the account's settings`
            : `Disconnected ${provider}${account ? ` (${account})` : ''} from ${ws}${r.revoked ? ' and revoked its access' : ''}`;
        return { ...r, message };
      },
    );
  };

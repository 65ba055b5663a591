/**
 * Connecting and disconnecting a provider over HTTP (engine extensions, docs/connectors.md):
 *
 *   POST   /integrations/google/authorize    (key) the consent URL of a Google sign-in for the workspace
 *   GET    /integrations/google/callback     (no key) where Google sends the browser back: consumes
 *                                            the single-use state, stores the tokens, 302 to CHS_PUBLIC_URL;
 *                                            a refused sign-in is an HTML page saying why
 *   POST   /integrations/hubspot/authorize   (key) the install URL of the HubSpot public app for the workspace
 *   GET    /integrations/hubspot/callback    (no key) the same for HubSpot's redirect after the install
 *   DELETE /integrations/{provider}          (key) revokes the grant at the provider (Google) and
 *                                            forgets the credentials
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import {
  disconnectAndRevoke,
  finishGoogleSignIn,
  finishHubSpotInstall,
  isChsError,
  loadOrCreateSecretKey,
  startGoogleSignIn,
  startHubSpotInstall,
  type SecretKey,
} from '@chs/core';
import { HttpError, mappingOf } from '../errors.js';
import { ErrorBodySchema, WorkspaceQuery } from '../schemas.js';
import type { AppDeps } from '../types.js';
import { IntegrationParams } from './integrations-status.js';

const GOOGLE_CALLBACK_PATH = '/api/integrations/google/callback';
const HUBSPOT_CALLBACK_PATH = '/api/integrations/hubspot/callback';
/** The OAuth callbacks: their URLs carry an authorization code, so their request lines are not logged (app.ts). */
export const OAUTH_CALLBACK_PATHS: readonly string[] = [GOOGLE_CALLBACK_PATH, HUBSPOT_CALLBACK_PATH];

/** The providers connected by a browser flow, as the pages, messages and settings name them. */
const FLOWS = {
  google: { flow: 'Google sign-in', who: 'Google', env: 'CHS_GOOGLE', callback: GOOGLE_CALLBACK_PATH, logged: 'google connected by sign-in' },
  hubspot: { flow: 'HubSpot install', who: 'HubSpot', env: 'CHS_HUBSPOT', callback: HUBSPOT_CALLBACK_PATH, logged: 'hubspot connected by install' },
} as const;
type BrowserFlow = keyof typeof FLOWS;

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

const authorizeResponse = (screen: string) =>
  Type.Object({
    url: Type.String({ description: `${screen}: send the user’s browser there` }),
    expiresAt: Type.String({ description: 'ISO 8601: the flow must be completed before this (10 minutes)' }),
  });

const CallbackQuery = Type.Object(
  {
    state: Type.Optional(Type.String({ description: 'The single-use state the authorize call put in the consent URL' })),
    code: Type.Optional(Type.String({ description: 'The authorization code' })),
    error: Type.Optional(Type.String({ description: 'Set instead of code when the user refused (access_denied) or the provider refused the request' })),
    error_description: Type.Optional(Type.String()),
  },
  // Google adds scope, authuser, hd, prompt…: accepted and ignored. No length bounds here (a
  // refusal must be the page, not a JSON error): the state is checked for length, the rest is
  // bounded by the URL limit and cut before use.
  { additionalProperties: true },
);

/** The schema of a callback: no key, 302 on success, a page or the error body otherwise. */
const callbackSchema = (p: BrowserFlow, operationId: string, description: string) => {
  const { flow, who } = FLOWS[p];
  return {
    tags: ['integrations'],
    operationId,
    summary: `Engine extension: ${who}’s redirect after consent (no key; opened by the browser)`,
    description:
      `${description} A refused ${flow} answers an HTML page naming the reason and its code: OAUTH_FAILED (400) for denied consent, an unknown ` +
      `(another provider’s included), expired or already used state, or a code ${who} refused (used twice, expired). A caller that does not ask for ` +
      'text/html (no browser) gets the same as the documented error body.',
    security: [],
    querystring: CallbackQuery,
    response: {
      302: { description: 'Connected: on to CHS_PUBLIC_URL', type: 'null' },
      400: PageOrError(`The ${flow} was refused (OAUTH_FAILED): denied consent, bad, expired or used state, a code ${who} refused`),
      404: PageOrError(`The workspace the ${flow} was started for no longer exists`),
      409: PageOrError(`The ${flow} is not configured on this server (OAUTH_NOT_CONFIGURED)`),
      500: PageOrError('Server error'),
      502: PageOrError(`${who} answered with an error (PROVIDER_ERROR)`),
    },
  };
};

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
    const urls = config.providers;
    /** The OAuth client of a browser flow, or 409 OAUTH_NOT_CONFIGURED naming the settings. */
    const oauthClient = (p: BrowserFlow) => {
      const client = p === 'google' ? config.googleOAuth : config.hubspotOAuth;
      if (!config.publicUrl || !client) {
        const { flow, env } = FLOWS[p];
        throw new HttpError(
          'OAUTH_NOT_CONFIGURED',
          `The ${flow} is not configured on this server: set CHS_PUBLIC_URL, ${env}_CLIENT_ID and ${env}_CLIENT_SECRET (docs/connectors.md)`,
        );
      }
      return {
        publicUrl: config.publicUrl,
        clientId: client.clientId,
        clientSecret: client.clientSecret,
        redirectUri: `${config.publicUrl}${FLOWS[p].callback}`,
      };
    };

    /**
     * A callback's answer: `finish` connects the account; then 302 to CHS_PUBLIC_URL with
     * `integration` (and `account`), or the refusal as a page for a browser, the error body otherwise.
     */
    const answerCallback = async (
      p: BrowserFlow,
      request: FastifyRequest,
      reply: FastifyReply,
      finish: (client: ReturnType<typeof oauthClient>) => Promise<{ workspaceId: string; account?: string | null | undefined }>,
    ) => {
      const { flow, logged } = FLOWS[p];
      try {
        const client = oauthClient(p);
        const done = await finish(client);
        request.log.info({ workspaceId: done.workspaceId, provider: p }, logged);
        const back = new URL(`${client.publicUrl}/`);
        back.searchParams.set('integration', p);
        if (done.account) back.searchParams.set('account', done.account);
        return reply.code(302).header('location', back.toString()).header('cache-control', 'no-store').send();
      } catch (err) {
        const code = isChsError(err) || err instanceof HttpError ? err.code : 'INTERNAL';
        const m = mappingOf(code);
        if (m.status >= 500) request.log.error({ err, code, provider: p }, `${flow} callback failed`);
        else request.log.warn({ code: m.code, provider: p, reason: isChsError(err) ? err.details?.reason : undefined }, `${flow} refused`);
        const message = m.expose && err instanceof Error ? err.message : m.publicMessage;
        const title = m.code === 'OAUTH_FAILED' ? `${flow} not completed` : `${flow} failed`;
        const status = m.status === 400 || m.status === 404 || m.status === 409 || m.status === 502 ? m.status : 500;
        const shown = status === m.status ? { error: message, code: m.code } : { error: mappingOf('INTERNAL').publicMessage, code: 'INTERNAL' };
        void reply.code(status).header('cache-control', 'no-store');
        if (!wantsHtml(request.headers.accept)) return reply.send({ ...shown, status });
        return reply.type('text/html; charset=utf-8').send(refusalPage(title, shown.error, shown.code, config.publicUrl ? `${config.publicUrl}/` : undefined));
      }
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
          response: { 200: authorizeResponse('Google’s consent URL') },
        },
      },
      async (request) => {
        const c = oauthClient('google');
        return startGoogleSignIn(db, secretKey(), {
          workspaceId: request.auth.workspaceId,
          userId: request.auth.userId,
          client: { clientId: c.clientId, clientSecret: c.clientSecret, redirectUri: c.redirectUri, authUrl: urls.googleAuth },
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
        schema: callbackSchema(
          'google',
          'googleCallback',
          'Consumes the single-use state, exchanges the code (PKCE), reads the mailbox address, stores the tokens encrypted, then answers 302 to ' +
            '`CHS_PUBLIC_URL/?integration=google&account=<address>`.',
        ),
      },
      async (request, reply) =>
        answerCallback('google', request, reply, async (c) => {
          const done = await finishGoogleSignIn(db, secretKey(), {
            query: request.query,
            client: { clientId: c.clientId, clientSecret: c.clientSecret, authUrl: urls.googleAuth, tokenUrl: urls.googleToken, apiUrl: urls.googleApi },
            logger: deps.engine.logger,
            now: () => new Date(),
          });
          return { workspaceId: done.workspaceId, account: done.integration.accountEmail };
        }),
    );

    app.post(
      '/integrations/hubspot/authorize',
      {
        schema: {
          tags,
          operationId: 'authorizeHubSpot',
          summary: 'Engine extension: start the install of the HubSpot public app for the workspace; answers the install URL',
          description:
            'Send the user’s browser to `url` (HubSpot’s install screen, asking for the read scopes the connector uses). After the install HubSpot sends it ' +
            'to GET /api/integrations/hubspot/callback, which exchanges the code and stores the app’s tokens (encrypted; the 30-minute access token is ' +
            'refreshed by the syncs) and redirects to CHS_PUBLIC_URL. The state in the URL is single-use, bound to this workspace and to HubSpot, and valid ' +
            '10 minutes. An install replaces the workspace’s HubSpot credentials (a private-app token included). 409 OAUTH_NOT_CONFIGURED when ' +
            'CHS_PUBLIC_URL, CHS_HUBSPOT_CLIENT_ID or CHS_HUBSPOT_CLIENT_SECRET is not set.',
          querystring: WorkspaceQuery,
          response: { 200: authorizeResponse('HubSpot’s install URL') },
        },
      },
      async (request) => {
        const c = oauthClient('hubspot');
        return startHubSpotInstall(db, secretKey(), {
          workspaceId: request.auth.workspaceId,
          userId: request.auth.userId,
          client: { clientId: c.clientId, clientSecret: c.clientSecret, authUrl: urls.hubspotAuth },
          redirectUri: c.redirectUri,
          now: new Date(),
        });
      },
    );

    app.get(
      '/integrations/hubspot/callback',
      {
        // No key, and no request log line (its URL carries the code), as the Google callback.
        config: { public: true },
        schema: callbackSchema(
          'hubspot',
          'hubspotCallback',
          'Consumes the single-use state, exchanges the code at HubSpot’s token endpoint (CHS_HUBSPOT_API_URL), stores the access and refresh tokens ' +
            'with the app’s client id and secret and the expiry, encrypted, then answers 302 to `CHS_PUBLIC_URL/?integration=hubspot`.',
        ),
      },
      async (request, reply) =>
        answerCallback('hubspot', request, reply, async (c) =>
          finishHubSpotInstall(db, secretKey(), {
            query: request.query,
            client: { clientId: c.clientId, clientSecret: c.clientSecret, apiUrl: urls.hubspotApi },
            now: () => new Date(),
          }),
        ),
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
        const r = await disconnectAndRevoke(db, secretKey(), ws, provider, { account, googleRevokeUrl: urls.googleRevoke });
        const message = !r.disconnected
          ? `${provider}${account ? ` (${account})` : ''} was not connected to ${ws}`
          : r.revoked === false
            ? `Disconnected ${provider} from ${ws}: the credentials are forgotten, but the revoke failed (${r.revokeError ?? 'unknown'}); remove the access in the account's settings`
            : `Disconnected ${provider}${account ? ` (${account})` : ''} from ${ws}${r.revoked ? ' and revoked its access' : ''}`;
        return { ...r, message };
      },
    );
  };

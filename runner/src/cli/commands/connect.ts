/**
 * `chs connect google|hubspot|intercom` and `chs disconnect <provider>`: store (or forget) a
 * workspace's provider credentials, encrypted with the runner's secret key. Tokens are never
 * printed back, and need never be on argv: each secret also comes from `--<name>-file`,
 * `--<name>-stdin` (or `-` as the value) or its CHS_CONNECT_* environment variable.
 * `chs connect hubspot --renewal-pipeline <id>` (or `--no-renewal-pipeline`) also sets the HubSpot
 * integration's renewal pipeline: with credentials, as it connects; alone, on the connection it has.
 */
import { spawn } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import type { Command } from 'commander';
import {
  ChsError,
  PROVIDERS,
  connectIntegration,
  disconnectAndRevoke,
  updateHubSpotSettings,
  isProvider,
  loadOrCreateSecretKey,
  requireWorkspace,
  silentLogger,
  type GoogleCredentials,
  type HubSpotCredentials,
  type Provider,
} from '@chs/core';
import { loadSecretInputs, SECRET_INPUT_ENV } from '../../config.js';
import { printJson, withEngine, type CliContext } from '../context.js';
import { readSecrets } from '../secret-input.js';
import { looseModeWarning } from '../file-modes.js';
import type { RegisterCommand } from './index.js';

interface ConnectFlags {
  workspace: string;
  /** google sign-in: the loopback port (`--port`), and whether to open a browser (`--no-browser`). */
  port?: string;
  browser?: boolean;
  accessToken?: string;
  accessTokenFile?: string;
  accessTokenStdin?: boolean;
  email?: string;
  refreshToken?: string;
  refreshTokenFile?: string;
  refreshTokenStdin?: boolean;
  clientId?: string;
  clientSecret?: string;
  clientSecretFile?: string;
  clientSecretStdin?: boolean;
  expiresAt?: string;
  scope?: string;
  /** google, domain-wide delegation: the service account's JSON key file and the mailbox it acts for. */
  serviceAccount?: string;
  subject?: string;
  /** hubspot: the deal pipeline whose closed deals are renewal outcomes; false (`--no-renewal-pipeline`) unmaps it. */
  renewalPipeline?: string | false;
  json?: boolean;
}

/** The secrets of `chs connect`, after reading them from wherever they were given. */
interface ConnectSecrets {
  /** Absent for a Google sign-in (the consent flow gets the tokens). */
  accessToken?: string | undefined;
  refreshToken?: string | undefined;
  clientSecret?: string | undefined;
}

const GOOGLE_ONLY = [
  'email',
  'refreshToken',
  'refreshTokenFile',
  'refreshTokenStdin',
  'clientId',
  'clientSecret',
  'clientSecretFile',
  'clientSecretStdin',
  'expiresAt',
  'scope',
  'serviceAccount',
  'subject',
] as const;
/** The flags of a HubSpot public app (OAuth) besides the token ones. */
const HUBSPOT_OAUTH_FLAGS = [
  'refreshToken',
  'refreshTokenFile',
  'refreshTokenStdin',
  'clientId',
  'clientSecret',
  'clientSecretFile',
  'clientSecretStdin',
] as const;
/** A service account's JSON key is about 2.4 KB; anything far larger is not one. */
const MAX_KEY_FILE_BYTES = 64 * 1024;

async function readConnectSecrets(ctx: CliContext, f: ConnectFlags): Promise<ConnectSecrets> {
  const env = loadSecretInputs(ctx.env);
  const s = await readSecrets(ctx, {
    accessToken: {
      name: 'access-token',
      envName: SECRET_INPUT_ENV.accessToken,
      envValue: env.accessToken,
      value: f.accessToken,
      file: f.accessTokenFile,
      stdin: f.accessTokenStdin,
    },
    refreshToken: {
      name: 'refresh-token',
      envName: SECRET_INPUT_ENV.refreshToken,
      envValue: env.refreshToken,
      value: f.refreshToken,
      file: f.refreshTokenFile,
      stdin: f.refreshTokenStdin,
    },
    clientSecret: {
      name: 'client-secret',
      envName: SECRET_INPUT_ENV.clientSecret,
      envValue: env.clientSecret,
      value: f.clientSecret,
      file: f.clientSecretFile,
      stdin: f.clientSecretStdin,
    },
  });
  return { accessToken: s.accessToken, refreshToken: s.refreshToken, clientSecret: s.clientSecret };
}

function requireAccessToken(s: ConnectSecrets, provider: Provider): string {
  if (s.accessToken !== undefined) return s.accessToken;
  const signIn = {
    google: ' (or, for google, sign in: --client-id <id> with a client secret and no token)',
    hubspot: ' (or, for a HubSpot public app, install it: --client-id <id> with a client secret and no token)',
    intercom: '',
  }[provider];
  throw new ChsError(
    'INVALID_INPUT',
    `an access token is required: --access-token-file <path>, --access-token-stdin, ${SECRET_INPUT_ENV.accessToken}, or --access-token <token>${signIn}`,
  );
}

function parseProvider(value: string): Provider {
  if (!isProvider(value)) throw new ChsError('INVALID_INPUT', `unknown provider "${value}"; one of ${PROVIDERS.join(', ')}`);
  return value;
}

function googleCredentials(f: ConnectFlags, s: ConnectSecrets): GoogleCredentials {
  const accessToken = requireAccessToken(s, 'google');
  if (!f.email) throw new ChsError('INVALID_INPUT', 'chs connect google needs --email <account> with a token (a sign-in reads it from the mailbox)');
  const refreshParts = [s.refreshToken, f.clientId, s.clientSecret].filter((v) => v !== undefined).length;
  if (refreshParts !== 0 && refreshParts !== 3) {
    throw new ChsError('INVALID_INPUT', 'a refresh token, --client-id and a client secret go together (all three are needed to refresh)');
  }
  if (f.expiresAt !== undefined && Number.isNaN(Date.parse(f.expiresAt)))
    throw new ChsError('INVALID_INPUT', `--expires-at must be an ISO 8601 time, got "${f.expiresAt}"`);
  return {
    accessToken,
    email: f.email.toLowerCase(),
    ...(s.refreshToken ? { refreshToken: s.refreshToken, clientId: f.clientId, clientSecret: s.clientSecret } : {}),
    ...(f.expiresAt ? { expiresAt: new Date(f.expiresAt).toISOString() } : {}),
    ...(f.scope ? { scope: f.scope } : {}),
  };
}

/** Where a consent flow gets its client secret from, for the message that asks for it. */
function requireClientSecret(s: ConnectSecrets, flow: string): string {
  if (s.clientSecret !== undefined) return s.clientSecret;
  throw new ChsError(
    'INVALID_INPUT',
    `${flow} needs the OAuth client secret: --client-secret-file <path>, --client-secret-stdin, ${SECRET_INPUT_ENV.clientSecret}, or --client-secret <secret>`,
  );
}

/**
 * What a consent flow on the terminal shares (Google's sign-in, HubSpot's install): --port, Ctrl-C
 * to stop waiting, and the consent URL on a line of its own on stdout (the instruction on stderr),
 * opened in a browser unless --no-browser.
 */
async function onTerminal<T>(
  ctx: CliContext,
  f: ConnectFlags,
  instruction: (port: number | undefined) => string,
  run: (t: { port: number | undefined; signal: AbortSignal; onUrl: (url: string) => void }) => Promise<T>,
): Promise<T> {
  let port: number | undefined;
  if (f.port !== undefined) {
    port = Number(f.port);
    if (!/^\d+$/.test(f.port) || port > 65535) throw new ChsError('INVALID_INPUT', `--port must be an integer from 0 to 65535, got "${f.port}"`);
  }
  const abort = new AbortController();
  const onSigint = () => abort.abort();
  process.once('SIGINT', onSigint);
  try {
    return await run({
      port,
      signal: abort.signal,
      onUrl: (url) => {
        ctx.stderr.write(`${instruction(port)}\n`);
        ctx.stdout.write(`${url}\n`);
        if (f.browser !== false) openBrowser(url);
      },
    });
  } finally {
    process.off('SIGINT', onSigint);
  }
}

/**
 * `chs connect google --client-id <id>` with a client secret and no token: Google's installed-app
 * sign-in. The consent URL goes on a line of its own on stdout (and to a browser unless
 * --no-browser); the tokens come back to a listener on 127.0.0.1; the address is the mailbox's.
 */
async function googleSignIn(ctx: CliContext, cmd: Command, f: ConnectFlags, s: ConnectSecrets): Promise<GoogleCredentials> {
  const clientSecret = requireClientSecret(s, 'a Google sign-in');
  if (s.refreshToken !== undefined) throw new ChsError('INVALID_INPUT', 'a refresh token needs its access token; for a sign-in give neither');
  const config = ctx.config(cmd.optsWithGlobals());
  const { runLoopbackConsent } = await import('@chs/core/connectors');
  return onTerminal(
    ctx,
    f,
    () => 'Open this address in a browser on this machine and allow read-only access to the mailbox:',
    (t) =>
      runLoopbackConsent({
        clientId: f.clientId as string,
        clientSecret,
        authUrl: config.providers.googleAuth,
        tokenUrl: config.providers.googleToken,
        apiUrl: config.providers.googleApi,
        port: t.port ?? 0,
        signal: t.signal,
        logger: silentLogger,
        now: () => new Date(),
        onUrl: t.onUrl,
      }),
  );
}

/**
 * `chs connect hubspot --client-id <id>` with the app's client secret and no token: the public
 * app's install. The install URL goes on a line of its own on stdout (and to a browser unless
 * --no-browser); HubSpot sends the browser back to `http://localhost:<port>` (one of the app's
 * redirect URLs), and the code is exchanged for the app's tokens.
 */
async function hubspotInstall(ctx: CliContext, cmd: Command, f: ConnectFlags, s: ConnectSecrets): Promise<HubSpotCredentials> {
  const clientSecret = requireClientSecret(s, 'a HubSpot install');
  const config = ctx.config(cmd.optsWithGlobals());
  const { runHubSpotLoopbackInstall, DEFAULT_HUBSPOT_LOOPBACK_PORT } = await import('@chs/core/connectors');
  return onTerminal(
    ctx,
    f,
    (port) =>
      `Open this address in a browser on this machine and install the app (its redirect URLs must include http://localhost:${port ?? DEFAULT_HUBSPOT_LOOPBACK_PORT}):`,
    (t) =>
      runHubSpotLoopbackInstall({
        clientId: f.clientId as string,
        clientSecret,
        apiUrl: config.providers.hubspotApi,
        authUrl: config.providers.hubspotAuth,
        port: t.port,
        signal: t.signal,
        now: () => new Date(),
        onUrl: t.onUrl,
      }),
  );
}

/**
 * `chs connect google --service-account <key.json> --subject <mailbox>`: domain-wide delegation, no
 * consent. The key file is read (a file others can read is warned about), a first token is minted
 * for the mailbox and its profile read, so a key without the delegation is refused now.
 */
async function googleServiceAccount(ctx: CliContext, cmd: Command, f: ConnectFlags & { serviceAccount: string }): Promise<GoogleCredentials> {
  if (!f.subject) throw new ChsError('INVALID_INPUT', '--service-account needs --subject <mailbox>: the address of the mailbox the service account reads');
  for (const other of [
    'accessToken',
    'accessTokenFile',
    'accessTokenStdin',
    'refreshToken',
    'refreshTokenFile',
    'refreshTokenStdin',
    'clientId',
    'clientSecret',
    'clientSecretFile',
    'clientSecretStdin',
    'email',
    'port',
  ] as const) {
    if (f[other] !== undefined)
      throw new ChsError(
        'INVALID_INPUT',
        `--service-account takes no --${other.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} (the key mints the tokens for --subject)`,
      );
  }
  let text: string;
  try {
    if (statSync(f.serviceAccount).size > MAX_KEY_FILE_BYTES)
      throw new ChsError('INVALID_INPUT', `${f.serviceAccount} is over ${MAX_KEY_FILE_BYTES} bytes: not a service account key`);
    text = readFileSync(f.serviceAccount, 'utf8');
  } catch (err) {
    if (err instanceof ChsError) throw err;
    throw new ChsError('INVALID_INPUT', `--service-account: cannot read ${f.serviceAccount} (${(err as NodeJS.ErrnoException).code ?? 'error'})`, {
      cause: err,
    });
  }
  const warning = looseModeWarning(f.serviceAccount);
  if (warning) ctx.stderr.write(`chs: warning: ${warning}\n`);
  const config = ctx.config(cmd.optsWithGlobals());
  const { connectServiceAccount, parseServiceAccountKey } = await import('@chs/core/connectors');
  return connectServiceAccount({
    key: parseServiceAccountKey(text),
    subject: f.subject,
    tokenUrl: config.providers.googleToken,
    apiUrl: config.providers.googleApi,
    logger: silentLogger,
    now: () => new Date(),
  });
}

/**
 * `chs connect hubspot --client-id <id> --client-secret-file <f> --refresh-token-file <f>`: a public
 * app's install, connected by its refresh token. A first access token (30 minutes) is fetched now,
 * so a wrong secret or a dead refresh token is refused at once; syncs refresh it from then on.
 */
async function hubspotApp(ctx: CliContext, cmd: Command, f: ConnectFlags, s: ConnectSecrets): Promise<HubSpotCredentials> {
  if (f.clientId === undefined || s.clientSecret === undefined || s.refreshToken === undefined) {
    throw new ChsError(
      'INVALID_INPUT',
      'a HubSpot app connects with --client-id, a client secret and a refresh token together (or is installed with --client-id and a client secret alone; or give a private-app token alone)',
    );
  }
  if (s.accessToken !== undefined) throw new ChsError('INVALID_INPUT', 'a HubSpot app takes no access token: it is fetched with the refresh token');
  const config = ctx.config(cmd.optsWithGlobals());
  const { refreshHubSpotToken } = await import('@chs/core/connectors');
  try {
    return await refreshHubSpotToken(
      { clientId: f.clientId, clientSecret: s.clientSecret, apiUrl: config.providers.hubspotApi },
      { refreshToken: s.refreshToken, now: new Date() },
    );
  } catch (err) {
    // Refused now, it is a failed connect (not a connection that needs reconnecting).
    // (By its code: the connectors entry may carry its own copy of the error class.)
    const e = err as { code?: unknown; message?: unknown };
    if (e.code === 'INTEGRATION_NEEDS_REAUTH' && typeof e.message === 'string')
      throw new ChsError('OAUTH_FAILED', e.message.replace(/; install the app again$/, ''), { details: { provider: 'hubspot' } });
    throw err;
  }
}

/** What `--renewal-pipeline` / `--no-renewal-pipeline` did, in a sentence. */
function renewalPipelineLine(workspaceId: string, id: string | null): string {
  return id === null
    ? `HubSpot renewal pipeline for ${workspaceId}: none (no deal is read; the outcomes already recorded stay).`
    : `HubSpot renewal pipeline for ${workspaceId}: ${id} (from the next sync, its closed won deals are renewals and its closed lost deals churns).`;
}

/** Best effort: the desktop's opener, detached; on a server without one the printed URL does. */
function openBrowser(url: string): void {
  const [command, args] =
    process.platform === 'darwin' ? ['open', [url]] : process.platform === 'win32' ? ['cmd', ['/c', 'start', '', url]] : ['xdg-open', [url]];
  try {
    const child = spawn(command, args, { stdio: 'ignore', detached: true });
    child.on('error', () => undefined);
    child.unref();
  } catch {
    // No opener: the URL is on stdout.
  }
}

export const register: RegisterCommand = (program, ctx) => {
  program
    .command('connect')
    .description('store provider credentials for a workspace (encrypted at rest)')
    .argument('<provider>', `one of ${PROVIDERS.join(', ')}`)
    .requiredOption('--workspace <domain>', 'workspace domain')
    .option(
      '--access-token <token>',
      'Google OAuth access token, HubSpot private-app token or Intercom access token (visible in ps: prefer the next two, or CHS_CONNECT_ACCESS_TOKEN; "-" reads stdin)',
    )
    .option('--access-token-file <path>', 'read the access token from a file ("-": stdin)')
    .option('--access-token-stdin', 'read the access token from stdin')
    .option('--email <account>', 'google: the mailbox address')
    .option(
      '--refresh-token <token>',
      'google, and a HubSpot public app: OAuth refresh token, with --client-id and a client secret (or --refresh-token-file, --refresh-token-stdin, CHS_CONNECT_REFRESH_TOKEN)',
    )
    .option('--refresh-token-file <path>', 'google, and a HubSpot public app: read the refresh token from a file')
    .option('--refresh-token-stdin', 'google, and a HubSpot public app: read the refresh token from stdin')
    .option('--client-id <id>', 'google, and a HubSpot public app: OAuth client id (with a client secret and no token: sign in / install the app)')
    .option(
      '--client-secret <secret>',
      'google, and a HubSpot public app: OAuth client secret (or --client-secret-file, --client-secret-stdin, CHS_CONNECT_CLIENT_SECRET)',
    )
    .option('--client-secret-file <path>', 'google, and a HubSpot public app: read the client secret from a file')
    .option('--client-secret-stdin', 'google, and a HubSpot public app: read the client secret from stdin')
    .option('--expires-at <iso>', 'google: access token expiry (ISO 8601)')
    .option('--scope <scopes>', 'google: granted scopes, space-separated')
    .option(
      '--port <n>',
      "google sign-in, HubSpot install: the port on 127.0.0.1 that receives the provider's redirect (google default: any free one; hubspot default 8976, the redirect URL http://localhost:<n> the app lists)",
    )
    .option('--no-browser', 'google sign-in, HubSpot install: only print the consent URL (open it in any browser on this machine)')
    .option(
      '--service-account <key.json>',
      "google, Workspace admins: a service account's JSON key with domain-wide delegation for gmail.readonly (no consent screen)",
    )
    .option('--subject <mailbox>', 'google, with --service-account: the mailbox it reads')
    .option(
      '--renewal-pipeline <id>',
      "hubspot: the deal pipeline whose closed deals are renewal outcomes (won: renewed, lost: churned); with no credentials, sets it on the workspace's connection",
    )
    .option('--no-renewal-pipeline', 'hubspot: read no deals (the outcomes already recorded stay)')
    .option('--json', 'print the integration status object (settings alone: {"provider","workspaceId","renewalPipelineId"})')
    .action(async (providerArg: string, flags: ConnectFlags, cmd: Command) => {
      const provider = parseProvider(providerArg);
      if (flags.renewalPipeline !== undefined && provider !== 'hubspot') throw new ChsError('INVALID_INPUT', '--renewal-pipeline applies to hubspot only');
      if (provider !== 'google') {
        // A HubSpot public app connects with its client id and secret and the install's refresh token.
        const allowed: readonly string[] = provider === 'hubspot' ? HUBSPOT_OAUTH_FLAGS : [];
        for (const f of GOOGLE_ONLY) {
          if (flags[f] !== undefined && !allowed.includes(f))
            throw new ChsError('INVALID_INPUT', `--${f.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} applies to google only`);
        }
      }
      // --port and --no-browser belong to a consent flow: Google's sign-in, HubSpot's install (a
      // client id, no token). Refused before any secret is read (a token given on the command
      // line or stdin), and again once the environment's are known.
      const opensBrowser = flags.port !== undefined || flags.browser === false;
      const tokenFlag = [flags.accessToken, flags.accessTokenFile, flags.accessTokenStdin, flags.refreshToken, flags.refreshTokenFile, flags.refreshTokenStdin];
      const notInstall = (tokens: unknown[]) => provider === 'hubspot' && (flags.clientId === undefined || tokens.some((t) => t !== undefined));
      const misplaced = () =>
        new ChsError(
          'INVALID_INPUT',
          '--port and --no-browser apply to a google sign-in or a HubSpot install (--client-id and a client secret, no token) only',
        );
      if (opensBrowser && (provider === 'intercom' || notInstall(tokenFlag))) throw misplaced();
      if (flags.subject !== undefined && flags.serviceAccount === undefined) throw new ChsError('INVALID_INPUT', '--subject goes with --service-account');
      const serviceAccount = flags.serviceAccount;
      const secrets =
        serviceAccount !== undefined
          ? {}
          : await readConnectSecrets(
              ctx,
              provider !== 'intercom'
                ? flags
                : {
                    workspace: flags.workspace,
                    accessToken: flags.accessToken,
                    accessTokenFile: flags.accessTokenFile,
                    accessTokenStdin: flags.accessTokenStdin,
                  },
            );
      // HubSpot's settings alone (no token, no app): changed on the connection the workspace has.
      const pipeline = flags.renewalPipeline === undefined ? undefined : flags.renewalPipeline === false ? null : flags.renewalPipeline;
      if (
        pipeline !== undefined &&
        flags.clientId === undefined &&
        [secrets.accessToken, secrets.refreshToken, secrets.clientSecret].every((v) => v === undefined) &&
        !opensBrowser
      ) {
        await withEngine(ctx, cmd, async (engine) => {
          const ws = await requireWorkspace(engine.store.db, flags.workspace);
          const s = await updateHubSpotSettings(engine.store.db, ws.id, { renewalPipelineId: pipeline });
          if (flags.json) printJson(ctx, { provider, workspaceId: ws.id, renewalPipelineId: s.renewalPipelineId });
          else ctx.stdout.write(`${renewalPipelineLine(ws.id, s.renewalPipelineId)}\n`);
        });
        return;
      }
      // No token but an OAuth client: sign in with Google's consent screen (loopback + PKCE), or
      // install the HubSpot app (loopback on localhost).
      const signIn = provider === 'google' && secrets.accessToken === undefined && flags.clientId !== undefined;
      const install = provider === 'hubspot' && !notInstall([secrets.accessToken, secrets.refreshToken]);
      if (opensBrowser && provider === 'hubspot' && !install) throw misplaced();
      const credentials =
        serviceAccount !== undefined
          ? await googleServiceAccount(ctx, cmd, { ...flags, serviceAccount })
          : signIn
            ? await googleSignIn(ctx, cmd, flags, secrets)
            : provider === 'google'
              ? googleCredentials(flags, secrets)
              : install
                ? await hubspotInstall(ctx, cmd, flags, secrets)
                : provider === 'hubspot' && secrets.refreshToken !== undefined
                  ? await hubspotApp(ctx, cmd, flags, secrets)
                  : { accessToken: requireAccessToken(secrets, provider) };
      await withEngine(ctx, cmd, async (engine, config) => {
        const key = () => loadOrCreateSecretKey(config.dataDir, config.secretKey);
        const ws = await requireWorkspace(engine.store.db, flags.workspace);
        const g = provider === 'google' ? (credentials as GoogleCredentials) : undefined;
        const i = await connectIntegration(engine.store.db, key(), {
          workspaceId: ws.id,
          provider,
          credentials,
          accountEmail: g?.email,
          scope: g?.scope,
          expiresAt: (credentials as { expiresAt?: string }).expiresAt,
        });
        // Set with the connection (a reconnect without the flag keeps the pipeline mapped before).
        const settings = pipeline !== undefined ? await updateHubSpotSettings(engine.store.db, ws.id, { renewalPipelineId: pipeline }) : undefined;
        if (flags.json) {
          printJson(ctx, {
            connected: true,
            provider,
            workspaceId: ws.id,
            email: i.accountEmail,
            expiresAt: i.expiresAt,
            hasRefresh: i.hasRefresh,
            lastSyncAt: i.lastSyncAt,
            scope: i.scope,
          });
        } else {
          ctx.stdout.write(
            `Connected ${provider} for ${ws.id}${i.accountEmail ? ` (${i.accountEmail})` : ''}${provider === 'google' && !i.hasRefresh ? '; no refresh token: the connection lasts until the access token expires' : ''}.\n`,
          );
          if (settings) ctx.stdout.write(`${renewalPipelineLine(ws.id, settings.renewalPipelineId)}\n`);
        }
      });
    });

  program
    .command('disconnect')
    .description("revoke a provider connection (Google: at Google's revoke endpoint) and forget its credentials")
    .argument('<provider>', `one of ${PROVIDERS.join(', ')}`)
    .requiredOption('--workspace <domain>', 'workspace domain')
    .option('--account <address>', 'google: disconnect this mailbox only (default: every connected mailbox)')
    .option('--json', 'print {"provider","workspaceId","disconnected","revoked","revokeError"}')
    .action(async (providerArg: string, flags: { workspace: string; account?: string; json?: boolean }, cmd: Command) => {
      const provider = parseProvider(providerArg);
      await withEngine(ctx, cmd, async (engine, config) => {
        const ws = await requireWorkspace(engine.store.db, flags.workspace);
        const key = loadOrCreateSecretKey(config.dataDir, config.secretKey);
        const r = await disconnectAndRevoke(engine.store.db, key, ws.id, provider, { account: flags.account, googleRevokeUrl: config.providers.googleRevoke });
        // Forgotten locally whatever the revoke did; a failed revoke is said, not fatal.
        if (r.revoked === false)
          ctx.stderr.write(`chs: warning: the ${provider} access could not be revoked (${r.revokeError ?? 'unknown'}); remove it in the account's settings\n`);
        if (flags.json) printJson(ctx, r);
        else if (!r.disconnected) ctx.stdout.write(`${provider} was not connected to ${ws.id}.\n`);
        else
          ctx.stdout.write(
            `Disconnected ${provider} from ${ws.id}${r.revoked ? '; its access was revoked' : r.revoked === false ? '; the credentials are forgotten, but the revoke failed' : ''}.\n`,
          );
      });
    });
};

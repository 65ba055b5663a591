/**
 * `chs connect google|hubspot|intercom` and `chs disconnect <provider>`: store (or forget) a
 * workspace's provider credentials, encrypted with the runner's secret key. Tokens are never
 * printed back, and need never be on argv: each secret also comes from `--<name>-file`,
 * `--<name>-stdin` (or `-` as the value) or its CHS_CONNECT_* environment variable.
 */
import type { Command } from 'commander';
import {
  ChsError,
  PROVIDERS,
  connectIntegration,
  disconnectIntegration,
  isProvider,
  loadOrCreateSecretKey,
  requireWorkspace,
  type Engine,
  type GoogleCredentials,
  type Provider,
  type SecretKey,
} from '@chs/core';
import { loadSecretInputs, SECRET_INPUT_ENV } from '../../config.js';
import { printJson, type CliContext } from '../context.js';
import { readSecrets } from '../secret-input.js';
import type { RegisterCommand } from './index.js';

interface ConnectFlags {
  workspace: string;
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
  json?: boolean;
}

/** The secrets of `chs connect`, after reading them from wherever they were given. */
interface ConnectSecrets {
  accessToken: string;
  refreshToken?: string | undefined;
  clientSecret?: string | undefined;
}

const GOOGLE_ONLY = ['email', 'refreshToken', 'refreshTokenFile', 'refreshTokenStdin', 'clientId', 'clientSecret', 'clientSecretFile', 'clientSecretStdin', 'expiresAt', 'scope'] as const;

async function readConnectSecrets(ctx: CliContext, f: ConnectFlags): Promise<ConnectSecrets> {
  const env = loadSecretInputs(ctx.env);
  const s = await readSecrets(ctx, {
    accessToken: { name: 'access-token', envName: SECRET_INPUT_ENV.accessToken, envValue: env.accessToken, value: f.accessToken, file: f.accessTokenFile, stdin: f.accessTokenStdin },
    refreshToken: { name: 'refresh-token', envName: SECRET_INPUT_ENV.refreshToken, envValue: env.refreshToken, value: f.refreshToken, file: f.refreshTokenFile, stdin: f.refreshTokenStdin },
    clientSecret: { name: 'client-secret', envName: SECRET_INPUT_ENV.clientSecret, envValue: env.clientSecret, value: f.clientSecret, file: f.clientSecretFile, stdin: f.clientSecretStdin },
  });
  if (s.accessToken === undefined) {
    throw new ChsError('INVALID_INPUT', `an access token is required: --access-token-file <path>, --access-token-stdin, ${SECRET_INPUT_ENV.accessToken}, or --access-token <token>`);
  }
  return { accessToken: s.accessToken, refreshToken: s.refreshToken, clientSecret: s.clientSecret };
}

async function withEngine<T>(ctx: CliContext, cmd: Command, fn: (engine: Engine, key: () => SecretKey) => Promise<T>): Promise<T> {
  const config = ctx.config(cmd.optsWithGlobals());
  const engine = await ctx.openEngine(config);
  try {
    return await fn(engine, () => loadOrCreateSecretKey(config.dataDir, config.secretKey));
  } finally {
    await engine.close();
  }
}

function parseProvider(value: string): Provider {
  if (!isProvider(value)) throw new ChsError('INVALID_INPUT', `unknown provider "${value}"; one of ${PROVIDERS.join(', ')}`);
  return value;
}

function googleCredentials(f: ConnectFlags, s: ConnectSecrets): GoogleCredentials {
  if (!f.email) throw new ChsError('INVALID_INPUT', 'chs connect google needs --email <account>');
  const refreshParts = [s.refreshToken, f.clientId, s.clientSecret].filter((v) => v !== undefined).length;
  if (refreshParts !== 0 && refreshParts !== 3) {
    throw new ChsError('INVALID_INPUT', 'a refresh token, --client-id and a client secret go together (all three are needed to refresh)');
  }
  if (f.expiresAt !== undefined && Number.isNaN(Date.parse(f.expiresAt))) throw new ChsError('INVALID_INPUT', `--expires-at must be an ISO 8601 time, got "${f.expiresAt}"`);
  return {
    accessToken: s.accessToken,
    email: f.email.toLowerCase(),
    ...(s.refreshToken ? { refreshToken: s.refreshToken, clientId: f.clientId as string, clientSecret: s.clientSecret as string } : {}),
    ...(f.expiresAt ? { expiresAt: new Date(f.expiresAt).toISOString() } : {}),
    ...(f.scope ? { scope: f.scope } : {}),
  };
}

export const register: RegisterCommand = (program, ctx) => {
  program
    .command('connect')
    .description('store provider credentials for a workspace (encrypted at rest)')
    .argument('<provider>', `one of ${PROVIDERS.join(', ')}`)
    .requiredOption('--workspace <domain>', 'workspace domain')
    .option('--access-token <token>', 'Google OAuth access token, HubSpot private-app token or Intercom access token (visible in ps: prefer the next two, or CHS_CONNECT_ACCESS_TOKEN; "-" reads stdin)')
    .option('--access-token-file <path>', 'read the access token from a file ("-": stdin)')
    .option('--access-token-stdin', 'read the access token from stdin')
    .option('--email <account>', 'google: the mailbox address')
    .option('--refresh-token <token>', 'google: OAuth refresh token, with --client-id and a client secret (or --refresh-token-file, --refresh-token-stdin, CHS_CONNECT_REFRESH_TOKEN)')
    .option('--refresh-token-file <path>', 'google: read the refresh token from a file')
    .option('--refresh-token-stdin', 'google: read the refresh token from stdin')
    .option('--client-id <id>', 'google: OAuth client id')
    .option('--client-secret <secret>', 'google: OAuth client secret (or --client-secret-file, --client-secret-stdin, CHS_CONNECT_CLIENT_SECRET)')
    .option('--client-secret-file <path>', 'google: read the client secret from a file')
    .option('--client-secret-stdin', 'google: read the client secret from stdin')
    .option('--expires-at <iso>', 'google: access token expiry (ISO 8601)')
    .option('--scope <scopes>', 'google: granted scopes, space-separated')
    .option('--json', 'print the integration status object')
    .action(async (providerArg: string, flags: ConnectFlags, cmd: Command) => {
      const provider = parseProvider(providerArg);
      if (provider !== 'google') {
        for (const f of GOOGLE_ONLY) {
          if (flags[f] !== undefined) throw new ChsError('INVALID_INPUT', `--${f.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} applies to google only`);
        }
      }
      const secrets = await readConnectSecrets(ctx, provider === 'google' ? flags : { workspace: flags.workspace, accessToken: flags.accessToken, accessTokenFile: flags.accessTokenFile, accessTokenStdin: flags.accessTokenStdin });
      const credentials = provider === 'google' ? googleCredentials(flags, secrets) : { accessToken: secrets.accessToken };
      await withEngine(ctx, cmd, async (engine, key) => {
        const ws = await requireWorkspace(engine.store.db, flags.workspace);
        const g = provider === 'google' ? (credentials as GoogleCredentials) : undefined;
        const i = await connectIntegration(engine.store.db, key(), {
          workspaceId: ws.id,
          provider,
          credentials,
          accountEmail: g?.email,
          scope: g?.scope,
          expiresAt: g?.expiresAt,
        });
        if (flags.json) {
          printJson(ctx, { connected: true, provider, workspaceId: ws.id, email: i.accountEmail, expiresAt: i.expiresAt, hasRefresh: i.hasRefresh, lastSyncAt: i.lastSyncAt, scope: i.scope });
        } else {
          ctx.stdout.write(`Connected ${provider} for ${ws.id}${i.accountEmail ? ` (${i.accountEmail})` : ''}${provider === 'google' && !i.hasRefresh ? '; no refresh token: the connection lasts until the access token expires' : ''}.\n`);
        }
      });
    });

  program
    .command('disconnect')
    .description('forget a provider connection and its credentials')
    .argument('<provider>', `one of ${PROVIDERS.join(', ')}`)
    .requiredOption('--workspace <domain>', 'workspace domain')
    .option('--json', 'print {"disconnected": boolean}')
    .action(async (providerArg: string, flags: { workspace: string; json?: boolean }, cmd: Command) => {
      const provider = parseProvider(providerArg);
      await withEngine(ctx, cmd, async (engine) => {
        const ws = await requireWorkspace(engine.store.db, flags.workspace);
        const gone = await disconnectIntegration(engine.store.db, ws.id, provider);
        if (flags.json) printJson(ctx, { provider, workspaceId: ws.id, disconnected: gone });
        else ctx.stdout.write(gone ? `Disconnected ${provider} from ${ws.id}.\n` : `${provider} was not connected to ${ws.id}.\n`);
      });
    });
};

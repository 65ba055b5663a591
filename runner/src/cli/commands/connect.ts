/**
 * `chs connect google|hubspot|intercom` and `chs disconnect <provider>`: store (or forget) a
 * workspace's provider credentials, encrypted with the runner's secret key. Tokens are never
 * printed back.
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
} from '@chs/core';
import { printJson, type CliContext } from '../context.js';
import type { RegisterCommand } from './index.js';

interface ConnectFlags {
  workspace: string;
  accessToken: string;
  email?: string;
  refreshToken?: string;
  clientId?: string;
  clientSecret?: string;
  expiresAt?: string;
  scope?: string;
  json?: boolean;
}

async function withEngine<T>(ctx: CliContext, cmd: Command, fn: (engine: Engine, key: () => Buffer) => Promise<T>): Promise<T> {
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

function googleCredentials(f: ConnectFlags): GoogleCredentials {
  if (!f.email) throw new ChsError('INVALID_INPUT', 'chs connect google needs --email <account>');
  const refreshParts = [f.refreshToken, f.clientId, f.clientSecret].filter((v) => v !== undefined).length;
  if (refreshParts !== 0 && refreshParts !== 3) {
    throw new ChsError('INVALID_INPUT', '--refresh-token, --client-id and --client-secret go together (all three are needed to refresh)');
  }
  if (f.expiresAt !== undefined && Number.isNaN(Date.parse(f.expiresAt))) throw new ChsError('INVALID_INPUT', `--expires-at must be an ISO 8601 time, got "${f.expiresAt}"`);
  return {
    accessToken: f.accessToken,
    email: f.email.toLowerCase(),
    ...(f.refreshToken ? { refreshToken: f.refreshToken, clientId: f.clientId as string, clientSecret: f.clientSecret as string } : {}),
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
    .requiredOption('--access-token <token>', 'Google OAuth access token, HubSpot private-app token or Intercom access token')
    .option('--email <account>', 'google: the mailbox address')
    .option('--refresh-token <token>', 'google: OAuth refresh token (with --client-id and --client-secret)')
    .option('--client-id <id>', 'google: OAuth client id')
    .option('--client-secret <secret>', 'google: OAuth client secret')
    .option('--expires-at <iso>', 'google: access token expiry (ISO 8601)')
    .option('--scope <scopes>', 'google: granted scopes, space-separated')
    .option('--json', 'print the integration status object')
    .action(async (providerArg: string, flags: ConnectFlags, cmd: Command) => {
      const provider = parseProvider(providerArg);
      if (provider !== 'google') {
        for (const f of ['email', 'refreshToken', 'clientId', 'clientSecret', 'expiresAt', 'scope'] as const) {
          if (flags[f] !== undefined) throw new ChsError('INVALID_INPUT', `--${f.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} applies to google only`);
        }
      }
      const credentials = provider === 'google' ? googleCredentials(flags) : { accessToken: flags.accessToken };
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

/** `chs keys create|list|delete|revoke-all`: API keys without HTTP. */
import type { Command } from 'commander';
import { createApiKey, CREATED_BY_CLI, deleteApiKey, listApiKeys, requireWorkspace, revokeAllApiKeys } from '@chs/core';
import { printJson, withEngine } from '../context.js';
import type { RegisterCommand } from './index.js';
import { writeTable } from '../table.js';

export const register: RegisterCommand = (program, ctx) => {
  const keys = program.command('keys').description('manage API keys');

  keys
    .command('create')
    .description('create an API key for the workspace owner (the full key is printed once)')
    .requiredOption('--workspace <domain>', 'workspace domain')
    .requiredOption('--name <name>', 'a name saying where the key is used')
    .option('--json', 'print {"id","name","key","isActive","createdAt","workspaceId"}')
    .action(async (flags: { workspace: string; name: string; json?: boolean }, cmd: Command) =>
      withEngine(ctx, cmd, async (engine, config) => {
        const ws = await requireWorkspace(engine.store.db, flags.workspace);
        const key = await createApiKey(engine.store.db, {
          workspaceId: ws.id,
          name: flags.name,
          createdBy: CREATED_BY_CLI,
          ...(config.maxApiKeys !== undefined ? { maxActive: config.maxApiKeys } : {}),
        });
        if (flags.json) {
          printJson(ctx, { id: key.id, name: key.name, key: key.key, isActive: key.isActive, createdAt: key.createdAt, workspaceId: ws.id });
        } else {
          ctx.stdout.write(`Created key ${key.id} (${key.name}) for ${ws.id}. Shown once, store it now:\n\n  ${key.key}\n\n`);
        }
      }),
    );

  keys
    .command('list')
    .description('list the workspace’s keys (masked)')
    .requiredOption('--workspace <domain>', 'workspace domain')
    .option('--json', 'print a JSON array of {id,name,key (masked),lastUsedAt,isActive,createdAt,createdBy}')
    .action(async (flags: { workspace: string; json?: boolean }, cmd: Command) =>
      withEngine(ctx, cmd, async (engine) => {
        const ws = await requireWorkspace(engine.store.db, flags.workspace);
        const list = await listApiKeys(engine.store.db, ws.id);
        const rows = list.map((k) => ({
          id: k.id,
          name: k.name,
          key: k.preview,
          lastUsedAt: k.lastUsedAt,
          isActive: k.isActive,
          createdAt: k.createdAt,
          createdBy: k.createdBy,
        }));
        if (flags.json) {
          printJson(ctx, rows);
          return;
        }
        if (rows.length === 0) {
          ctx.stdout.write(`No keys in ${ws.id}.\n`);
          return;
        }
        const table = [
          ['ID', 'NAME', 'KEY', 'ACTIVE', 'LAST USED', 'CREATED', 'CREATED BY'],
          ...rows.map((r) => [r.id, r.name, r.key, r.isActive ? 'yes' : 'no', r.lastUsedAt ?? 'never', r.createdAt, r.createdBy ?? 'unknown']),
        ];
        writeTable(ctx, table);
      }),
    );

  keys
    .command('delete')
    .description('delete an API key for good; requests with it are refused at once')
    .requiredOption('--workspace <domain>', 'workspace domain')
    .requiredOption('--id <keyId>', 'the key id (from chs keys list)')
    .action(async (flags: { workspace: string; id: string }, cmd: Command) =>
      withEngine(ctx, cmd, async (engine) => {
        const ws = await requireWorkspace(engine.store.db, flags.workspace);
        await deleteApiKey(engine.store.db, ws.id, flags.id);
        ctx.stdout.write(`Deleted key ${flags.id} from ${ws.id}.\n`);
      }),
    );

  keys
    .command('revoke-all')
    .description('revoke every active key of the workspace at once (a leak): each is refused at once by every runner and stays listed as inactive')
    .requiredOption('--workspace <domain>', 'workspace domain')
    .option('--json', 'print {"workspaceId","revoked":[keyId,…]}')
    .action(async (flags: { workspace: string; json?: boolean }, cmd: Command) =>
      withEngine(ctx, cmd, async (engine) => {
        const ws = await requireWorkspace(engine.store.db, flags.workspace);
        const revoked = await revokeAllApiKeys(engine.store.db, ws.id);
        if (flags.json) {
          printJson(ctx, { workspaceId: ws.id, revoked });
          return;
        }
        ctx.stdout.write(
          `Revoked ${revoked.length} key${revoked.length === 1 ? '' : 's'} of ${ws.id}${revoked.length > 0 ? `: ${revoked.join(', ')}` : ''}.\n`,
        );
        ctx.stdout.write(`Make a new one with: chs keys create --workspace ${ws.id} --name <name>\n`);
      }),
    );
};

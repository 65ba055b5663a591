/** `chs keys create|list|delete`: API keys without HTTP. */
import type { Command } from 'commander';
import { createApiKey, deleteApiKey, listApiKeys, requireWorkspace, type Engine } from '@chs/core';
import { printJson, type CliContext } from '../context.js';
import type { RegisterCommand } from './index.js';

async function withEngine<T>(ctx: CliContext, cmd: Command, fn: (engine: Engine) => Promise<T>): Promise<T> {
  const engine = await ctx.openEngine(ctx.config(cmd.optsWithGlobals()));
  try {
    return await fn(engine);
  } finally {
    await engine.close();
  }
}

export const register: RegisterCommand = (program, ctx) => {
  const keys = program.command('keys').description('manage API keys');

  keys
    .command('create')
    .description('create an API key for the workspace owner (the full key is printed once)')
    .requiredOption('--workspace <domain>', 'workspace domain')
    .requiredOption('--name <name>', 'a name saying where the key is used')
    .option('--json', 'print {"id","name","key","isActive","createdAt","workspaceId"}')
    .action(async (flags: { workspace: string; name: string; json?: boolean }, cmd: Command) =>
      withEngine(ctx, cmd, async (engine) => {
        const ws = await requireWorkspace(engine.store.db, flags.workspace);
        const key = await createApiKey(engine.store.db, { workspaceId: ws.id, name: flags.name });
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
    .option('--json', 'print a JSON array of {id,name,key (masked),lastUsedAt,isActive,createdAt}')
    .action(async (flags: { workspace: string; json?: boolean }, cmd: Command) =>
      withEngine(ctx, cmd, async (engine) => {
        const ws = await requireWorkspace(engine.store.db, flags.workspace);
        const list = await listApiKeys(engine.store.db, ws.id);
        const rows = list.map((k) => ({ id: k.id, name: k.name, key: k.preview, lastUsedAt: k.lastUsedAt, isActive: k.isActive, createdAt: k.createdAt }));
        if (flags.json) {
          printJson(ctx, rows);
          return;
        }
        if (rows.length === 0) {
          ctx.stdout.write(`No keys in ${ws.id}.\n`);
          return;
        }
        const table = [['ID', 'NAME', 'KEY', 'ACTIVE', 'LAST USED', 'CREATED'], ...rows.map((r) => [r.id, r.name, r.key, r.isActive ? 'yes' : 'no', r.lastUsedAt ?? 'never', r.createdAt])];
        const widths = table[0]!.map((_, i) => Math.max(...table.map((row) => row[i]!.length)));
        for (const row of table) ctx.stdout.write(`${row.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd()}\n`);
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
};

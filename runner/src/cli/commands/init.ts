/** `chs init`: a workspace, its owner and a first API key, printed once. */
import type { Command } from 'commander';
import { createWorkspace } from '@chs/core';
import { printJson, type CliContext } from '../context.js';
import type { RegisterCommand } from './index.js';

interface InitFlags {
  workspace: string;
  name: string;
  ownerEmail: string;
  ownerName?: string;
  json?: boolean;
}

async function run(ctx: CliContext, cmd: Command, flags: InitFlags): Promise<void> {
  const config = ctx.config(cmd.optsWithGlobals());
  const engine = await ctx.openEngine(config);
  try {
    const created = await createWorkspace(engine.store.db, {
      domain: flags.workspace,
      name: flags.name,
      ownerEmail: flags.ownerEmail,
      ...(flags.ownerName !== undefined ? { ownerName: flags.ownerName } : {}),
    });
    const id = created.workspace.id;
    if (flags.json) {
      printJson(ctx, { workspaceId: id, apiKey: created.apiKey.key });
      return;
    }
    ctx.stdout.write(
      `Created workspace ${id} (${created.workspace.name}) with owner ${created.owner.email}, in ${engine.store.location}.\n` +
        `API key — shown once, store it now:\n\n  ${created.apiKey.key}\n\n` +
        `Next: chs serve, then\n  curl -H "Authorization: Bearer ${created.apiKey.key}" "http://127.0.0.1:8080/api/settings?workspaceId=${id}"\n`,
    );
  } finally {
    await engine.close();
  }
}

export const register: RegisterCommand = (program, ctx) => {
  program
    .command('init')
    .description('create a workspace, its owner user and a first API key (the key is printed once)')
    .requiredOption('--workspace <domain>', 'the workspace’s own domain, e.g. acme.com')
    .requiredOption('--name <name>', 'the workspace’s display name')
    .requiredOption('--owner-email <email>', 'the owner’s e-mail address')
    .option('--owner-name <name>', 'the owner’s name (default: the address’s local part)')
    .option('--json', 'print {"workspaceId","apiKey"} only')
    .action(async (flags: InitFlags, cmd: Command) => run(ctx, cmd, flags));
};

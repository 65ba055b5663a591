/**
 * `chs profile show|confirm-email`: the owner's confirmed and pending address, and the
 * confirmation of a new one with the token mailed to it (PUT /settings profile.email sends it).
 * The token is read from stdin (one line), never from argv: a command line is visible to every
 * user of the machine (`ps`) and kept in shell history.
 */
import { createInterface } from 'node:readline';
import type { Command } from 'commander';
import { ChsError, confirmEmailChange, getOwner, requireWorkspace } from '@chs/core';
import { printJson, withEngine, type CliContext } from '../context.js';
import type { RegisterCommand } from './index.js';

/** The first non-empty line of stdin (at most 1 KiB read per line), or INVALID_INPUT. */
async function readTokenLine(ctx: CliContext): Promise<string> {
  if ((ctx.stdin as { isTTY?: boolean }).isTTY) ctx.stderr.write('Paste the token from the confirmation e-mail, then Enter:\n');
  const lines = createInterface({ input: ctx.stdin, crlfDelay: Infinity, terminal: false });
  try {
    for await (const line of lines) {
      const t = line.trim();
      if (t !== '') return t.slice(0, 1024);
    }
  } finally {
    lines.close();
  }
  throw new ChsError('INVALID_INPUT', 'no token on stdin (echo <token> | chs profile confirm-email --workspace <domain>)');
}

export const register: RegisterCommand = (program, ctx) => {
  const profile = program.command('profile').description("the workspace owner's address (alerts and digests go there)");

  profile
    .command('show')
    .description("print the owner's confirmed address and the one waiting for confirmation, if any")
    .requiredOption('--workspace <domain>', 'workspace domain')
    .option('--json', 'print {"workspaceId","email","pendingEmail","pendingEmailExpiresAt"}')
    .action(async (flags: { workspace: string; json?: boolean }, cmd: Command) =>
      withEngine(ctx, cmd, async (engine) => {
        const ws = await requireWorkspace(engine.store.db, flags.workspace);
        const owner = await getOwner(engine.store.db, ws.id);
        if (!owner) throw new ChsError('NOT_FOUND', `workspace ${ws.id} has no owner`);
        if (flags.json) {
          printJson(ctx, { workspaceId: ws.id, email: owner.email, pendingEmail: owner.pendingEmail, pendingEmailExpiresAt: owner.pendingEmailExpiresAt });
          return;
        }
        ctx.stdout.write(`${ws.id}: ${owner.email}${owner.pendingEmail ? ` (pending: ${owner.pendingEmail} until ${owner.pendingEmailExpiresAt})` : ''}\n`);
      }),
    );

  profile
    .command('confirm-email')
    .description('confirm a new address with the token mailed to it, read from stdin: echo <token> | chs profile confirm-email --workspace <d>')
    .requiredOption('--workspace <domain>', 'workspace domain')
    .option('--json', 'print {"workspaceId","email"}')
    .action(async (flags: { workspace: string; json?: boolean }, cmd: Command) => {
      const token = await readTokenLine(ctx);
      await withEngine(ctx, cmd, async (engine) => {
        const ws = await requireWorkspace(engine.store.db, flags.workspace);
        const user = await confirmEmailChange(engine.store.db, ws.id, token);
        if (flags.json) printJson(ctx, { workspaceId: ws.id, email: user.email });
        else ctx.stdout.write(`Confirmed: alerts and digests for ${ws.id} now go to ${user.email}.\n`);
      });
    });
};

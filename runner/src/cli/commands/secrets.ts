/**
 * `chs secrets rotate`: re-seals every stored provider credential and webhook signing secret under
 * a new secret key, in one transaction (and upgrades values of the legacy v1 format). The procedure is in the README ("Secret key and
 * rotation").
 *
 * - CHS_SECRET_KEY set: the new key comes from --new-key-file, --new-key-stdin or
 *   CHS_NEW_SECRET_KEY; afterwards set CHS_SECRET_KEY to it and restart every runner.
 * - The generated key file (no CHS_SECRET_KEY): the new key (given, or else random) is written to
 *   `secret.key.new` first, the rows are re-sealed in one transaction, then the new file is
 *   renamed over `secret.key`. A run interrupted in between is finished by running it again (it
 *   takes up `secret.key.new`; rows already under the new key are left alone).
 */
import { chmodSync, existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { ChsError, generateSecretKeyText, loadOrCreateSecretKey, parseSecretKey, rotateIntegrationSecrets, SECRET_KEY_FILE } from '@chs/core';
import { loadSecretInputs, SECRET_INPUT_ENV } from '../../config.js';
import { printJson, type CliContext } from '../context.js';
import { readSecrets } from '../secret-input.js';
import type { RegisterCommand } from './index.js';

interface RotateFlags {
  newKeyFile?: string;
  newKeyStdin?: boolean;
  keepKey?: boolean;
  json?: boolean;
}

async function rotate(ctx: CliContext, cmd: Command, flags: RotateFlags): Promise<void> {
  const config = ctx.config(cmd.optsWithGlobals());
  const given = await readSecrets(ctx, {
    newKey: {
      name: 'new-key',
      envName: SECRET_INPUT_ENV.newSecretKey,
      envValue: loadSecretInputs(ctx.env).newSecretKey,
      file: flags.newKeyFile,
      stdin: flags.newKeyStdin,
    },
  });
  if (flags.keepKey && given.newKey !== undefined) throw new ChsError('INVALID_INPUT', '--keep-key re-seals under the current key: give no new key with it');
  const oldKey = loadOrCreateSecretKey(config.dataDir, config.secretKey);
  const keyFile = join(config.dataDir, SECRET_KEY_FILE);
  const pendingFile = `${keyFile}.new`;
  // Without CHS_SECRET_KEY the runners read the key file: the new key goes there, made durable
  // (secret.key.new) before any row depends on it.
  const writesKeyFile = config.secretKey === undefined && !flags.keepKey;
  let newText = given.newKey;
  if (writesKeyFile) newText ??= existsSync(pendingFile) ? readFileSync(pendingFile, 'utf8').trim() : generateSecretKeyText();
  if (newText === undefined && !flags.keepKey) {
    throw new ChsError(
      'INVALID_INPUT',
      `CHS_SECRET_KEY is set: give the new key with --new-key-file <path>, --new-key-stdin or ${SECRET_INPUT_ENV.newSecretKey} (or --keep-key to re-seal under the current one)`,
    );
  }
  const newKey = newText === undefined ? oldKey : parseSecretKey(newText);
  if (!flags.keepKey && newKey.equals(oldKey))
    throw new ChsError('INVALID_INPUT', 'the new key is the current key; use --keep-key to re-seal under the same key');
  if (writesKeyFile) {
    writeFileSync(pendingFile, `${newText}\n`, { mode: 0o600 });
    chmodSync(pendingFile, 0o600);
  }

  const engine = await ctx.openEngine(config);
  let result;
  try {
    result = await rotateIntegrationSecrets(engine.store.db, oldKey, newKey);
  } finally {
    await engine.close();
  }
  if (writesKeyFile) renameSync(pendingFile, keyFile);

  if (flags.json) {
    printJson(ctx, { ...result, ...(writesKeyFile ? { keyFile } : {}) });
    return;
  }
  ctx.stdout.write(
    `Re-sealed ${result.resealed} of ${result.rows} stored credentials (${result.upgradedFromV1} from the old v1 format); ${result.alreadyCurrent} were already under the new key.\n` +
      (result.webhookSecrets > 0
        ? `Re-sealed ${result.webhookSecrets} webhook signing secret${result.webhookSecrets === 1 ? '' : 's'} (receivers keep the same secrets).\n`
        : '') +
      (writesKeyFile
        ? `The new key is in ${keyFile}; restart every runner that uses it.\n`
        : flags.keepKey
          ? ''
          : 'Now set CHS_SECRET_KEY to the new key and restart every runner.\n'),
  );
}

export const register: RegisterCommand = (program, ctx) => {
  const secrets = program.command('secrets').description('manage the key that encrypts stored provider credentials');
  secrets
    .command('rotate')
    .description('re-encrypt every stored provider credential and webhook signing secret under a new key (one transaction; safe to run again)')
    .option(
      '--new-key-file <path>',
      `the new key (64 hex, base64 of 32 bytes, or a passphrase of ≥ 32 characters) from a file ("-": stdin); or ${SECRET_INPUT_ENV.newSecretKey}`,
    )
    .option('--new-key-stdin', 'read the new key from stdin')
    .option('--keep-key', 're-seal under the current key (upgrades values of the old format)')
    .option('--json', 'print {"rows","resealed","upgradedFromV1","alreadyCurrent","webhookSecrets","keyFile"?}')
    .action(async (flags: RotateFlags, cmd: Command) => rotate(ctx, cmd, flags));
};

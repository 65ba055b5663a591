/**
 * Secrets a command takes (provider tokens, a new secret key) without putting them on argv: from a
 * file, from stdin, or from an environment variable. The argv form keeps working (it is a pinned
 * contract) with a warning, since argv is visible in `ps` and kept in shell history.
 */
import { readFileSync, statSync } from 'node:fs';
import { ChsError } from '@chs/core';
import type { CliContext } from './context.js';
import { looseModeWarning } from './file-modes.js';

/** Longest secret read from a file or stdin: tokens are a few kB at most. */
const MAX_SECRET_BYTES = 64 * 1024;

/** The ways one secret can be given. `-` as the value or the file means stdin. */
export interface SecretFlags {
  /** `--<name> <value>` (argv: warned about). */
  value?: string | undefined;
  /** `--<name>-file <path>`. */
  file?: string | undefined;
  /** `--<name>-stdin`. */
  stdin?: boolean | undefined;
}

export interface SecretSpec {
  /** Flag name without dashes, e.g. `access-token`. */
  name: string;
  /** Environment variable read when no flag gives it, e.g. CHS_CONNECT_ACCESS_TOKEN. */
  envName: string;
  envValue: string | undefined;
}

function clean(text: string, from: string): string {
  const v = text.trim();
  if (v === '') throw new ChsError('INVALID_INPUT', `${from} is empty`);
  if (/[\r\n]/.test(v)) throw new ChsError('INVALID_INPUT', `${from} holds more than one line; put only the secret in it`);
  return v;
}

async function readStdin(ctx: CliContext, from: string): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.stdin) {
    const b = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    size += b.length;
    if (size > MAX_SECRET_BYTES) throw new ChsError('INVALID_INPUT', `${from}: more than ${MAX_SECRET_BYTES} bytes on stdin`);
    chunks.push(b);
  }
  return clean(Buffer.concat(chunks).toString('utf8'), from);
}

function readSecretFile(ctx: CliContext, path: string, from: string): string {
  let size: number;
  try {
    size = statSync(path).size;
  } catch (err) {
    throw new ChsError('INVALID_INPUT', `${from}: cannot read ${path} (${(err as NodeJS.ErrnoException).code ?? 'error'})`, { cause: err });
  }
  if (size > MAX_SECRET_BYTES) throw new ChsError('INVALID_INPUT', `${from}: ${path} is over ${MAX_SECRET_BYTES} bytes; it should hold only the secret`);
  const warning = looseModeWarning(path);
  if (warning) ctx.stderr.write(`chs: warning: ${warning}\n`);
  return clean(readFileSync(path, 'utf8'), from);
}

/**
 * Reads the secrets of one command. At most one way per secret, and at most one secret from
 * stdin; a flag given wins over the environment variable. Resolves to undefined for a secret given
 * no way at all.
 */
export async function readSecrets<K extends string>(ctx: CliContext, specs: Record<K, SecretSpec & SecretFlags>): Promise<Record<K, string | undefined>> {
  const names = Object.keys(specs) as K[];
  const fromStdin = names.filter((k) => specs[k].stdin || specs[k].value === '-' || specs[k].file === '-');
  if (fromStdin.length > 1) {
    throw new ChsError(
      'INVALID_INPUT',
      `only one secret can be read from stdin; give the others with --<name>-file or the environment (${fromStdin.map((k) => specs[k].name).join(', ')})`,
    );
  }
  const out = {} as Record<K, string | undefined>;
  for (const k of names) {
    const s = specs[k];
    const given = [s.value !== undefined, s.file !== undefined, s.stdin === true].filter(Boolean).length;
    if (given > 1) throw new ChsError('INVALID_INPUT', `give --${s.name} one way only: --${s.name} <value>, --${s.name}-file <path> or --${s.name}-stdin`);
    if (s.stdin || s.value === '-' || s.file === '-') {
      out[k] = await readStdin(ctx, `--${s.name}${s.stdin ? '-stdin' : s.file === '-' ? '-file -' : ' -'}`);
    } else if (s.file !== undefined) {
      out[k] = readSecretFile(ctx, s.file, `--${s.name}-file`);
    } else if (s.value !== undefined) {
      ctx.stderr.write(
        `chs: warning: --${s.name} on the command line is visible to other users in \`ps\` and stays in your shell history; ` +
          `use --${s.name}-file <path>, --${s.name}-stdin or ${s.envName} instead\n`,
      );
      out[k] = clean(s.value, `--${s.name}`);
    } else if (s.envValue !== undefined) {
      out[k] = clean(s.envValue, s.envName);
    } else {
      out[k] = undefined;
    }
  }
  return out;
}

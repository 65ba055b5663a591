/**
 * Credentials at rest: AES-256-GCM under a key derived per sealed value, bound to the row it
 * belongs to. The caller supplies the root secret (the runner takes CHS_SECRET_KEY, else a
 * generated key file in its data folder: `loadOrCreateSecretKey`).
 *
 * Format v2 (written): `v2.<binding>.<kdf>.<salt>.<iv>.<tag>.<ciphertext>`, each part base64url
 * except `kdf`:
 * - `binding`: `<workspaceId>\0<provider>` — also the GCM additional data, so a value copied into
 *   another workspace's or provider's row fails (CREDENTIALS_UNREADABLE, reason `binding`).
 * - `kdf`: `raw` when the root secret is 32 random bytes; `scrypt-<salt>` when it is a passphrase,
 *   stretched with scrypt (N=2^15, r=8, p=1) and that salt (one per process, so a process pays
 *   the ~100 ms of scrypt once, not per value).
 * - `salt`: 16 random bytes per value; the value's AES key is HKDF-SHA256(root, salt).
 * Format v1 (read only, from earlier versions): `v1.<iv>.<tag>.<ciphertext>` under the raw key or
 * SHA-256 of the passphrase, unbound. It is re-sealed as v2 on the next write of the row, or by
 * `rotateIntegrationSecrets` (`chs secrets rotate`).
 */
import { createCipheriv, createDecipheriv, createHash, hkdf, randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { ChsError } from '../errors.js';

export const SECRET_KEY_FILE = 'secret.key';
const KEY_BYTES = 32;
const IV_BYTES = 12;
const SALT_BYTES = 16;
const SCRYPT = { N: 2 ** 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 } as const;
const HKDF_INFO = 'chs/credentials/v2';

/** What a sealed value is bound to: the integrations row it may be read from. */
export interface SecretBinding {
  workspaceId: string;
  provider: string;
}

/** Why stored credentials could not be read (`details.reason` of CREDENTIALS_UNREADABLE). */
export type UnreadableReason = 'key' | 'binding' | 'format';

function unreadable(reason: UnreadableReason, message: string, binding: SecretBinding, cause?: unknown): ChsError {
  return new ChsError('CREDENTIALS_UNREADABLE', message, {
    details: { reason, workspaceId: binding.workspaceId, provider: binding.provider },
    ...(cause !== undefined ? { cause } : {}),
  });
}

function scryptAsync(passphrase: string, salt: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => scrypt(passphrase, salt, KEY_BYTES, SCRYPT, (err, key) => (err ? reject(err) : resolve(key))));
}

function hkdfAsync(root: Buffer, salt: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => hkdf('sha256', root, salt, HKDF_INFO, KEY_BYTES, (err, key) => (err ? reject(err) : resolve(Buffer.from(key)))));
}

/**
 * Stretched passphrases, shared by every SecretKey of this process: `sha256(passphrase)/salt` →
 * scrypt output. Bounded; a process meets a handful of salts (one per process that wrote a value).
 */
const stretched = new Map<string, Promise<Buffer>>();
const STRETCHED_MAX = 64;
/** The scrypt salt this process seals with, per passphrase (by its hash). */
const sealingSalts = new Map<string, Buffer>();

/**
 * The root secret that seals provider credentials: 32 random bytes, or a passphrase of at least
 * 32 characters. Never printed: `inspect`, `toString` and `toJSON` show `[SecretKey]`.
 */
export class SecretKey {
  readonly #raw: Buffer | undefined;
  readonly #passphrase: string | undefined;
  readonly #id: string;

  private constructor(raw: Buffer | undefined, passphrase: string | undefined) {
    this.#raw = raw;
    this.#passphrase = passphrase;
    this.#id = createHash('sha256')
      .update(raw ?? Buffer.from(passphrase ?? '', 'utf8'))
      .digest('hex');
  }

  static fromBytes(key: Buffer): SecretKey {
    if (key.length !== KEY_BYTES) throw new ChsError('INVALID_INPUT', `the secret key must be ${KEY_BYTES} bytes, got ${key.length}`);
    return new SecretKey(Buffer.from(key), undefined);
  }

  static fromPassphrase(passphrase: string): SecretKey {
    if (passphrase.length < 32) throw new ChsError('INVALID_INPUT', 'a passphrase must be at least 32 characters');
    return new SecretKey(undefined, passphrase);
  }

  get kind(): 'bytes' | 'passphrase' {
    return this.#raw ? 'bytes' : 'passphrase';
  }

  /** Whether both hold the same secret (rotation refuses a "new" key equal to the old one). */
  equals(other: SecretKey): boolean {
    return timingSafeEqual(Buffer.from(this.#id, 'hex'), Buffer.from(other.#id, 'hex'));
  }

  /** The v1 key: the bytes, or the single unsalted SHA-256 of the passphrase earlier versions used. */
  legacyKey(): Buffer {
    return (
      this.#raw ??
      createHash('sha256')
        .update(this.#passphrase ?? '', 'utf8')
        .digest()
    );
  }

  /** The `kdf` field this key seals with. */
  sealingKdf(): string {
    if (this.#raw) return 'raw';
    let salt = sealingSalts.get(this.#id);
    if (!salt) {
      salt = randomBytes(SALT_BYTES);
      sealingSalts.set(this.#id, salt);
    }
    return `scrypt-${salt.toString('base64url')}`;
  }

  /** The root for a `kdf` field, or undefined when this key is of the other kind. */
  root(kdf: string): Promise<Buffer> | undefined {
    if (kdf === 'raw') return this.#raw ? Promise.resolve(this.#raw) : undefined;
    if (!kdf.startsWith('scrypt-') || this.#passphrase === undefined) return undefined;
    const cacheKey = `${this.#id}/${kdf}`;
    let p = stretched.get(cacheKey);
    if (!p) {
      if (stretched.size >= STRETCHED_MAX) stretched.delete(stretched.keys().next().value as string);
      p = scryptAsync(this.#passphrase, Buffer.from(kdf.slice('scrypt-'.length), 'base64url'));
      p.catch(() => stretched.delete(cacheKey));
      stretched.set(cacheKey, p);
    }
    return p;
  }

  toString(): string {
    return '[SecretKey]';
  }

  toJSON(): string {
    return '[SecretKey]';
  }

  [inspect.custom](): string {
    return '[SecretKey]';
  }
}

/** A key as callers give it: a SecretKey, or 32 raw bytes. */
export type SecretKeyInput = SecretKey | Buffer;

export function toSecretKey(key: SecretKeyInput): SecretKey {
  return key instanceof SecretKey ? key : SecretKey.fromBytes(key);
}

function bindingBytes(b: SecretBinding): Buffer {
  return Buffer.from(`${b.workspaceId}\u0000${b.provider}`, 'utf8');
}

function aad(b: SecretBinding): Buffer {
  return Buffer.concat([Buffer.from('v2\u0000', 'utf8'), bindingBytes(b)]);
}

/** The format version of a sealed value: `v1` (legacy, unbound), `v2`, or undefined when it is neither. */
export function sealedVersion(sealed: string): 'v1' | 'v2' | undefined {
  const v = sealed.slice(0, 3);
  return v === 'v1.' ? 'v1' : v === 'v2.' ? 'v2' : undefined;
}

/** Seals `plaintext` for one integrations row (format v2). */
export async function encryptSecret(key: SecretKeyInput, plaintext: string, binding: SecretBinding): Promise<string> {
  const k = toSecretKey(key);
  const kdf = k.sealingKdf();
  const salt = randomBytes(SALT_BYTES);
  const dataKey = await hkdfAsync(await (k.root(kdf) as Promise<Buffer>), salt);
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', dataKey, iv);
  cipher.setAAD(aad(binding));
  const ct = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  const b64 = (b: Buffer) => b.toString('base64url');
  return ['v2', b64(bindingBytes(binding)), kdf, b64(salt), b64(iv), b64(cipher.getAuthTag()), b64(ct)].join('.');
}

function open(key: Buffer, iv: string, tag: string, ct: string, additional?: Buffer): string {
  const d = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
  if (additional) d.setAAD(additional);
  d.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([d.update(Buffer.from(ct, 'base64url')), d.final()]).toString('utf8');
}

/**
 * Opens a value sealed for `binding` (v2, or legacy v1). CREDENTIALS_UNREADABLE with
 * `details.reason`: `binding` (the value belongs to another workspace or provider), `key` (wrong
 * key, or the value was altered), `format` (not a sealed value). Nothing secret is echoed.
 */
export async function decryptSecret(key: SecretKeyInput, sealed: string, binding: SecretBinding): Promise<string> {
  const k = toSecretKey(key);
  const where = `${binding.provider} credentials of workspace ${binding.workspaceId}`;
  const wrongKey = (cause?: unknown) =>
    unreadable('key', `cannot decrypt the stored ${where}: wrong CHS_SECRET_KEY (or secret.key), or the stored value was altered`, binding, cause);
  const parts = sealed.split('.');
  if (parts[0] === 'v1' && parts.length === 4) {
    const [, iv, tag, ct] = parts as [string, string, string, string];
    try {
      return open(k.legacyKey(), iv, tag, ct);
    } catch (err) {
      throw wrongKey(err);
    }
  }
  if (parts[0] !== 'v2' || parts.length !== 7) throw unreadable('format', `the stored ${where} are not in a known format`, binding);
  const [, boundTo, kdf, salt, iv, tag, ct] = parts as [string, string, string, string, string, string, string];
  if (!Buffer.from(boundTo, 'base64url').equals(bindingBytes(binding))) {
    const [ws, provider] = Buffer.from(boundTo, 'base64url').toString('utf8').split('\u0000');
    throw unreadable(
      'binding',
      `the stored ${where} were sealed for ${provider ?? '?'} of workspace ${ws ?? '?'}: a value copied from another row is refused; connect the provider again (chs connect)`,
      binding,
    );
  }
  const root = k.root(kdf);
  if (!root) {
    const sealedWith = kdf === 'raw' ? 'a 32-byte key' : 'a passphrase';
    throw unreadable(
      'key',
      `cannot decrypt the stored ${where}: they were sealed with ${sealedWith}, and the key given is ${k.kind === 'bytes' ? 'a 32-byte key' : 'a passphrase'}`,
      binding,
    );
  }
  try {
    return open(await hkdfAsync(await root, Buffer.from(salt, 'base64url')), iv, tag, ct, aad(binding));
  } catch (err) {
    throw wrongKey(err);
  }
}

/**
 * A key given as 64 hex characters or as base64 / base64url of 32 bytes; any other value of at
 * least 32 characters is a passphrase (stretched with scrypt and a salt when it seals).
 */
export function parseSecretKey(value: string): SecretKey {
  const v = value.trim();
  if (/^[0-9a-fA-F]{64}$/.test(v)) return SecretKey.fromBytes(Buffer.from(v, 'hex'));
  if (/^[A-Za-z0-9+/_-]{43}=?$/.test(v)) {
    const key = Buffer.from(v, v.includes('-') || v.includes('_') ? 'base64url' : 'base64');
    if (key.length === KEY_BYTES) return SecretKey.fromBytes(key);
  }
  if (v.length >= 32) return SecretKey.fromPassphrase(v);
  throw new ChsError(
    'INVALID_INPUT',
    'CHS_SECRET_KEY must be 64 hex characters, base64 of 32 bytes (`openssl rand -base64 32`), or a passphrase of at least 32 characters',
  );
}

/** A new random key as the key file holds it (base64 of 32 bytes). */
export function generateSecretKeyText(): string {
  return randomBytes(KEY_BYTES).toString('base64');
}

/**
 * The key from `envValue` when given; else the key file in `dataDir`, created (0600, in a 0700
 * folder when it creates the folder) with 32 random bytes on first use.
 */
export function loadOrCreateSecretKey(dataDir: string, envValue?: string): SecretKey {
  if (envValue !== undefined && envValue !== '') return parseSecretKey(envValue);
  const file = join(dataDir, SECRET_KEY_FILE);
  try {
    return parseSecretKey(readFileSync(file, 'utf8'));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const text = generateSecretKeyText();
  try {
    // `wx`: two processes starting at once must not overwrite each other's key.
    writeFileSync(file, `${text}\n`, { mode: 0o600, flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return parseSecretKey(readFileSync(file, 'utf8'));
    throw err;
  }
  // The umask may have narrowed the mode further, never widened it; make it exact.
  if ((statSync(file).mode & 0o777) !== 0o600) chmodSync(file, 0o600);
  return parseSecretKey(text);
}

/**
 * Replaces the key file's content atomically (a 0600 temporary file renamed over it), for key
 * rotation. The old file is gone only once the new one is in place.
 */
export function replaceSecretKeyFile(dataDir: string, text: string): void {
  const file = join(dataDir, SECRET_KEY_FILE);
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, `${text.trim()}\n`, { mode: 0o600, flag: 'wx' });
  chmodSync(tmp, 0o600);
  renameSync(tmp, file);
}

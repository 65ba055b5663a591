/**
 * Credentials at rest: AES-256-GCM with a 32-byte key the caller supplies (the runner takes
 * CHS_SECRET_KEY, else a generated key file in its data folder: `loadOrCreateSecretKey`).
 * Format of a sealed value: `v1.<iv>.<tag>.<ciphertext>`, each part base64url.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ChsError } from '../errors.js';

export const SECRET_KEY_FILE = 'secret.key';
const KEY_BYTES = 32;
const IV_BYTES = 12;

function checkKey(key: Buffer): void {
  if (key.length !== KEY_BYTES) throw new ChsError('INVALID_INPUT', `the secret key must be ${KEY_BYTES} bytes, got ${key.length}`);
}

export function encryptSecret(key: Buffer, plaintext: string): string {
  checkKey(key);
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const ct = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return ['v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), ct.toString('base64url')].join('.');
}

export function decryptSecret(key: Buffer, sealed: string): string {
  checkKey(key);
  const [v, iv, tag, ct] = sealed.split('.');
  if (v !== 'v1' || iv === undefined || tag === undefined || ct === undefined) throw new ChsError('INVALID_INPUT', 'not a sealed secret');
  try {
    const d = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
    d.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([d.update(Buffer.from(ct, 'base64url')), d.final()]).toString('utf8');
  } catch (err) {
    // Wrong key or tampered value: say so without echoing anything secret.
    throw new ChsError('INTERNAL', 'cannot decrypt stored credentials (wrong CHS_SECRET_KEY or corrupted value)', { cause: err });
  }
}

/**
 * A key given as 64 hex characters or as base64 / base64url of 32 bytes; any other value of at
 * least 32 characters is taken as a passphrase and hashed (SHA-256) to a key.
 */
export function parseSecretKey(value: string): Buffer {
  const v = value.trim();
  if (/^[0-9a-fA-F]{64}$/.test(v)) return Buffer.from(v, 'hex');
  if (/^[A-Za-z0-9+/_-]{43}=?$/.test(v)) {
    const key = Buffer.from(v, v.includes('-') || v.includes('_') ? 'base64url' : 'base64');
    if (key.length === KEY_BYTES) return key;
  }
  if (v.length >= 32) return createHash('sha256').update(v, 'utf8').digest();
  throw new ChsError('INVALID_INPUT', 'CHS_SECRET_KEY must be 64 hex characters, base64 of 32 bytes (`openssl rand -base64 32`), or a passphrase of at least 32 characters');
}

/**
 * The key from `envValue` when given; else the key file in `dataDir`, created (0600) with 32
 * random bytes on first use.
 */
export function loadOrCreateSecretKey(dataDir: string, envValue?: string): Buffer {
  if (envValue !== undefined && envValue !== '') return parseSecretKey(envValue);
  const file = join(dataDir, SECRET_KEY_FILE);
  try {
    return parseSecretKey(readFileSync(file, 'utf8'));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  mkdirSync(dataDir, { recursive: true });
  const key = randomBytes(KEY_BYTES);
  try {
    // `wx`: two processes starting at once must not overwrite each other's key.
    writeFileSync(file, `${key.toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return parseSecretKey(readFileSync(file, 'utf8'));
    throw err;
  }
  // The umask may have narrowed the mode further, never widened it; make it exact.
  if ((statSync(file).mode & 0o777) !== 0o600) chmodSync(file, 0o600);
  return key;
}

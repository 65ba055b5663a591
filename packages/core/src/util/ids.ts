import { createHash, randomBytes } from 'node:crypto';

/** A new random id with a readable prefix, e.g. `cl_3f9a…`. */
export function newId(prefix: string): string {
  return `${prefix}_${randomBytes(12).toString('base64url')}`;
}

export function sha256Hex(input: string | Buffer): string {
  return createHash('sha256').update(input).digest('hex');
}

import { createHash, randomFillSync } from 'node:crypto';

/** Random bytes drawn 4 KiB at a time (as crypto.randomUUID does): one call per 341 ids, not one per id. */
const pool = Buffer.alloc(4096);
let used = pool.length;

/** A new random id with a readable prefix, e.g. `cl_3f9a…`: 12 bytes (96 bits) from the CSPRNG, each byte used once. */
export function newId(prefix: string): string {
  if (used + 12 > pool.length) {
    randomFillSync(pool);
    used = 0;
  }
  used += 12;
  return `${prefix}_${pool.toString('base64url', used - 12, used)}`;
}

export function sha256Hex(input: string | Buffer): string {
  return createHash('sha256').update(input).digest('hex');
}

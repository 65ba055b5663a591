/** Bench mailboxes: generated once by @chs/fixtures into bench/tmp/, reused while their marker exists. */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateToPath, type SizeStats } from '@chs/fixtures';
import { TMP_DIR } from './paths.js';

/** Generator settings of every bench mailbox; changing them changes the file name. */
const MAILBOX_SEED = 42;
const MAILBOX_CLIENTS = 500;
const MAILBOX_DAYS = 365;
export const MAILBOX_WORKSPACE = 'ourco.com';
/** Fixed so metric windows over the data never depend on the clock. */
const MAILBOX_END_DATE = '2025-06-30T00:00:00.000Z';

export interface BenchMailbox {
  path: string;
  messages: number;
  /** File size in bytes. */
  bytes: number;
  sizes: SizeStats;
  workspace: string;
  /** Generation time, when this call generated it; null when reused. */
  generatedMs: number | null;
}

interface Marker {
  messages: number;
  /** The mbox file's size (separators and escaping included). */
  fileBytes: number;
  sizes: SizeStats;
}

/**
 * The path of a generated mbox of `count` messages, generating it first when absent. The
 * marker file is written last, so an interrupted generation is redone, never half-used.
 */
export async function ensureMailbox(count: number, dir = TMP_DIR, log: (s: string) => void = () => undefined): Promise<BenchMailbox> {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `mbox-${count}-s${MAILBOX_SEED}.mbox`);
  const markerPath = `${path}.done.json`;
  if (existsSync(markerPath) && existsSync(path)) {
    const m = JSON.parse(readFileSync(markerPath, 'utf8')) as Marker;
    return { path, messages: m.messages, bytes: m.fileBytes, sizes: m.sizes, workspace: MAILBOX_WORKSPACE, generatedMs: null };
  }
  rmSync(path, { force: true });
  log(`generating ${count.toLocaleString('en-US')} messages into ${path} …`);
  const started = performance.now();
  const out = await generateToPath({
    format: 'mbox', out: path, count, seed: MAILBOX_SEED, clientCount: MAILBOX_CLIENTS, days: MAILBOX_DAYS,
    endDate: MAILBOX_END_DATE, workspaceDomain: MAILBOX_WORKSPACE,
  });
  const generatedMs = Math.round(performance.now() - started);
  const marker: Marker = { messages: out.write.messages, fileBytes: out.write.bytesWritten, sizes: out.write.sizes };
  writeFileSync(markerPath, `${JSON.stringify(marker, null, 2)}\n`);
  log(`generated in ${(generatedMs / 1000).toFixed(1)} s (mean ${Math.round(out.write.sizes.meanBytes)} B, median ${out.write.sizes.medianBytes} B)`);
  return { path, messages: marker.messages, bytes: marker.fileBytes, sizes: marker.sizes, workspace: MAILBOX_WORKSPACE, generatedMs };
}

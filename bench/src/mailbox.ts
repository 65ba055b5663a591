/** Bench mailboxes: generated once by @chs/fixtures into bench/tmp/, reused while their marker exists. */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateToPath, type GenerateToPathOptions, type SizeStats } from '@chs/fixtures';
import { TMP_DIR } from './paths.js';

/** Generator settings of every bench mailbox; changing them changes the file name. */
const MAILBOX_SEED = 42;
const MAILBOX_CLIENTS = 500;
const MAILBOX_DAYS = 365;
export const MAILBOX_WORKSPACE = 'ourco.com';
/** Fixed so metric windows over the data never depend on the clock. */
export const MAILBOX_END_DATE = '2025-06-30T00:00:00.000Z';

/**
 * What the mailbox holds. `client` (the ingest headline): 84 % client conversations (ours and
 * theirs), the rest free-mail — a CSM's mailbox, where nearly every message is parsed. `mixed`:
 * the generator's default mix, where internal, bulk, no-reply and auto-reply mail (~40 %) is
 * decided on its headers and never parsed.
 */
export type MailboxProfile = 'client' | 'mixed';
const PROFILE_MIX: Record<MailboxProfile, GenerateToPathOptions['mix']> = {
  client: { conversation: 84, freemail: 16, internal: 0, bulk: 0, noreply: 0, 'auto-reply': 0, bounce: 0 },
  mixed: undefined,
};

/**
 * How the bytes are spread over the messages. `attachments` (today's): median ~5 KB, 13 % of the
 * messages carry attachments holding ~79 % of the bytes. `small`: a CSM's mailbox of conversations
 * with their quoted history — the same mean (~20 KB) in plain and HTML bodies, few attachments
 * (~2 %, ~14 % of the bytes): long threads (up to 48 messages, 95 % of a client's mail goes on an
 * open thread), each reply quoting the whole history in its text part and the previous message's
 * markup in its HTML part, as Outlook and Gmail do. On such mail the per-message costs, not the
 * parsing of big parts, set the pace.
 */
export type MailboxShape = 'attachments' | 'small';
export const MAILBOX_SHAPES: readonly MailboxShape[] = ['attachments', 'small'];
const SHAPE_OPTIONS: Record<MailboxShape, Partial<GenerateToPathOptions>> = {
  attachments: {},
  small: { attachmentRate: 0.017, maxThreadLength: 48, replyShare: 0.95, maxQuotedLines: 100_000, quoteHtml: true },
};

export interface BenchMailbox {
  path: string;
  messages: number;
  /** File size in bytes. */
  bytes: number;
  sizes: SizeStats;
  workspace: string;
  profile: MailboxProfile;
  shape: MailboxShape;
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
export async function ensureMailbox(
  count: number,
  dir = TMP_DIR,
  log: (s: string) => void = () => undefined,
  profile: MailboxProfile = 'mixed',
  shape: MailboxShape = 'attachments',
): Promise<BenchMailbox> {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `mbox-${count}-s${MAILBOX_SEED}${profile === 'mixed' ? '' : `-${profile}`}${shape === 'attachments' ? '' : `-${shape}`}.mbox`);
  const markerPath = `${path}.done.json`;
  if (existsSync(markerPath) && existsSync(path)) {
    const m = JSON.parse(readFileSync(markerPath, 'utf8')) as Marker;
    return { path, messages: m.messages, bytes: m.fileBytes, sizes: m.sizes, workspace: MAILBOX_WORKSPACE, profile, shape, generatedMs: null };
  }
  rmSync(path, { force: true });
  log(`generating ${count.toLocaleString('en-US')} messages (${profile}, ${shape}) into ${path} …`);
  const started = performance.now();
  const out = await generateToPath({
    format: 'mbox',
    out: path,
    count,
    seed: MAILBOX_SEED,
    clientCount: MAILBOX_CLIENTS,
    days: MAILBOX_DAYS,
    endDate: MAILBOX_END_DATE,
    workspaceDomain: MAILBOX_WORKSPACE,
    ...(PROFILE_MIX[profile] ? { mix: PROFILE_MIX[profile] } : {}),
    ...SHAPE_OPTIONS[shape],
  });
  const generatedMs = Math.round(performance.now() - started);
  const marker: Marker = { messages: out.write.messages, fileBytes: out.write.bytesWritten, sizes: out.write.sizes };
  writeFileSync(markerPath, `${JSON.stringify(marker, null, 2)}\n`);
  log(`generated in ${(generatedMs / 1000).toFixed(1)} s (mean ${Math.round(out.write.sizes.meanBytes)} B, median ${out.write.sizes.medianBytes} B)`);
  return { path, messages: marker.messages, bytes: marker.fileBytes, sizes: marker.sizes, workspace: MAILBOX_WORKSPACE, profile, shape, generatedMs };
}

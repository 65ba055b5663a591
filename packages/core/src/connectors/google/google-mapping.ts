/**
 * Gmail ↔ engine shapes: the cursor, the search windows, and a fetched message → RawMessage.
 */
import type { gmail_v1 } from '@googleapis/gmail';
import type { RawMessage } from '../../interfaces.js';
import type { Cursor } from '../types.js';

/**
 * Where a Google sync stands.
 * - `full`: a windowed read from newest to the horizon; `windowStart`/`windowEnd` (epoch seconds)
 *   bound the window being read, `pageToken` the next list page in it. `historyId` is the
 *   profile's history id taken *before* the read, so mail arriving meanwhile is caught by the
 *   first incremental sync.
 * - `incremental`: history from `historyId` (plus `pageToken` mid-way through its pages).
 */
export interface GoogleCursor {
  v: 1;
  phase: 'full' | 'incremental';
  historyId?: string;
  horizon?: number;
  windowStart?: number;
  windowEnd?: number;
  pageToken?: string;
}

export function parseGoogleCursor(c: Cursor | undefined): GoogleCursor | undefined {
  if (!c || c['v'] !== 1) return undefined;
  const phase = c['phase'];
  if (phase !== 'full' && phase !== 'incremental') return undefined;
  const out: GoogleCursor = { v: 1, phase };
  const str = (k: string) => (typeof c[k] === 'string' ? c[k] : undefined);
  const num = (k: string) => (typeof c[k] === 'number' && Number.isFinite(c[k]) ? c[k] : undefined);
  const h = str('historyId');
  if (h) out.historyId = h;
  const p = str('pageToken');
  if (p) out.pageToken = p;
  for (const k of ['horizon', 'windowStart', 'windowEnd'] as const) {
    const v = num(k);
    if (v !== undefined) out[k] = v;
  }
  if (phase === 'incremental' && !out.historyId) return undefined;
  if (phase === 'full' && (out.horizon === undefined || out.windowStart === undefined || out.windowEnd === undefined)) return undefined;
  return out;
}

export function toCursor(c: GoogleCursor): Cursor {
  return { ...c };
}

/** The Gmail search for one window: epoch seconds, not dates (dates mean midnight PST). */
export function windowQuery(start: number, end: number, extra: string): string {
  return `${extra ? `${extra} ` : ''}after:${start} before:${end}`;
}

export function windowLabel(start: number, end: number): string {
  return `messages ${new Date(start * 1000).toISOString()} .. ${new Date(end * 1000).toISOString()}`;
}

/** The next (older) window after [start, end): `windowSeconds` wide, clipped at the horizon. */
export function nextWindow(c: { horizon: number; windowStart: number }, windowSeconds: number): { windowStart: number; windowEnd: number } | undefined {
  if (c.windowStart <= c.horizon) return undefined;
  return { windowEnd: c.windowStart, windowStart: Math.max(c.horizon, c.windowStart - windowSeconds) };
}

/** Labels whose new messages are not conversation with a client. */
const SKIP_LABELS = new Set(['SPAM', 'TRASH', 'DRAFT', 'CHAT']);

/** Message ids added in a history page, in order, once each, without spam / drafts. */
export function addedMessageIds(page: gmail_v1.Schema$ListHistoryResponse): string[] {
  const seen = new Set<string>();
  const ids: string[] = [];
  for (const h of page.history ?? []) {
    for (const added of h.messagesAdded ?? []) {
      const m = added.message;
      if (!m?.id || seen.has(m.id)) continue;
      if ((m.labelIds ?? []).some((l) => SKIP_LABELS.has(l))) continue;
      seen.add(m.id);
      ids.push(m.id);
    }
  }
  return ids;
}

/** A fetched `format=raw` message → RawMessage; a string reason when it cannot be used. */
export function toRawMessage(m: gmail_v1.Schema$Message, cursor: Cursor): RawMessage | string {
  if (!m.id) return 'message without id';
  if (typeof m.raw !== 'string' || m.raw.length === 0) return 'message has no raw content';
  const raw = Buffer.from(m.raw, 'base64url');
  if (raw.length === 0) return 'raw content is not base64url';
  const out: RawMessage = { raw, location: `gmail:${m.id}`, providerId: m.id, cursor };
  // The category tabs (Promotions, Social, Updates, Forums) tell machine mail: the filter reads them.
  if (m.labelIds?.length) out.labels = m.labelIds.filter((l) => l.startsWith('CATEGORY_'));
  const ms = m.internalDate ? Number(m.internalDate) : NaN;
  if (Number.isFinite(ms) && ms > 0) out.envelopeDate = new Date(ms).toISOString();
  return out;
}

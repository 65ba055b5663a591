/**
 * Workspace settings: the API's `workspace.*` fields plus engine options (health weights,
 * sync interval). Stored as one JSON document per workspace; absent fields take the defaults
 * below. `profile.*` lives on the owner user, not here.
 */
import type { Db } from '../store/database.js';
import { isRecord, readJson } from '../util/json.js';
import { DEFAULT_DISCOVERY_POLICY, isDiscoveryPolicy, type DiscoveryPolicy } from '../resolve/discovery.js';

export interface NotificationSettings {
  channels: { email: boolean };
  dailyDigest: boolean;
  weeklyDigest: boolean;
  alertOnScoreDrop: boolean;
  /** Engine extension: alert at once when a client states an intent to leave or escalates. Default true. */
  alertOnRiskSignals: boolean;
  /** Percent. Default 15. */
  scoreDropPct: number;
  alertOnRenewals: boolean;
  /** Days. Default 30. */
  renewalsAheadDays: number;
  /** Sender address. Default `notifications@<workspace domain>`. */
  emailFrom: string;
}

/** Weights of the health components; they need not sum to 1 (they are normalised). */
export interface HealthWeights {
  sentiment: number;
  engagement: number;
  responsiveness: number;
  recency: number;
}

export interface WorkspaceSettings {
  workspaceName: string;
  domain: string;
  /** IANA zone of the form Area/City. Default `UTC`. */
  timezone: string;
  /** ISO 4217. Default `USD`. */
  currency: string;
  /** Default 30. */
  defaultWindowDays: number;
  /** Score below which a client is at risk. Default 40. */
  riskThreshold: number;
  /** Default 365. */
  dataRetentionDays: number;
  notifications: NotificationSettings;
  /** Engine extension: health component weights. */
  healthWeights: HealthWeights;
  /** Engine extension: minutes between scheduled quick syncs. Default 60. */
  syncIntervalMinutes: number;
  /**
   * Engine extension: business days (Monday–Friday in `timezone`) within which a client's e-mail
   * that asks for an answer should get one; past it the message counts as unanswered. Default 2.
   */
  replySlaBusinessDays: number;
  /**
   * Engine extension: who becomes a client from mail (docs/client-discovery.md): `crm_only`,
   * `conversations` (default: we wrote to them, or a person there wrote to us directly) or
   * `every_sender`. Other domains our mail names are suggested clients.
   */
  clientDiscovery: DiscoveryPolicy;
  /** Engine extension: what the events announce (docs/events.md). */
  events: EventSettings;
}

export interface EventSettings {
  /** client.score_changed fires when a score moves at least this much since the score last announced. Default 10. */
  scoreChangeMinDelta: number;
}

export const DEFAULT_HEALTH_WEIGHTS: HealthWeights = Object.freeze({
  sentiment: 0.4,
  engagement: 0.2,
  responsiveness: 0.2,
  recency: 0.2,
});

export function defaultSettings(workspaceId: string, workspaceName: string): WorkspaceSettings {
  return {
    workspaceName,
    domain: workspaceId,
    timezone: 'UTC',
    currency: 'USD',
    defaultWindowDays: 30,
    riskThreshold: 40,
    dataRetentionDays: 365,
    notifications: {
      channels: { email: true },
      dailyDigest: false,
      weeklyDigest: true,
      alertOnScoreDrop: true,
      alertOnRiskSignals: true,
      scoreDropPct: 15,
      alertOnRenewals: true,
      renewalsAheadDays: 30,
      emailFrom: `notifications@${workspaceId}`,
    },
    healthWeights: { ...DEFAULT_HEALTH_WEIGHTS },
    syncIntervalMinutes: 60,
    replySlaBusinessDays: 2,
    clientDiscovery: DEFAULT_DISCOVERY_POLICY,
    events: { scoreChangeMinDelta: 10 },
  };
}

type Plain = Record<string, unknown>;
const isPlain = (v: unknown): v is Plain => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Deep merge of plain objects: `patch` wins; arrays and scalars replace. Returns a new object. */
export function deepMerge<T>(base: T, patch: unknown): T {
  if (!isPlain(base) || !isPlain(patch)) return (patch === undefined ? base : patch) as T;
  const out: Plain = { ...base };
  for (const [k, v] of Object.entries(patch)) {
    if (v === undefined) continue;
    out[k] = isPlain(out[k]) && isPlain(v) ? deepMerge(out[k], v) : v;
  }
  return out as T;
}

/** The workspace's settings with defaults filled in. */
export async function getSettings(db: Db, workspaceId: string): Promise<WorkspaceSettings> {
  const ws = await db.selectFrom('workspaces').select(['id', 'name']).where('id', '=', workspaceId).executeTakeFirst();
  const row = await db.selectFrom('settings').select('data_json').where('workspace_id', '=', workspaceId).executeTakeFirst();
  const base = defaultSettings(workspaceId, ws?.name ?? workspaceId);
  const stored = row ? readJson(row.data_json, isRecord, 'settings.data_json') : {};
  const merged = deepMerge(base, stored);
  if (ws) merged.workspaceName = ws.name;
  if (!isDiscoveryPolicy(merged.clientDiscovery)) merged.clientDiscovery = DEFAULT_DISCOVERY_POLICY;
  return merged;
}

/** Stores a partial patch merged over the current settings; returns the result. */
export async function updateSettings(
  db: Db,
  workspaceId: string,
  patch: Partial<WorkspaceSettings> | Plain,
  now: Date = new Date(),
): Promise<WorkspaceSettings> {
  const current = await getSettings(db, workspaceId);
  const next = deepMerge(current, patch);
  const data_json = JSON.stringify(next);
  const updated_at = now.toISOString();
  await db
    .insertInto('settings')
    .values({ workspace_id: workspaceId, data_json, updated_at })
    .onConflict((oc) => oc.column('workspace_id').doUpdateSet({ data_json, updated_at }))
    .execute();
  if (next.workspaceName !== current.workspaceName) {
    await db.updateTable('workspaces').set({ name: next.workspaceName, updated_at }).where('id', '=', workspaceId).execute();
  }
  return next;
}

/**
 * The health models a workspace learned from its renewal outcomes (issue 27; metrics/learn.ts fits
 * them): the only writer of `health_models`. A learned model is a set of component weights that
 * did better than the hand-written ones at telling, N days ahead, the clients that churned from
 * those that stayed, on renewals later than the ones it learned from. It is offered, never applied
 * by itself: a user applies it (`chs health model apply`, `POST /health/models/{version}/apply`),
 * and may revert it, one step, to the model that was in use before. From then on the rebuild
 * scores with its weights and every snapshot it writes names it (`components.model`); days scored
 * before keep the model that made them.
 *
 * The risk signals (a stated intent to leave, an escalation, mail left waiting…) cap the score under
 * every model, as written in docs/health-model.md: a model moves the weights, not the rules.
 */
import type { Kysely } from 'kysely';
import type { Db } from '../store/database.js';
import type { Database, HealthModelsTable } from '../store/schema.js';
import { ChsError } from '../errors.js';
import { isRecord, readJson } from '../util/json.js';
import { utcDay } from '../util/time.js';
import { HEALTH_COMPONENTS, normaliseWeights, type HealthComponent } from './model.js';
import { markHealthStale } from './stale.js';
import type { HealthWeights } from '../settings/settings.js';

export const MODEL_STATUSES = ['offered', 'rejected', 'active', 'retired'] as const;
export type ModelStatus = (typeof MODEL_STATUSES)[number];

/** A churn probability from a score: p = 1 / (1 + e^-(a + b · (100 − score) / 100)). */
export interface Calibration {
  a: number;
  b: number;
}

export function churnProbability(c: Calibration, score: number): number {
  return 1 / (1 + Math.exp(-(c.a + (c.b * (100 - score)) / 100)));
}

/** What a fit found; stored as the model's fit_json. */
export interface HealthModelFit {
  /** Days before each renewal the scores were read. */
  horizonDays: number;
  /** Renewals it learned from (with a score then), and the churns among them. */
  outcomes: number;
  churned: number;
  /** The first and last of those renewals (YYYY-MM-DD). */
  from: string;
  to: string;
  /** The learned weights (sum 1). */
  weights: Record<HealthComponent, number>;
  /** The logistic model the weights come from: its intercept and a coefficient per feature (components per 100 points, signals 0/1). */
  intercept: number;
  coefficients: Record<string, number>;
  /** Ridge penalty of the fit. */
  lambda: number;
  /** Cross-validation by time: each later block of renewals scored by a model fitted on the earlier ones only. */
  heldOut: { outcomes: number; churned: number; folds: number; aucLearned: number | null; aucDefault: number | null };
  /** Churn probability from the learned score, fitted on all the renewals. */
  calibration: Calibration | null;
  /** The hand-written model on the same renewals: its weights and calibration. */
  baseline: { weights: Record<HealthComponent, number>; calibration: Calibration | null };
}

export interface HealthModelView extends HealthModelFit {
  version: number;
  status: ModelStatus;
  createdAt: string;
  appliedAt: string | null;
  /** The model in use when this one was applied (null: the hand-written one). */
  previousVersion: number | null;
}

const isNumber = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x);
const isWeights = (x: unknown): x is Record<HealthComponent, number> => isRecord(x) && HEALTH_COMPONENTS.every((c) => isNumber(x[c]));
const isCalibration = (x: unknown): x is Calibration | null => x === null || (isRecord(x) && isNumber(x.a) && isNumber(x.b));
const isAuc = (x: unknown) => x === null || isNumber(x);

function isHealthModelFit(x: unknown): x is HealthModelFit {
  if (!isRecord(x)) return false;
  const h = x.heldOut;
  const b = x.baseline;
  return (
    isNumber(x.horizonDays) &&
    isNumber(x.outcomes) &&
    isNumber(x.churned) &&
    typeof x.from === 'string' &&
    typeof x.to === 'string' &&
    isWeights(x.weights) &&
    isNumber(x.intercept) &&
    isRecord(x.coefficients) &&
    Object.values(x.coefficients).every(isNumber) &&
    isNumber(x.lambda) &&
    isRecord(h) &&
    isNumber(h.outcomes) &&
    isNumber(h.churned) &&
    isNumber(h.folds) &&
    isAuc(h.aucLearned) &&
    isAuc(h.aucDefault) &&
    isCalibration(x.calibration) &&
    isRecord(b) &&
    isWeights(b.weights) &&
    isCalibration(b.calibration)
  );
}

const isStatus = (s: string): s is ModelStatus => (MODEL_STATUSES as readonly string[]).includes(s);

function view(r: HealthModelsTable): HealthModelView {
  const fit = readJson(r.fit_json, isHealthModelFit, 'health_models.fit_json');
  if (!isStatus(r.status)) throw new ChsError('INTERNAL', `health model ${r.version} has an unknown status "${r.status}"`);
  return {
    ...fit,
    version: Number(r.version),
    status: r.status,
    createdAt: r.created_at,
    appliedAt: r.applied_at,
    previousVersion: r.previous_version === null ? null : Number(r.previous_version),
  };
}

/** The workspace's models, newest first. */
export async function listHealthModels(db: Db, workspaceId: string): Promise<HealthModelView[]> {
  const rows = await db.selectFrom('health_models').selectAll().where('workspace_id', '=', workspaceId).orderBy('version', 'desc').execute();
  return rows.map(view);
}

async function getModel(db: Kysely<Database>, workspaceId: string, version: number): Promise<HealthModelView> {
  const r = await db.selectFrom('health_models').selectAll().where('workspace_id', '=', workspaceId).where('version', '=', version).executeTakeFirst();
  if (!r) throw new ChsError('NOT_FOUND', `no health model ${version} in workspace ${workspaceId}`);
  return view(r);
}

/** The learned model in use, or null when the hand-written one scores. */
export async function activeHealthModel(db: Kysely<Database>, workspaceId: string): Promise<HealthModelView | null> {
  const r = await db.selectFrom('health_models').selectAll().where('workspace_id', '=', workspaceId).where('status', '=', 'active').executeTakeFirst();
  return r ? view(r) : null;
}

/** The weights the rebuild scores with, and the learned model they come from (undefined: the hand-written weights of the settings). */
export async function scoringWeights(
  db: Kysely<Database>,
  workspaceId: string,
  settingsWeights: HealthWeights,
): Promise<{ weights: Record<HealthComponent, number>; model?: number }> {
  const active = await activeHealthModel(db, workspaceId);
  return active ? { weights: normaliseWeights(active.weights), model: active.version } : { weights: normaliseWeights(settingsWeights) };
}

/** Stores a fit as the workspace's next model: `offered` when it earned it, else `rejected` (kept for the record). */
export async function saveHealthModel(db: Db, workspaceId: string, fit: HealthModelFit, status: 'offered' | 'rejected', now: Date): Promise<HealthModelView> {
  return db.transaction().execute(async (trx) => {
    const top = await trx
      .selectFrom('health_models')
      .select((eb) => eb.fn.max('version').as('v'))
      .where('workspace_id', '=', workspaceId)
      .executeTakeFirst();
    const version = Number(top?.v ?? 0) + 1;
    await trx
      .insertInto('health_models')
      .values({
        workspace_id: workspaceId,
        version,
        status,
        fit_json: JSON.stringify(fit),
        created_at: now.toISOString(),
        applied_at: null,
        previous_version: null,
      })
      .execute();
    return getModel(trx, workspaceId, version);
  });
}

/**
 * Applies a model a fit offered (or one retired before): it scores from today on, and the model in
 * use until now is kept for a one-step revert. A rejected model did not earn it and is refused.
 */
export async function applyHealthModel(db: Db, workspaceId: string, version: number, now: Date): Promise<HealthModelView> {
  return db.transaction().execute(async (trx) => {
    const target = await getModel(trx, workspaceId, version);
    if (target.status === 'active') return target;
    if (target.status === 'rejected')
      throw new ChsError('INVALID_TRANSITION', `health model ${version} did not beat the hand-written model on the later renewals, so it cannot be applied`);
    const current = await activeHealthModel(trx, workspaceId);
    if (current) await setStatus(trx, workspaceId, current.version, 'retired');
    await trx
      .updateTable('health_models')
      .set({ status: 'active', applied_at: now.toISOString(), previous_version: current?.version ?? null })
      .where('workspace_id', '=', workspaceId)
      .where('version', '=', version)
      .execute();
    await rescoreFromToday(trx, workspaceId, now);
    return getModel(trx, workspaceId, version);
  });
}

/**
 * Goes back one step: the model in use is retired and the one it replaced (or the hand-written
 * model) scores again from today. Returns the model now in use, null for the hand-written one.
 */
export async function revertHealthModel(db: Db, workspaceId: string, now: Date): Promise<HealthModelView | null> {
  return db.transaction().execute(async (trx) => {
    const current = await activeHealthModel(trx, workspaceId);
    if (!current) throw new ChsError('INVALID_TRANSITION', 'the hand-written model is in use: there is no learned model to revert');
    await setStatus(trx, workspaceId, current.version, 'retired');
    const back = current.previousVersion;
    if (back !== null) {
      await trx
        .updateTable('health_models')
        .set({ status: 'active', applied_at: now.toISOString() })
        .where('workspace_id', '=', workspaceId)
        .where('version', '=', back)
        .execute();
    }
    await rescoreFromToday(trx, workspaceId, now);
    return back === null ? null : getModel(trx, workspaceId, back);
  });
}

async function setStatus(trx: Kysely<Database>, workspaceId: string, version: number, status: ModelStatus): Promise<void> {
  await trx.updateTable('health_models').set({ status }).where('workspace_id', '=', workspaceId).where('version', '=', version).execute();
}

/** Every active client's score from today is due again (stale.ts): the next rebuild writes it with the model now in use. */
async function rescoreFromToday(trx: Kysely<Database>, workspaceId: string, now: Date): Promise<void> {
  const ids = await trx.selectFrom('clients').select('id').where('workspace_id', '=', workspaceId).where('status', '=', 'active').execute();
  const today = utcDay(now);
  await markHealthStale(trx, new Map(ids.map((r) => [r.id, today])), now);
}

/** The churn probability the summary may give next to a score, and what it rests on. */
export interface ChurnCalibration {
  /** The probability of churn at a renewal `horizonDays` later, from a score; null when there is none yet. */
  calibration: Calibration | null;
  /** The learned model whose scores it calibrates; null for the hand-written weights. */
  model: number | null;
  horizonDays: number | null;
  /** Renewals it was fitted on. */
  outcomes: number | null;
  /** What it is, or why there is none, in words. */
  text: string;
}

const sameWeights = (a: Record<HealthComponent, number>, b: Record<HealthComponent, number>): boolean =>
  HEALTH_COMPONENTS.every((c) => Math.abs(a[c] - b[c]) < 1e-4);

/**
 * The calibration of the scores in use: the applied model's, else that of the hand-written weights
 * from the latest fit (learning calibrates both), as long as those weights have not changed since.
 */
export async function currentChurnCalibration(db: Kysely<Database>, workspaceId: string, settingsWeights: HealthWeights): Promise<ChurnCalibration> {
  const none = (why: string): ChurnCalibration => ({ calibration: null, model: null, horizonDays: null, outcomes: null, text: why });
  const active = await activeHealthModel(db, workspaceId);
  const source = active ?? (await latestFit(db, workspaceId));
  if (!source)
    return none('No churn calibration yet: record renewal outcomes (chs outcomes import) and run chs health learn, which calibrates the score on them.');
  const calibration = active ? active.calibration : source.baseline.calibration;
  if (!active && !sameWeights(source.baseline.weights, normaliseWeights(settingsWeights)))
    return none('No churn calibration for the current weights: they changed since the last fit; run chs health learn again.');
  if (!calibration) return none('No churn calibration: the renewals of the last fit do not vary enough to calibrate the score.');
  return {
    calibration,
    model: active ? active.version : null,
    horizonDays: source.horizonDays,
    outcomes: source.outcomes,
    text: `Churn probability: the chance a client with this score churns at a renewal ${source.horizonDays} days later, fitted on ${source.outcomes} renewals (${source.from} to ${source.to}) scored by ${active ? `learned model ${active.version}` : 'the hand-written weights'}.`,
  };
}

async function latestFit(db: Kysely<Database>, workspaceId: string): Promise<HealthModelView | null> {
  const r = await db.selectFrom('health_models').selectAll().where('workspace_id', '=', workspaceId).orderBy('version', 'desc').limit(1).executeTakeFirst();
  return r ? view(r) : null;
}

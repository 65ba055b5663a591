/**
 * A learned model keeps the hand-written health scenarios in their bands (issue 27): the twelve
 * archetypes of health/scenarios.test.ts (a client that says it will leave, one gone quiet, one
 * happy and active…) are ingested once, and today's score of each is weighed anew under every
 * weight a learned model may have. Learned weights lie within [MIN_WEIGHT, MAX_WEIGHT] and sum to
 * 1: a box whose corners are one weight at MAX_WEIGHT, one at 1 − MAX_WEIGHT − 2·MIN_WEIGHT and two
 * at MIN_WEIGHT. A score is its components weighed linearly, then capped by a risk or lifted for a
 * client we barely know, both monotone: its highest and lowest over the box are at corners, so a
 * client in its band at every corner is in it under any learned model.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BAND_LIMITS, SCENARIO_END_DATE, SCENARIO_FIXTURE, SCENARIO_WORKSPACE, SCENARIO_WORKSPACE_NAME, fixturePath, type ScenarioTruth } from '@chs/fixtures';
import { defaultTestDialect } from '../store/testing.js';
import { createEngine, type Engine } from '../engine/engine.js';
import { createWorkspace } from '../workspace/workspaces.js';
import { mboxSource } from '../source/index.js';
import { readSnapshotDetails } from '../health/snapshots.js';
import { HEALTH_COMPONENTS, scoreWithWeights, type HealthComponent, type StoredComponents } from '../health/model.js';
import { utcDay } from '../util/time.js';
import { MAX_WEIGHT, MIN_WEIGHT, boundedWeights } from './learn.js';

const truth = JSON.parse(readFileSync(fixturePath(SCENARIO_FIXTURE.truth), 'utf8')) as ScenarioTruth;
const NOW = new Date(SCENARIO_END_DATE);

/** The corners of the box of learnable weights. */
function corners(): Record<HealthComponent, number>[] {
  const out: Record<HealthComponent, number>[] = [];
  for (const hi of HEALTH_COMPONENTS)
    for (const mid of HEALTH_COMPONENTS) {
      if (mid === hi) continue;
      const w = {} as Record<HealthComponent, number>;
      for (const c of HEALTH_COMPONENTS) w[c] = c === hi ? MAX_WEIGHT : c === mid ? Math.round((1 - MAX_WEIGHT - 2 * MIN_WEIGHT) * 1e4) / 1e4 : MIN_WEIGHT;
      out.push(w);
    }
  return out;
}

describe('a learned model and the scenario bands', () => {
  let engine: Engine;
  const today = new Map<string, { score: number; components: StoredComponents }>();

  beforeAll(async () => {
    engine = await createEngine({ database: await defaultTestDialect().open(), clock: () => NOW });
    const db = engine.store.db;
    await createWorkspace(db, { domain: SCENARIO_WORKSPACE, name: SCENARIO_WORKSPACE_NAME, ownerEmail: `lead@${SCENARIO_WORKSPACE}` });
    await engine.ingest({ workspaceId: SCENARIO_WORKSPACE, source: mboxSource(fixturePath(SCENARIO_FIXTURE.mbox)), workers: 0 });
    const rows = await db
      .selectFrom('health_snapshots as s')
      .innerJoin('clients as c', 'c.id', 's.client_id')
      .select(['c.primary_domain as domain', 's.score', 's.confidence', 's.detail'])
      .where('c.workspace_id', '=', SCENARIO_WORKSPACE)
      .where('s.date', '=', utcDay(NOW))
      .execute();
    const details = await readSnapshotDetails(db, rows);
    rows.forEach((r, i) => today.set(r.domain, { score: Number(r.score), components: details[i]!.components }));
  }, 120_000);

  afterAll(async () => {
    await engine?.close();
  });

  it('weighs a stored day anew exactly as the rebuild scored it', () => {
    expect(today.size).toBe(Object.keys(truth.clients).length);
    for (const { score, components } of today.values()) {
      const used = Object.fromEntries(HEALTH_COMPONENTS.map((c) => [c, components[c]!.weight!])) as Record<HealthComponent, number>;
      expect(scoreWithWeights(components, used)).toBe(score);
    }
  });

  it('keeps every archetype in the band a CS lead puts it in, under any weights a learned model may have', () => {
    const box = corners();
    expect(box).toHaveLength(12);
    for (const w of box) expect(boundedWeights(HEALTH_COMPONENTS.map((c) => w[c]))).toEqual(w);
    const misses: string[] = [];
    for (const [domain, c] of Object.entries(truth.clients)) {
      const band = BAND_LIMITS[c.expectedBand];
      for (const w of box) {
        const s = scoreWithWeights(today.get(domain)!.components, w);
        if (s < band.min || s >= band.below) misses.push(`${c.archetype} (${domain}, ${c.expectedBand}) scores ${s} under ${JSON.stringify(w)}`);
      }
    }
    expect(misses).toEqual([]);
  });
});

/**
 * A book of renewals for the learner's tests (learn.ts): for each client, the score stated on the
 * day the learner reads (60 days before its renewal) and the renewal's outcome. Not used by the
 * engine itself.
 */
import type { Db } from '../store/database.js';
import { storeSnapshots } from '../health/write.js';
import type { SnapshotRow } from '../health/score-client.js';
import { insertClient } from '../health/test-fixtures.js';
import { HEALTH_COMPONENTS, type HealthComponent } from '../health/model.js';
import { recordOutcome } from '../clients/outcomes.js';
import { addDays } from '../util/time.js';

/** A seeded stream of numbers in [0, 1) (a linear congruential generator): the same book every run. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1_664_525) + 1_013_904_223) >>> 0;
    return s / 2 ** 32;
  };
}

const day = (d: Date): string => d.toISOString().slice(0, 10);

/**
 * A book of `n` renewals, one a week back from `now`, each client's score stated on the day 60
 * days before its renewal (what the learner reads). A churner had stopped talking to us
 * (engagement `churnEngagement`) and a renewer had not (70-95); tone, reply speed and recency are
 * the same spread for both. A few churners looked engaged and a few renewers quiet: noise.
 */
export async function renewalBook(
  db: Db,
  workspaceId: string,
  now: Date,
  n: number,
  opts: { churnEngagement: [number, number]; seed: number; churnEvery?: number },
): Promise<void> {
  const next = rng(opts.seed);
  const between = ([lo, hi]: [number, number]) => lo + (hi - lo) * next();
  const rows: SnapshotRow[] = [];
  const outcomes: { client: string; date: string; churned: boolean }[] = [];
  for (let i = 0; i < n; i++) {
    const client = `c${i}`;
    await insertClient(db, workspaceId, { id: client, domain: `${client}.com` });
    const renewal = addDays(now, -7 * (n - i));
    const churned = i % (opts.churnEvery ?? 3) === 0;
    const noisy = i % 11 === 5;
    const values: Record<HealthComponent, number> = {
      sentiment: between([45, 85]),
      engagement: churned !== noisy ? between(opts.churnEngagement) : between([70, 95]),
      responsiveness: between([50, 90]),
      recency: between([60, 100]),
    };
    const components = Object.fromEntries(HEALTH_COMPONENTS.map((c) => [c, { value: Math.round(values[c] * 10) / 10, weight: 0.25, contribution: 0 }]));
    const score = Math.round((0.4 * values.sentiment + 0.2 * (values.engagement + values.responsiveness + values.recency)) * 10) / 10;
    rows.push({
      workspace_id: workspaceId,
      client_id: client,
      date: day(addDays(renewal, -60)),
      score,
      confidence: 1,
      components: { ...components, inputs: { known: 10 } },
      reason: 'stable',
      reason_text: '',
      evidence: {},
    });
    outcomes.push({ client, date: day(renewal), churned });
  }
  await storeSnapshots(db, rows);
  for (const o of outcomes) await recordOutcome(db, workspaceId, o.client, { date: o.date, outcome: o.churned ? 'churned' : 'renewed' }, 'csv', now);
}

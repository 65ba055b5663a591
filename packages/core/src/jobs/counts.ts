/** Jobs by kind and state, for operators (the runner's Prometheus gauges). One grouped read. */
import type { Db } from '../store/database.js';

export interface JobCount {
  kind: string;
  state: string;
  count: number;
}

export async function countJobsByState(db: Db): Promise<JobCount[]> {
  const rows = await db
    .selectFrom('jobs')
    .select(['kind', 'state', (eb) => eb.fn.countAll<number | string | bigint>().as('n')])
    .groupBy(['kind', 'state'])
    .orderBy('kind')
    .orderBy('state')
    .execute();
  return rows.map((r) => ({ kind: r.kind, state: r.state, count: Number(r.n) }));
}

/**
 * A running job's live counters as someone watching the job would read them from the store: the
 * attempt's start shows at once, the read counter keeps up about once per interval however often
 * it moves, a total learned or a wait begun shows at once, the rebuild says so, and an attempt
 * that lost the job writes nothing (and does not fail).
 */
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { dropTestSchemas, testDialects } from '../store/testing.js';
import type { Store } from '../store/database.js';
import { silentLogger } from '../util/logger.js';
import { claimNextJob, enqueueJob, getJob, recordJobProgress, transitionJob, type Job } from './repository.js';
import { LiveProgress } from './live.js';

const dialects = await testDialects();
afterAll(dropTestSchemas);
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const EVERY = 200;

describe.each(dialects)('live progress of a job on $name', (dialect) => {
  let store: Store;
  let job: Job;
  beforeEach(async () => {
    store = await dialect.open();
    const now = new Date().toISOString();
    await store.db
      .insertInto('workspaces')
      .values({ id: 'acme.com', name: 'Acme', plan: 'free', billing_status: 'active', created_at: now, updated_at: now })
      .execute();
    await enqueueJob(store.db, { workspaceId: 'acme.com', kind: 'sync', source: 'google' });
    job = (await claimNextJob(store.db, 'w1', 60_000))!;
  });
  afterEach(async () => store.close());

  const live = (readAtStart = 0) => new LiveProgress({ db: store.db, jobId: job.id, owner: 'w1', logger: silentLogger, readAtStart, everyMs: EVERY });
  const read = async () => (await getJob(store.db, job.id))!;

  it('shows the attempt at once, then keeps up with the read counter about once per interval', async () => {
    const l = live(1200);
    await l.start();
    let j = await read();
    // A resumed attempt starts from what was stored, not from 0.
    expect(j.itemsRead).toBe(1200);
    expect(j.live).toMatchObject({ phase: 'reading', readAtStart: 1200 });
    expect(j.totalItems).toBeNull();

    // The provider's count is news: written at once.
    l.update({ read: 1200, total: 5000 });
    await sleep(30);
    expect((await read()).totalItems).toBe(5000);

    // Thousands of reads in a moment: the store follows within an interval, with the latest count.
    for (let n = 1201; n <= 3000; n++) l.update({ read: n });
    await sleep(EVERY * 2.5);
    j = await read();
    expect(j.itemsRead).toBe(3000);
    expect(j.totalItems).toBe(5000);
    expect(j.itemsProcessed).toBe(0);
    await l.stop();
  });

  it('a wait on the provider shows at once with its end; the rebuild says so and the wait is over', async () => {
    const l = live();
    await l.start();
    await sleep(10);
    const until = new Date(Date.now() + 30_000);
    l.update({ read: 10, waiting: { reason: 'google: HTTP 429 rateLimitExceeded', until } });
    await sleep(30);
    expect((await read()).live?.waiting).toEqual({ reason: 'google: HTTP 429 rateLimitExceeded', until: until.toISOString() });
    // A wait already over is no wait.
    l.update({ read: 11, waiting: { reason: 'old', until: new Date(Date.now() - 1000) } });
    await sleep(EVERY * 1.5);
    expect((await read()).live?.waiting).toBeUndefined();
    await l.rebuilding(3);
    expect((await read()).live).toMatchObject({ phase: 'rebuilding', rebuild: { clients: 3 } });
    // How long it took stays with the job: the next job's estimate prices its rebuild with it.
    await l.rebuilt(36);
    expect((await read()).live?.rebuild).toMatchObject({ clients: 3, ms: 36 });
    await l.stop();
  });

  it('keeps writing while nothing moves (the attempt is alive), and stops when told', async () => {
    const l = live();
    await l.start();
    const first = (await read()).live!.at;
    await sleep(EVERY * 2.5);
    const later = (await read()).live!.at;
    expect(Date.parse(later)).toBeGreaterThan(Date.parse(first));
    await l.stop();
    const stopped = (await read()).live!.at;
    await sleep(EVERY * 2);
    expect((await read()).live!.at).toBe(stopped);
  });

  it('an attempt that lost the job writes nothing and goes on; the next state change sets the read counter back to what is stored', async () => {
    const l = live();
    await l.start();
    await recordJobProgress(store.db, job.id, 'w1', { itemsProcessed: 500, itemsAdded: 500, itemsUpdated: 0, itemsSkipped: 0, itemsFiltered: 0 });
    l.update({ read: 900, total: 2000 });
    await sleep(30);
    expect((await read()).itemsRead).toBe(900);
    // Swept back to the queue (the lease ran out): 400 read and not stored will be read again.
    await transitionJob(store.db, job.id, 'running', 'queued', { owner: 'w1' });
    expect((await read()).itemsRead).toBe(500);
    l.update({ read: 950 });
    await sleep(EVERY * 1.5);
    expect((await read()).itemsRead).toBe(500);
    await l.stop();
  });
});

#!/usr/bin/env node
// The backtest on the outcome fixture (issue 27): generates the seeded two-year, 400-client
// mailbox whose latent risks drive both the mail and the renewals (fixtures, outcome mode), ingests
// it into a fresh database with the fixture's end as "now" and a history kept for its whole span,
// imports its outcomes CSV, and prints the backtest at 30, 60 and 90 days, beside two ceilings of
// the fixture (what no reading of its mail can beat but by chance). Run after `npx tsc -b`:
//   node scripts/backtest-fixture.mjs [--seed 1] [--clients 400] [--db <file|postgres url>] [--dir /tmp/chs-backtest] [--json <out>]
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import * as core from '@chs/core';
import { DEFAULT_END_DATE, generateOutcomeMailbox, hostOf, outcomesCsv, registrableDomain, writeMailbox } from '@chs/fixtures';

const { values } = parseArgs({
  options: {
    seed: { type: 'string', default: '1' },
    clients: { type: 'string', default: '400' },
    db: { type: 'string' },
    dir: { type: 'string', default: '/tmp/chs-backtest' },
    json: { type: 'string' },
  },
});
const seed = Number(values.seed);
const dir = values.dir;
mkdirSync(dir, { recursive: true });
const mbox = join(dir, `outcomes-s${seed}.mbox`);
const csv = `${mbox}.outcomes.csv`;
const t0 = performance.now();
const { outcomes, messages } = generateOutcomeMailbox({ seed, clientCount: Number(values.clients), days: 730 });
// The tone each client's own message was written to carry (the generator's label), by day, as the
// mailbox is written: for the flawless reader's ceiling below.
const clientDomains = new Set(outcomes.map((o) => o.domain));
const labels = new Map();
function* tapLabels(all) {
  for (const m of all) {
    const domain = registrableDomain(hostOf(m.from.email));
    if (m.sentiment !== null && clientDomains.has(domain)) {
      if (!labels.has(domain)) labels.set(domain, []);
      labels.get(domain).push({ at: m.envelopeDate.getTime(), value: m.sentiment === 'negative' ? -1 : m.sentiment === 'positive' ? 1 : 0 });
    }
    yield m;
  }
}
await writeMailbox('mbox', mbox, tapLabels(messages));
writeFileSync(csv, outcomesCsv(outcomes));
const churnedOf = (o) => o.outcome === 'churned';
const auc3 = (points) => Math.round(core.rocAuc(points) * 1000) / 1000;
// Two ceilings, with the backtest's own AUC:
// - the hidden latent risk itself (what drives the mail and the outcome): nothing can do better
//   but by chance;
// - a flawless reader of the mail: the mean of the labels the generator gave the client's own
//   messages in the 90 days up to the 60-day cut-off (what a sentiment model that never misreads a
//   message would see). The product reads more than tone (silences, our slowness, escalations,
//   stated intent), so it can beat this one, but not by much.
const ceiling = auc3(outcomes.map((o) => ({ risk: o.latentRisk, positive: churnedOf(o) })));
const { DAY_MS } = core;
const flawless = auc3(
  outcomes.map((o) => {
    const end = Date.parse(`${o.date}T00:00:00Z`) - 59 * DAY_MS; // the end of the cut-off day, 60 days before
    const said = (labels.get(o.domain) ?? []).filter((l) => l.at < end && l.at >= end - 90 * DAY_MS);
    return { risk: said.length ? -said.reduce((sum, l) => sum + l.value, 0) / said.length : 0, positive: churnedOf(o) };
  }),
);
const generated = performance.now();

const dbUrl = values.db ?? join(dir, `outcomes-s${seed}.db`);
if (!core.isPostgresUrl(dbUrl)) for (const s of ['', '-wal', '-shm']) rmSync(dbUrl + s, { force: true });
const now = new Date(DEFAULT_END_DATE);
const engine = await core.createEngine({ database: dbUrl, clock: core.fixedClock(now) });
const db = engine.store.db;
const ws = 'ourco.com';
await core.createWorkspace(db, { domain: ws, name: 'Ourco', ownerEmail: `lead@${ws}`, ownerName: 'Lead' });
// Two years of mail: keep two years of history, so first-year renewals have a score before them.
await core.updateSettings(db, ws, { dataRetentionDays: 800 });
const s = await engine.ingest({ workspaceId: ws, source: core.mboxSource(mbox) });
const ingested = performance.now();
const imported = await core.importOutcomesCsv(db, ws, readFileSync(csv, 'utf8'), now);
if (imported.errors.length) throw new Error(`outcome rows refused: ${JSON.stringify(imported.errors.slice(0, 5))}`);
const report = await core.runBacktest(db, ws, { days: 60 });
await engine.close();

const line = (h) =>
  `${String(h.days).padStart(3)} days: ${h.outcomes} outcomes (${h.churned} churned, ${h.withoutHistory} without a score), AUC ${h.auc}, ` +
  `precision ${h.precision}, recall ${h.recall} (flagged ${h.flagged}), lift ${h.liftTopDecile}, Brier ${h.brier}`;
console.log(
  `seed ${seed}: ${s.itemsAdded} messages stored, ${s.clientsCreated} clients; generated in ${((generated - t0) / 1000).toFixed(1)} s, ingested in ${((ingested - generated) / 1000).toFixed(1)} s`,
);
for (const h of report.horizons) console.log(line(h));
console.log(`ceiling: ranking the renewals by the clients' hidden latent risk gives AUC ${ceiling}`);
console.log(`a flawless reader of the tone of each client's own messages in the 90 days before the 60-day cut-off: AUC ${flawless}`);
console.log(
  `lead time: median ${report.leadTimeDaysMedian} days; ${report.churnsRedAtLeast45Days} of ${report.churns.length} churns red at least 45 days before`,
);
console.log(report.summary);
if (values.json)
  writeFileSync(
    values.json,
    JSON.stringify({ seed, ingest: { added: s.itemsAdded, clients: s.clientsCreated }, latentRiskAuc: ceiling, flawlessToneAuc: flawless, report }, null, 2),
  );

/**
 * The single writer: maps processed messages (already resolved to client domains by the
 * workers) to client and contact rows and stores them in one transaction per batch, together with the source's cursor and the run's counters, so a
 * crash loses nothing and a restart doubles nothing.
 */
import { sql, type Transaction } from 'kysely';
import type { Db } from '../store/database.js';
import type { Database, FilteredMailTable, InteractionsTable } from '../store/schema.js';
import type { ProblemKind, RefusalReason, SourceCursor } from '../interfaces.js';
import type { ResolvedParticipant } from '../resolve/resolve.js';
import { newId } from '../util/ids.js';
import { newClientRow } from '../store/clients.js';
import { insertRows, updateTextColumns } from '../store/bulk.js';
import { recordEvent } from '../events/outbox.js';
import { markHealthStale } from '../health/stale.js';
import { saveCursor } from './cursors.js';
import { recordIngestionErrors, recordRunCounts } from './runs.js';
import type { ProcessResult, ProcessedMessage } from './process.js';
import { chunks } from '../util/lists.js';
import { DAY_MS } from '../util/time.js';
import { isReplySubject, isUnthreaded, linkSubjectThreads, REPLY_SUBJECT_LIKE, SUBJECT_THREAD_DAYS, subjectKey, type ThreadRow } from '../resolve/threads.js';
import type { MessageTopic } from '../score/personal.js';
import {
  DEFAULT_DISCOVERY_POLICY,
  DOMAIN_ROLES,
  addEvidence,
  discoveryVerdict,
  emptyEvidence,
  strongerRole,
  type DomainEvidence,
  type DiscoveryPolicy,
  type DiscoveryReason,
  type DomainRole,
} from '../resolve/discovery.js';

export interface WriteItem {
  result: ProcessResult;
  cursor: SourceCursor;
}

/**
 * Why a message added nothing to a scored client: `suggested` is stored, but only for suggested
 * clients (resolve/discovery.ts): kept and counted, not scored until the team accepts one.
 */
type SkipReason = 'duplicate' | 'internal' | 'no_client' | 'suggested';

/** Counts of one run; every processed message lands in exactly one of added/updated/skipped/filtered/errors. */
export interface RunCounts {
  processed: number;
  added: number;
  updated: number;
  skipped: number;
  filtered: number;
  errors: number;
  /** Source refusals (`too_large`, `outside_folder`) appear only when they occur. */
  skippedBy: Record<SkipReason, number> & Partial<Record<RefusalReason, number>>;
  filteredBy: Record<string, number>;
  problems: Record<ProblemKind, number>;
  clientsCreated: number;
  /** Suggested clients made (domains our mail names that did not qualify as clients). */
  clientsSuggested: number;
  contactsCreated: number;
  interactionsCreated: number;
}

export function emptyCounts(): RunCounts {
  return {
    processed: 0,
    added: 0,
    updated: 0,
    skipped: 0,
    filtered: 0,
    errors: 0,
    skippedBy: { duplicate: 0, internal: 0, no_client: 0, suggested: 0 },
    filteredBy: {},
    problems: { parse: 0, charset: 0, attachment: 0, sentiment: 0 },
    clientsCreated: 0,
    clientsSuggested: 0,
    contactsCreated: 0,
    interactionsCreated: 0,
  };
}

interface ContactState {
  id: string;
  name: string;
  lastSeen: string | null;
}

/** Max rows per multi-row INSERT (keeps bound parameters under both dialects' limits). */
const INSERT_CHUNK = 500;
/** Filtered-mail rows per INSERT: 10 columns each, under SQLite's 32,766 parameters and PostgreSQL's 65,535. */
const FILTERED_CHUNK = 200;

export interface WriterOptions {
  db: Db;
  workspaceId: string;
  runId: string;
  /** `mbox`, `eml`, `maildir`, `google`, … */
  sourceKind: string;
  /** Cursor key of the source (source_cursors.source_key). */
  sourceKey: string;
  /** Wall clock for row timestamps. */
  now: () => Date;
  /** Called inside each batch's transaction after it is stored (e.g. to record job progress with the data). */
  checkpoint?: BatchCheckpoint;
  /** Who becomes a client from mail (the workspace's `clientDiscovery`). Default `conversations`. */
  discovery?: DiscoveryPolicy;
}

/** A domain's client row as the writer knows it: scored (`active`), `suggested` or `ignored`. */
interface KnownClient {
  id: string;
  status: string;
  /** Why it is suggested; null for other statuses. */
  reason: string | null;
  /** The evidence so far (a suggested client's): see DomainEvidence. */
  evidence: DomainEvidence;
  /** Not stored yet: inserted with the batch that made it. */
  isNew?: { domain: string };
}

/**
 * A hook run in the batch's transaction, with the run's counts, the cursor just saved and the
 * clients touched so far (client id → earliest day). Throwing rolls the batch back.
 */
export type BatchCheckpoint = (
  trx: Transaction<Database>,
  counts: Readonly<RunCounts>,
  cursor: SourceCursor,
  touched: ReadonlyMap<string, string>,
) => Promise<void>;

export class IngestWriter {
  readonly counts: RunCounts = emptyCounts();
  /** Clients whose interactions changed, with the earliest interaction day touched. */
  readonly touched = new Map<string, string>();
  /** The same, of the batch being written: marked stale in its transaction (health/stale.ts). */
  #batchTouched = new Map<string, string>();
  readonly #o: WriterOptions;
  #domains = new Map<string, KnownClient>();
  #contacts = new Map<string, ContactState>();

  private constructor(options: WriterOptions) {
    this.#o = options;
  }

  static async open(options: WriterOptions): Promise<IngestWriter> {
    const w = new IngestWriter(options);
    const { db, workspaceId } = options;
    const known = await db
      .selectFrom('client_domains as d')
      .innerJoin('clients as c', 'c.id', 'd.client_id')
      .select(['d.domain', 'd.client_id', 'c.status', 'c.discovery'])
      .where('d.workspace_id', '=', workspaceId)
      .execute();
    // What the stored mail of each suggested client already shows (its role and topic per message).
    const stored = new Map<string, DomainEvidence>();
    const qualifying = sql`role in ('wrote_to', 'direct')`;
    for (const r of await db
      .selectFrom('interactions as i')
      .innerJoin('clients as c', 'c.id', 'i.client_id')
      .select([
        'i.client_id',
        sql<number>`sum(case when ${qualifying} then 1 else 0 end)`.as('conv'),
        sql<number>`sum(case when role = 'direct' then 1 else 0 end)`.as('direct'),
        sql<number>`sum(case when ${qualifying} and topic = 'work' then 1 else 0 end)`.as('work'),
        sql<number>`sum(case when ${qualifying} and topic = 'personal' then 1 else 0 end)`.as('personal'),
        sql<number>`sum(case when ${qualifying} and topic = 'pitch' then 1 else 0 end)`.as('pitch'),
        sql<number>`sum(case when role is not null and role <> 'co_recipient' then 1 else 0 end)`.as('senders'),
      ])
      .where('c.workspace_id', '=', workspaceId)
      .where('c.status', '=', 'suggested')
      .groupBy('i.client_id')
      .execute()) {
      stored.set(r.client_id, {
        conversations: Number(r.conv),
        direct: Number(r.direct),
        work: Number(r.work),
        personal: Number(r.personal),
        pitch: Number(r.pitch),
        senders: Number(r.senders),
      });
    }
    for (const r of known) {
      w.#domains.set(r.domain, {
        id: r.client_id,
        status: r.status,
        reason: r.status === 'suggested' ? r.discovery : null,
        evidence: stored.get(r.client_id) ?? emptyEvidence(),
      });
    }
    const rows = await db
      .selectFrom('contact_emails as e')
      .innerJoin('contacts as c', 'c.id', 'e.contact_id')
      .select(['e.email', 'c.id', 'c.name', 'c.last_seen_at'])
      .where('e.workspace_id', '=', workspaceId)
      .execute();
    for (const r of rows) w.#contacts.set(r.email, { id: r.id, name: r.name, lastSeen: r.last_seen_at });
    return w;
  }

  /** Stores one batch in one transaction with the cursor of its last item. */
  async write(items: WriteItem[]): Promise<void> {
    if (items.length === 0) return;
    const { db } = this.#o;
    const batch = new BatchState();
    const last = items[items.length - 1]!;
    await db.transaction().execute(async (trx) => {
      this.#batchTouched = new Map();
      const plans: Plan[] = [];
      for (const { result } of items) {
        this.counts.processed += 1;
        for (const w of result.warnings ?? []) this.counts.problems[w.kind] += 1;
        if (!result.ok) {
          this.counts.errors += 1;
          this.counts.problems[result.kind] += 1;
          batch.errors.push({ kind: result.kind, reason: result.reason, location: result.location });
          continue;
        }
        if (result.outcome === 'filtered') {
          this.counts.filtered += 1;
          this.counts.filteredBy[result.reason] = (this.counts.filteredBy[result.reason] ?? 0) + 1;
          batch.filtered.push(result);
          continue;
        }
        if (result.outcome === 'skipped') {
          this.counts.skipped += 1;
          this.counts.skippedBy[result.reason] = (this.counts.skippedBy[result.reason] ?? 0) + 1;
          continue;
        }
        const clients = result.clientDomains.map((domain, k) => this.#see(domain, result.roles[k] ?? 'co_recipient', result.topic, result.date, batch));
        const rows = clients.map((c, k) => this.#row(result, c.id, result.direction, result.roles[k] ?? 'co_recipient'));
        for (const p of result.participants) this.#seeContact(p, result.date, batch);
        plans.push({ msg: result, rows, clients, scored: false });
      }
      this.#decide(batch);
      for (const p of plans) p.scored = p.clients.some((c) => c.status === 'active');
      await this.#flushClientsAndContacts(trx, batch);
      await this.#storeInteractions(trx, plans);
      // The health of the clients it changed is out of date until a rebuild writes it.
      await markHealthStale(trx, this.#batchTouched, this.#o.now());
      await this.#saveProgress(trx, batch, last.cursor);
      if (this.#o.checkpoint) await this.#o.checkpoint(trx, this.counts, last.cursor, this.touched);
    });
  }

  /**
   * The client row of a domain this message names, with the message's evidence added (its role
   * and topic). Whether a new or suggested domain is a client is decided once per batch, on all
   * the evidence so far (#decide): a friend's first "sounds good" does not make his employer a
   * client before his "see you at the game" has been read.
   */
  #see(domain: string, role: DomainRole, topic: MessageTopic, date: string, batch: BatchState): KnownClient {
    let c = this.#domains.get(domain);
    if (!c) {
      c = { id: newId('cl'), status: 'suggested', reason: role, evidence: emptyEvidence(), isNew: { domain } };
      this.#domains.set(domain, c);
    }
    if (c.status !== 'suggested') return c;
    addEvidence(c.evidence, role, topic);
    if (c.reason === null || (isDomainRole(c.reason) && strongerRole(role, c.reason) === role)) c.reason = role;
    const seen = batch.seen.get(c);
    if (!seen || date < seen) batch.seen.set(c, date);
    return c;
  }

  /**
   * The batch's verdicts: each new or suggested domain it named becomes a scored client when its
   * evidence qualifies under the policy (resolve/discovery.ts), else stays (or is made) a suggested
   * one with the reason it is not a client.
   */
  #decide(batch: BatchState): void {
    const policy = this.#o.discovery ?? DEFAULT_DISCOVERY_POLICY;
    for (const [c, date] of batch.seen) {
      const verdict = discoveryVerdict(c.evidence, policy);
      const best: DiscoveryReason = isDomainRole(c.reason) ? c.reason : 'direct';
      const reason: DiscoveryReason = verdict.qualifies ? best : (verdict.reason ?? best);
      if (c.isNew) {
        batch.newClients.push({ id: c.id, domain: c.isNew.domain, status: verdict.qualifies ? 'active' : 'suggested', discovery: reason });
        delete c.isNew;
      } else if (verdict.qualifies) {
        // A suggestion that now has a real conversation: a client, scored over its whole history.
        batch.promoted.set(c.id, reason);
        this.#touchDay(c.id, date);
      } else batch.reasons.set(c.id, reason);
      c.status = verdict.qualifies ? 'active' : 'suggested';
      c.reason = verdict.qualifies ? null : reason;
    }
  }

  #seeContact(p: ResolvedParticipant, date: string, batch: BatchState): void {
    const existing = this.#contacts.get(p.email);
    if (!existing) {
      const c: ContactState = { id: newId('ct'), name: p.name, lastSeen: date };
      this.#contacts.set(p.email, c);
      batch.newContacts.push({ email: p.email, domain: p.domain, state: c });
      return;
    }
    let changed = false;
    if (!existing.name && p.name) {
      existing.name = p.name;
      changed = true;
    }
    if (!existing.lastSeen || date > existing.lastSeen) {
      existing.lastSeen = date;
      changed = true;
    }
    if (changed) batch.changedContacts.add(existing);
  }

  #row(m: ProcessedMessage, clientId: string, direction: 'inbound' | 'outbound', role: DomainRole): InteractionsTable {
    const now = this.#o.now().toISOString();
    return {
      id: newId('in'),
      workspace_id: this.#o.workspaceId,
      client_id: clientId,
      type: 'email',
      source: this.#o.sourceKind,
      dedupe_key: m.messageId,
      provider_id: null,
      thread_id: m.threadId,
      subject: m.subject,
      summary: m.summary,
      sentiment_label: m.sentiment.label,
      sentiment_score: m.sentiment.score,
      occurred_at: m.date,
      from_email: m.from?.email ?? '',
      to_emails: [...m.to, ...m.cc].map((a) => a.email).join(','),
      direction,
      opened: null,
      // What the client's own text says beyond tone (score/signals.ts); process.ts reads it for inbound mail only.
      signals: m.signals,
      addressed: m.addressed ? 1 : 0,
      role,
      topic: m.topic,
      content_hash: m.contentHash,
      created_at: now,
      updated_at: now,
    };
  }

  async #flushClientsAndContacts(trx: Transaction<Database>, batch: BatchState): Promise<void> {
    const now = this.#o.now().toISOString();
    const ws = this.#o.workspaceId;
    if (batch.newClients.length) {
      const rows = batch.newClients.map((c) => newClientRow({ id: c.id, workspaceId: ws, domain: c.domain, now, status: c.status, discovery: c.discovery }));
      await insertRows(trx, 'clients', rows);
      // A domain our mail names that did not qualify: the team may accept it (docs/events.md).
      for (const r of rows) {
        if (r.status !== 'suggested') continue;
        await recordEvent(trx, {
          workspaceId: ws,
          type: 'client.suggested',
          occurredAt: this.#o.now(),
          data: { client: { id: r.id, name: r.name, domain: r.primary_domain }, discovery: r.discovery ?? 'policy' },
          dedupeKey: `client.suggested:${r.id}`,
        });
      }
      await insertRows(
        trx,
        'client_domains',
        batch.newClients.map((c) => ({ workspace_id: ws, domain: c.domain, client_id: c.id })),
      );
      for (const c of batch.newClients) {
        if (c.status === 'active') this.counts.clientsCreated += 1;
        else this.counts.clientsSuggested += 1;
      }
    }
    for (const [id, reason] of batch.promoted) {
      await trx
        .updateTable('clients')
        .set({ status: 'active', discovery: reason, updated_at: now })
        .where('id', '=', id)
        .where('status', '=', 'suggested')
        .execute();
      this.counts.clientsCreated += 1;
    }
    for (const [id, reason] of batch.reasons) {
      await trx
        .updateTable('clients')
        .set({ discovery: reason })
        .where('id', '=', id)
        .where('status', '=', 'suggested')
        .where((eb) => eb.or([eb('discovery', 'is', null), eb('discovery', '<>', reason)]))
        .execute();
    }
    if (batch.newContacts.length) {
      await insertRows(
        trx,
        'contacts',
        batch.newContacts.map((c) => ({
          id: c.state.id,
          workspace_id: ws,
          client_id: this.#domains.get(c.domain)?.id ?? null,
          name: c.state.name,
          title: '',
          last_seen_at: c.state.lastSeen,
          created_at: now,
          updated_at: now,
        })),
      );
      await insertRows(
        trx,
        'contact_emails',
        batch.newContacts.map((c) => ({ workspace_id: ws, email: c.email, contact_id: c.state.id })),
      );
      this.counts.contactsCreated += batch.newContacts.length;
      for (const c of batch.newContacts) batch.changedContacts.delete(c.state);
    }
    await updateTextColumns(
      trx,
      'contacts',
      'id',
      [...batch.changedContacts].map((c) => ({ id: c.id, name: c.name, last_seen_at: c.lastSeen, updated_at: now })),
    );
  }

  async #storeInteractions(trx: Transaction<Database>, plans: Plan[]): Promise<void> {
    const ws = this.#o.workspaceId;
    // The stored copies, looked up by (client, Message-ID) pairs: the unique index
    // (workspace_id, client_id, dedupe_key) answers each pair with one probe, where a lookup by
    // Message-ID alone scanned every interaction of the workspace, once per batch.
    const pairs = new Map<string, [string, string]>();
    for (const { rows } of plans) for (const r of rows) pairs.set(`${r.client_id}\u0000${r.dedupe_key}`, [r.client_id, r.dedupe_key]);
    const existing = new Map<string, { id: string; hash: string }>();
    for (const part of chunks([...pairs.values()], INSERT_CHUNK)) {
      const rows = await trx
        .selectFrom('interactions')
        .select(['id', 'client_id', 'dedupe_key', 'content_hash'])
        .where('workspace_id', '=', ws)
        .where(sql<boolean>`(client_id, dedupe_key) in (values ${sql.join(part.map(([c, k]) => sql`(${c}, ${k})`))})`)
        .execute();
      for (const r of rows) existing.set(`${r.client_id}\u0000${r.dedupe_key}`, { id: r.id, hash: r.content_hash });
    }
    const inserts: InteractionsTable[] = [];
    const updates: InteractionsTable[] = [];
    /** Rows already planned in this batch, and whether they are to be inserted or updated. */
    const pending = new Map<string, { row: InteractionsTable; op: 'insert' | 'update' | 'none'; storedId?: string }>();
    for (const { rows, scored } of plans) {
      let outcome: 'added' | 'updated' | 'skipped' = 'skipped';
      for (const row of rows) {
        const k = `${row.client_id}\u0000${row.dedupe_key}`;
        const prior = pending.get(k);
        const stored = existing.get(k);
        if (prior) {
          // The same Message-ID twice in one batch: a copy with other content updates the first.
          if (prior.row.content_hash === row.content_hash) continue;
          Object.assign(prior.row, { ...row, id: prior.row.id, created_at: prior.row.created_at });
          if (prior.op === 'none') {
            prior.op = 'update';
            updates.push(prior.row);
          }
          if (outcome !== 'added') outcome = 'updated';
          this.#touch(row);
        } else if (!stored) {
          inserts.push(row);
          pending.set(k, { row, op: 'insert' });
          outcome = 'added';
          this.#touch(row);
        } else if (stored.hash !== row.content_hash) {
          const upd = { ...row, id: stored.id };
          updates.push(upd);
          pending.set(k, { row: upd, op: 'update' });
          if (outcome !== 'added') outcome = 'updated';
          this.#touch(row);
        } else {
          pending.set(k, { row: { ...row, id: stored.id }, op: 'none' });
        }
      }
      if (outcome === 'skipped') {
        this.counts.skipped += 1;
        this.counts.skippedBy.duplicate += 1;
      } else if (!scored) {
        // Stored, but only for suggested (or ignored) clients: kept and counted, not scored.
        this.counts.skipped += 1;
        this.counts.skippedBy.suggested += 1;
      } else this.counts[outcome] += 1;
    }
    await this.#threadBySubject(trx, [...inserts, ...updates]);
    await insertRows(trx, 'interactions', inserts);
    this.counts.interactionsCreated += inserts.length;
    for (const u of updates) {
      await trx
        .updateTable('interactions')
        .set({
          subject: u.subject,
          summary: u.summary,
          sentiment_label: u.sentiment_label,
          sentiment_score: u.sentiment_score,
          occurred_at: u.occurred_at,
          from_email: u.from_email,
          to_emails: u.to_emails,
          direction: u.direction,
          thread_id: u.thread_id,
          signals: u.signals,
          addressed: u.addressed,
          role: u.role,
          topic: u.topic,
          content_hash: u.content_hash,
          updated_at: u.updated_at,
        })
        .where('id', '=', u.id)
        .execute();
    }
  }

  /**
   * Replies without In-Reply-To or References join their conversation by subject
   * (resolve/threads.ts): each new one, the thread of the message it answers; each stored one, the
   * thread of a new message it turns out to answer (a mailbox's sent folder read before its inbox).
   * Sets `thread_id` on the batch's rows before they are written, updates the stored ones. Mail
   * with threading headers costs one narrow query per batch and finds nothing to do.
   */
  async #threadBySubject(trx: Transaction<Database>, rows: InteractionsTable[]): Promise<void> {
    // Per client: the span of its new rows and their subjects' keys, in one pass.
    const mine: InteractionsTable[] = [];
    const span = new Map<string, { from: number; to: number }>();
    const keysOf = new Map<string, Set<string>>();
    for (const r of rows) {
      const key = r.type === 'email' ? subjectKey(r.subject) : '';
      if (key === '') continue;
      mine.push(r);
      const at = Date.parse(r.occurred_at);
      const s = span.get(r.client_id);
      if (!s) span.set(r.client_id, { from: at, to: at });
      else {
        s.from = Math.min(s.from, at);
        s.to = Math.max(s.to, at);
      }
      let keys = keysOf.get(r.client_id);
      if (!keys) keysOf.set(r.client_id, (keys = new Set()));
      keys.add(key);
    }
    if (mine.length === 0) return;
    const ws = this.#o.workspaceId;
    const window = SUBJECT_THREAD_DAYS * DAY_MS;
    const iso = (ms: number) => new Date(ms).toISOString();
    const columns = ['id', 'client_id', 'dedupe_key', 'thread_id', 'subject', 'occurred_at'] as const;
    // Which clients have something to link: a new reply without threading headers, or a stored
    // one up to 30 days after a new message (found by a cheap filter, checked again in code).
    const wanted = new Set(mine.filter((r) => isUnthreaded(r) && isReplySubject(r.subject)).map((r) => r.client_id));
    // The stored e-mails of some of the batch's clients from `back` before their first new row to
    // 30 days after their last: one range over the index (client_id, occurred_at), narrowed per
    // client in code.
    type Part = [string, { from: number; to: number }][];
    const near = (part: Part, back: number) =>
      trx
        .selectFrom('interactions')
        .where('workspace_id', '=', ws)
        .where('type', '=', 'email')
        .where(
          'client_id',
          'in',
          part.map(([c]) => c),
        )
        .where('occurred_at', '>=', iso(Math.min(...part.map(([, t]) => t.from)) - back))
        .where('occurred_at', '<=', iso(Math.max(...part.map(([, t]) => t.to)) + window));
    const within = (r: { client_id: string; occurred_at: string; subject: string }, back: number): boolean => {
      const t = span.get(r.client_id);
      const at = Date.parse(r.occurred_at);
      return t !== undefined && at >= t.from - back && at <= t.to + window && (keysOf.get(r.client_id)?.has(subjectKey(r.subject)) ?? false);
    };
    for (const part of chunks([...span.entries()], INSERT_CHUNK)) {
      const orphans = await near(part, 0)
        .select(['client_id', 'subject', 'occurred_at'])
        .where((eb) => eb(eb.ref('thread_id'), '=', eb.ref('dedupe_key')))
        .where((eb) => eb.or(REPLY_SUBJECT_LIKE.map((p) => eb(sql<string>`lower(subject)`, 'like', p))))
        .execute();
      for (const o of orphans) if (within(o, 0) && isReplySubject(o.subject)) wanted.add(o.client_id);
    }
    if (wanted.size === 0) return;
    const stored: ThreadRow[] = [];
    for (const part of chunks(
      [...span.entries()].filter(([c]) => wanted.has(c)),
      INSERT_CHUNK,
    )) {
      const found = await near(part, window)
        .select([...columns])
        .execute();
      for (const r of found) if (within(r, window)) stored.push(r);
    }
    // A stored row this batch rewrites is read in its new form.
    const batchIds = new Set(mine.map((r) => r.id));
    const changed = linkSubjectThreads([...stored.filter((r) => !batchIds.has(r.id)), ...mine.filter((r) => wanted.has(r.client_id))]);
    if (changed.size === 0) return;
    for (const r of mine) {
      const thread = changed.get(r.id);
      if (thread !== undefined) r.thread_id = thread;
    }
    for (const r of stored) {
      const thread = changed.get(r.id);
      if (thread === undefined || batchIds.has(r.id)) continue;
      await trx.updateTable('interactions').set({ thread_id: thread }).where('id', '=', r.id).execute();
      this.#touchDay(r.client_id, r.occurred_at);
    }
  }

  #touch(row: InteractionsTable): void {
    this.#touchDay(row.client_id, row.occurred_at);
  }

  #touchDay(clientId: string, at: string): void {
    const day = at.slice(0, 10);
    for (const map of [this.touched, this.#batchTouched]) {
      const prev = map.get(clientId);
      if (!prev || day < prev) map.set(clientId, day);
    }
  }

  /** The filter's verdict on each message it set aside, with its evidence (once per Message-ID). */
  async #keepFiltered(trx: Transaction<Database>, batch: BatchState): Promise<void> {
    const at = this.#o.now().toISOString();
    const rows = new Map<string, FilteredMailTable>();
    for (const f of batch.filtered) {
      rows.set(f.messageId, {
        workspace_id: this.#o.workspaceId,
        message_id: f.messageId,
        run_id: this.#o.runId,
        occurred_at: f.date,
        sender: f.sender.slice(0, 320),
        subject: f.subject.slice(0, 500),
        reason: f.reason,
        evidence: f.evidence.slice(0, 200),
        location: f.location,
        created_at: at,
      });
    }
    for (const part of chunks([...rows.values()], FILTERED_CHUNK)) {
      await trx
        .insertInto('filtered_mail')
        .values(part)
        .onConflict((oc) => oc.columns(['workspace_id', 'message_id']).doNothing())
        .execute();
    }
  }

  async #saveProgress(trx: Transaction<Database>, batch: BatchState, cursor: SourceCursor): Promise<void> {
    await this.#keepFiltered(trx, batch);
    await recordIngestionErrors(trx, this.#o.runId, batch.errors, this.#o.now());
    await recordRunCounts(trx, this.#o.runId, this.counts);
    await saveCursor(trx, this.#o.workspaceId, this.#o.sourceKey, cursor, this.#o.now());
  }
}

interface Plan {
  msg: ProcessedMessage;
  rows: InteractionsTable[];
  clients: KnownClient[];
  /** Whether one of its clients is a scored one (else it is kept for suggested clients only). */
  scored: boolean;
}

const isDomainRole = (x: string | null): x is DomainRole => x !== null && (DOMAIN_ROLES as readonly string[]).includes(x);

class BatchState {
  newClients: Array<{ id: string; domain: string; status: 'active' | 'suggested'; discovery: DiscoveryReason }> = [];
  /** New or suggested clients the batch named, with the earliest day it named each. */
  seen = new Map<KnownClient, string>();
  /** Suggested clients that became scored ones in this batch, with the reason. */
  promoted = new Map<string, DiscoveryReason>();
  /** Suggested clients that stay so, with their reason now. */
  reasons = new Map<string, DiscoveryReason>();
  newContacts: Array<{ email: string; domain: string; state: ContactState }> = [];
  changedContacts = new Set<ContactState>();
  errors: Array<{ kind: string; reason: string; location: string }> = [];
  filtered: Array<Extract<ProcessResult, { outcome: 'filtered' }>> = [];
}

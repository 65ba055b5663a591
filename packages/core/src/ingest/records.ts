/**
 * Stores CRM and support records (HubSpot, Intercom): companies become or enrich clients,
 * contacts get names and titles, activities become interactions scored on the customer's own
 * words, and renewal deals become the client's outcomes (through clients/outcomes.ts, each deal
 * linked in external_refs to the outcome it recorded, so a deal that reopens or changes its day
 * takes its outcome back). One transaction per batch, with the source's cursor; idempotent by
 * provider id.
 */
import type { Transaction } from 'kysely';
import type { Db } from '../store/database.js';
import type { Updateable } from 'kysely';
import type { ClientsTable, Database, InteractionsTable } from '../store/schema.js';
import type { SentimentScorer, SourceCursor } from '../interfaces.js';
import type { ActivityRecord, CompanyRecord, ContactRecord, OutcomeRecord, ProviderRecord } from '../connectors/types.js';
import { registrableDomain } from '../resolve/domains.js';
import type { Resolver } from '../resolve/resolve.js';
import { newId, sha256Hex } from '../util/ids.js';
import { summarise } from './summary.js';
import { detectSignals } from '../score/signals.js';
import { emptyCounts, type BatchCheckpoint, type RunCounts } from './writer.js';
import { newClientRow } from '../store/clients.js';
import { saveCursor } from './cursors.js';
import { recordRunCounts } from './runs.js';
import { attributePatch } from '../clients/precedence.js';
import { markHealthStale } from '../health/stale.js';
import { recordProviderOutcome, withdrawProviderOutcome } from '../clients/outcomes.js';
import { isChsError } from '../errors.js';
import { silentLogger, type Logger } from '../util/logger.js';
import type { Clock } from '../util/time.js';

export interface RecordWriterOptions {
  db: Db;
  workspaceId: string;
  /** `hubspot`, `intercom`. */
  provider: string;
  resolver: Resolver;
  scorer: SentimentScorer;
  sourceKey: string;
  runId: string;
  checkpoint?: BatchCheckpoint;
  /** Records it leaves out for a reason worth telling (a renewal deal of a company that is no client). Default: drops everything. */
  logger?: Logger;
  /** "Now" for the data: an outcome is not after today. Default: the system clock. */
  clock?: Clock;
}

type Trx = Transaction<Database>;
type RefKind = 'company' | 'contact' | 'deal';
type WriteResult = 'added' | 'updated' | 'skipped' | 'unchanged' | 'filtered' | 'error';
/** Why a record was filtered (RunCounts.filteredBy). */
const OPEN_DEAL = 'open_deal';

export class RecordWriter {
  readonly counts: RunCounts = emptyCounts();
  readonly touched = new Map<string, string>();
  /** The same, of the batch being written: marked stale in its transaction (health/stale.ts). */
  #batchTouched = new Map<string, string>();
  readonly #o: RecordWriterOptions;

  constructor(options: RecordWriterOptions) {
    this.#o = options;
  }

  async write(records: ProviderRecord[], cursor: SourceCursor): Promise<void> {
    await this.#o.db.transaction().execute(async (trx) => {
      this.#batchTouched = new Map();
      // Companies first, then contacts, then activities and outcomes: later kinds resolve through earlier ones.
      const order = { company: 0, contact: 1, activity: 2, outcome: 3 } as const;
      const sorted = [...records].sort((a, b) => order[a.kind] - order[b.kind]);
      for (const r of sorted) {
        this.counts.processed += 1;
        const result = await this.#one(trx, r);
        if (result === 'skipped') {
          this.counts.skipped += 1;
          this.counts.skippedBy.no_client += 1;
        } else if (result === 'unchanged') {
          this.counts.skipped += 1;
          this.counts.skippedBy.duplicate += 1;
        } else if (result === 'filtered') {
          this.counts.filtered += 1;
          this.counts.filteredBy[OPEN_DEAL] = (this.counts.filteredBy[OPEN_DEAL] ?? 0) + 1;
        } else if (result === 'error') this.counts.errors += 1;
        else this.counts[result] += 1;
      }
      // The health of the clients it changed is out of date until a rebuild writes it.
      await markHealthStale(trx, this.#batchTouched, new Date());
      await saveCursor(trx, this.#o.workspaceId, this.#o.sourceKey, cursor);
      await recordRunCounts(trx, this.#o.runId, this.counts);
      if (this.#o.checkpoint) await this.#o.checkpoint(trx, this.counts, cursor, this.touched);
    });
  }

  #one(trx: Trx, r: ProviderRecord): Promise<WriteResult> {
    switch (r.kind) {
      case 'company':
        return this.#company(trx, r);
      case 'contact':
        return this.#contact(trx, r);
      case 'activity':
        return this.#activity(trx, r);
      case 'outcome':
        return this.#outcome(trx, r);
    }
  }

  async #ref(trx: Trx, kind: RefKind, externalId: string): Promise<string | undefined> {
    const r = await trx
      .selectFrom('external_refs')
      .select('internal_id')
      .where('workspace_id', '=', this.#o.workspaceId)
      .where('provider', '=', this.#o.provider)
      .where('kind', '=', kind)
      .where('external_id', '=', externalId)
      .executeTakeFirst();
    return r?.internal_id;
  }

  async #dropRef(trx: Trx, kind: RefKind, externalId: string): Promise<void> {
    await trx
      .deleteFrom('external_refs')
      .where('workspace_id', '=', this.#o.workspaceId)
      .where('provider', '=', this.#o.provider)
      .where('kind', '=', kind)
      .where('external_id', '=', externalId)
      .execute();
  }

  async #setRef(trx: Trx, kind: RefKind, externalId: string, internalId: string): Promise<void> {
    const updated_at = new Date().toISOString();
    await trx
      .insertInto('external_refs')
      .values({ workspace_id: this.#o.workspaceId, provider: this.#o.provider, kind, external_id: externalId, internal_id: internalId, updated_at })
      .onConflict((oc) => oc.columns(['workspace_id', 'provider', 'kind', 'external_id']).doUpdateSet({ internal_id: internalId, updated_at }))
      .execute();
  }

  async #clientByDomain(trx: Trx, domain: string): Promise<string | undefined> {
    const r = await trx
      .selectFrom('client_domains')
      .select('client_id')
      .where('workspace_id', '=', this.#o.workspaceId)
      .where('domain', '=', domain)
      .executeTakeFirst();
    return r?.client_id;
  }

  async #company(trx: Trx, r: CompanyRecord): Promise<'added' | 'updated' | 'skipped' | 'unchanged'> {
    const ws = this.#o.workspaceId;
    const now = new Date().toISOString();
    const domains = [...new Set(r.domains.map((d) => registrableDomain(d)).filter((d): d is string => !!d && !this.#o.resolver.isOwn(`x@${d}`)))];
    let clientId = await this.#ref(trx, 'company', r.providerId);
    for (const d of domains) clientId ??= await this.#clientByDomain(trx, d);
    if (!clientId) {
      if (domains.length === 0) return 'skipped'; // no domain: mail can never resolve to it
      const row = newClientRow({
        workspaceId: ws,
        domain: domains[0]!,
        name: r.name,
        source: this.#o.provider,
        mrr: r.mrr ?? null,
        renewalDate: r.renewalDate ?? null,
        csmOwner: r.csmOwner ?? null,
        now,
        discovery: 'crm',
      });
      clientId = row.id;
      await trx.insertInto('clients').values(row).execute();
      this.counts.clientsCreated += 1;
      for (const d of domains)
        await trx
          .insertInto('client_domains')
          .values({ workspace_id: ws, domain: d, client_id: clientId })
          .onConflict((oc) => oc.doNothing())
          .execute();
      await this.#setRef(trx, 'company', r.providerId, clientId);
      return 'added';
    }
    const current = await trx.selectFrom('clients').selectAll().where('id', '=', clientId).executeTakeFirstOrThrow();
    // Each attribute is set only over a source of the same or a lower rank (manual > hubspot >
    // intercom > domain): Intercom never replaces HubSpot's values, nor either a hand-set one.
    const patch: Updateable<ClientsTable> = attributePatch(
      current,
      { name: r.name || undefined, mrr: r.mrr, renewalDate: r.renewalDate, csmOwner: r.csmOwner },
      this.#o.provider,
    );
    // A company in the CRM is a client: a domain our mail only suggested (or the team ignored) becomes one.
    if (current.status !== 'active') Object.assign(patch, { status: 'active', discovery: 'crm' });
    let changed = Object.keys(patch).length > 0;
    if (changed)
      await trx
        .updateTable('clients')
        .set({ ...patch, updated_at: now })
        .where('id', '=', clientId)
        .execute();
    for (const d of domains) {
      const res = await trx
        .insertInto('client_domains')
        .values({ workspace_id: ws, domain: d, client_id: clientId })
        .onConflict((oc) => oc.doNothing())
        .executeTakeFirst();
      if (Number(res.numInsertedOrUpdatedRows ?? 0) > 0) changed = true;
    }
    await this.#setRef(trx, 'company', r.providerId, clientId);
    return changed ? 'updated' : 'unchanged';
  }

  async #contact(trx: Trx, r: ContactRecord): Promise<'added' | 'updated' | 'skipped' | 'unchanged'> {
    const ws = this.#o.workspaceId;
    const now = new Date().toISOString();
    if (!r.email || this.#o.resolver.isOwn(r.email)) return 'skipped';
    let clientId = r.companyProviderId ? await this.#ref(trx, 'company', r.companyProviderId) : undefined;
    if (!clientId && r.companyDomain) {
      const d = registrableDomain(r.companyDomain);
      if (d) clientId = await this.#clientByDomain(trx, d);
    }
    if (!clientId) {
      const p = this.#o.resolver.external({ email: r.email, name: r.name });
      if (p) clientId = await this.#clientByDomain(trx, p.domain);
    }
    const existing = await trx
      .selectFrom('contact_emails as e')
      .innerJoin('contacts as c', 'c.id', 'e.contact_id')
      .select(['c.id', 'c.name', 'c.title', 'c.client_id'])
      .where('e.workspace_id', '=', ws)
      .where('e.email', '=', r.email)
      .executeTakeFirst();
    if (!existing) {
      if (!clientId) return 'skipped';
      const id = newId('ct');
      await trx
        .insertInto('contacts')
        .values({ id, workspace_id: ws, client_id: clientId, name: r.name, title: r.title, last_seen_at: null, created_at: now, updated_at: now })
        .execute();
      await trx.insertInto('contact_emails').values({ workspace_id: ws, email: r.email, contact_id: id }).execute();
      await this.#setRef(trx, 'contact', r.providerId, id);
      this.counts.contactsCreated += 1;
      return 'added';
    }
    const patch: { name?: string; title?: string; client_id?: string } = {};
    if (r.name && r.name !== existing.name) patch.name = r.name;
    if (r.title && r.title !== existing.title) patch.title = r.title;
    if (clientId && !existing.client_id) patch.client_id = clientId;
    await this.#setRef(trx, 'contact', r.providerId, existing.id);
    if (Object.keys(patch).length === 0) return 'unchanged';
    await trx
      .updateTable('contacts')
      .set({ ...patch, updated_at: now })
      .where('id', '=', existing.id)
      .execute();
    return 'updated';
  }

  async #activity(trx: Trx, r: ActivityRecord): Promise<'added' | 'updated' | 'skipped' | 'unchanged'> {
    const ws = this.#o.workspaceId;
    const clientIds = new Set<string>();
    if (r.companyProviderId) {
      const c = await this.#ref(trx, 'company', r.companyProviderId);
      if (c) clientIds.add(c);
    }
    if (clientIds.size === 0) {
      for (const email of [...r.contactEmails, r.fromEmail, ...r.toEmails]) {
        if (!email) continue;
        const p = this.#o.resolver.external({ email, name: '' });
        const c = p ? await this.#clientByDomain(trx, p.domain) : undefined;
        if (c) clientIds.add(c);
        else {
          const viaContact = await trx
            .selectFrom('contact_emails as e')
            .innerJoin('contacts as c', 'c.id', 'e.contact_id')
            .select('c.client_id')
            .where('e.workspace_id', '=', ws)
            .where('e.email', '=', email)
            .executeTakeFirst();
          if (viaContact?.client_id) clientIds.add(viaContact.client_id);
        }
      }
    }
    if (clientIds.size === 0) return 'skipped';
    let sentiment = { label: 'neutral' as string, score: 0 };
    try {
      sentiment = this.#o.scorer.score(r.text);
    } catch {
      this.counts.problems.sentiment += 1;
    }
    const summary = summarise(r.text);
    // What the customer's own words say beyond tone (score/signals.ts); our side's notes carry none.
    const signals = r.direction === 'inbound' ? detectSignals(r.text).bits : 0;
    const dedupe = `${this.#o.provider}:${r.providerId}`;
    const hash = sha256Hex(
      JSON.stringify([r.type, r.occurredAt, r.subject, summary, r.fromEmail, r.toEmails, r.direction, r.opened, sentiment.score, signals]),
    );
    const now = new Date().toISOString();
    let outcome: 'added' | 'updated' | 'unchanged' = 'unchanged';
    for (const clientId of clientIds) {
      const stored = await trx
        .selectFrom('interactions')
        .select(['id', 'content_hash'])
        .where('workspace_id', '=', ws)
        .where('client_id', '=', clientId)
        .where('dedupe_key', '=', dedupe)
        .executeTakeFirst();
      const row: InteractionsTable = {
        id: stored?.id ?? newId('in'),
        workspace_id: ws,
        client_id: clientId,
        type: r.type,
        source: this.#o.provider,
        dedupe_key: dedupe,
        provider_id: r.providerId,
        thread_id: r.threadId ?? null,
        subject: r.subject,
        summary,
        sentiment_label: sentiment.label,
        sentiment_score: sentiment.score,
        occurred_at: r.occurredAt,
        from_email: r.fromEmail,
        to_emails: r.toEmails.join(','),
        direction: r.direction,
        opened: r.opened === null ? null : r.opened ? 1 : 0,
        signals,
        // A CRM activity or support conversation is the client talking to us.
        addressed: 1,
        role: null,
        topic: null,
        content_hash: hash,
        created_at: now,
        updated_at: now,
      };
      if (!stored) {
        await trx.insertInto('interactions').values(row).execute();
        this.counts.interactionsCreated += 1;
        outcome = 'added';
      } else if (stored.content_hash !== hash) {
        const { id: _id, created_at: _c, ...rest } = row;
        await trx.updateTable('interactions').set(rest).where('id', '=', stored.id).execute();
        if (outcome !== 'added') outcome = 'updated';
      } else continue;
      const day = r.occurredAt.slice(0, 10);
      for (const map of [this.touched, this.#batchTouched]) {
        const prev = map.get(clientId);
        if (!prev || day < prev) map.set(clientId, day);
      }
    }
    // Contacts seen in the activity: keep lastSeen current.
    for (const email of r.contactEmails) {
      await trx
        .updateTable('contacts')
        .set({ last_seen_at: r.occurredAt })
        .where('id', 'in', (eb) => eb.selectFrom('contact_emails').select('contact_id').where('workspace_id', '=', ws).where('email', '=', email))
        .where((eb) => eb.or([eb('last_seen_at', 'is', null), eb('last_seen_at', '<', r.occurredAt)]))
        .execute();
    }
    return outcome;
  }

  /**
   * A renewal deal: its outcome recorded on its company's client for its day, or withdrawn when
   * the deal is open again, now says another day or client, or its company is no client of ours
   * (left out, and logged: nothing is invented for it). A day recorded by hand is left as it is.
   */
  async #outcome(trx: Trx, r: OutcomeRecord): Promise<WriteResult> {
    const ws = this.#o.workspaceId;
    const logger = this.#o.logger ?? silentLogger;
    if (this.#o.provider !== 'hubspot') {
      logger.warn({ provider: this.#o.provider, deal: r.providerId }, 'outcome from a provider that cannot record outcomes; left out');
      return 'error';
    }
    const source = this.#o.provider;
    const before = await this.#ref(trx, 'deal', r.providerId);
    /** Takes back what the deal recorded before (unless another deal says the same day, or a person recorded over it). */
    const withdraw = async (): Promise<boolean> => {
      if (before === undefined) return false;
      await this.#dropRef(trx, 'deal', r.providerId);
      const shared = await trx
        .selectFrom('external_refs')
        .select('external_id')
        .where('workspace_id', '=', ws)
        .where('provider', '=', source)
        .where('kind', '=', 'deal')
        .where('internal_id', '=', before)
        .executeTakeFirst();
      return shared === undefined && (await withdrawProviderOutcome(trx, ws, before, source));
    };
    if (r.outcome === null || r.date === undefined || r.companyProviderId === undefined) return (await withdraw()) ? 'updated' : 'filtered';
    const clientId = await this.#ref(trx, 'company', r.companyProviderId);
    if (clientId === undefined) {
      logger.info(
        { provider: source, workspaceId: ws, deal: r.providerId, company: r.companyProviderId },
        'renewal deal left out: its company is not a client',
      );
      await withdraw();
      return 'skipped';
    }
    let recorded: Awaited<ReturnType<typeof recordProviderOutcome>>;
    try {
      recorded = await recordProviderOutcome(trx, ws, clientId, { date: r.date, outcome: r.outcome }, source, (this.#o.clock ?? (() => new Date()))());
    } catch (err) {
      if (!isChsError(err, 'INVALID_INPUT')) throw err;
      logger.warn({ provider: source, workspaceId: ws, deal: r.providerId, err: err.message }, 'renewal deal left out: not a valid outcome');
      return 'error';
    }
    if (before !== undefined && before !== recorded.id) await withdraw();
    await this.#setRef(trx, 'deal', r.providerId, recorded.id);
    return recorded.change === 'kept' ? 'unchanged' : recorded.change;
  }
}

/**
 * Stores CRM and support records (HubSpot, Intercom): companies become or enrich clients,
 * contacts get names and titles, activities become interactions scored on the customer's own
 * words. One transaction per batch, with the source's cursor; idempotent by provider id.
 */
import type { Transaction } from 'kysely';
import type { Db } from '../store/database.js';
import type { Updateable } from 'kysely';
import type { ClientsTable, Database, InteractionsTable } from '../store/schema.js';
import type { SentimentScorer, SourceCursor } from '../interfaces.js';
import type { ActivityRecord, CompanyRecord, ContactRecord, ProviderRecord } from '../connectors/types.js';
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
}

type Trx = Transaction<Database>;

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
      // Companies first, then contacts, then activities: later kinds resolve through earlier ones.
      const order = { company: 0, contact: 1, activity: 2 } as const;
      const sorted = [...records].sort((a, b) => order[a.kind] - order[b.kind]);
      for (const r of sorted) {
        this.counts.processed += 1;
        const outcome = r.kind === 'company' ? await this.#company(trx, r) : r.kind === 'contact' ? await this.#contact(trx, r) : await this.#activity(trx, r);
        if (outcome === 'skipped') {
          this.counts.skipped += 1;
          this.counts.skippedBy.no_client += 1;
        } else if (outcome === 'unchanged') {
          this.counts.skipped += 1;
          this.counts.skippedBy.duplicate += 1;
        } else this.counts[outcome] += 1;
      }
      // The health of the clients it changed is out of date until a rebuild writes it.
      await markHealthStale(trx, this.#batchTouched, new Date());
      await saveCursor(trx, this.#o.workspaceId, this.#o.sourceKey, cursor);
      await recordRunCounts(trx, this.#o.runId, this.counts);
      if (this.#o.checkpoint) await this.#o.checkpoint(trx, this.counts, cursor, this.touched);
    });
  }

  async #ref(trx: Trx, kind: 'company' | 'contact', externalId: string): Promise<string | undefined> {
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

  async #setRef(trx: Trx, kind: 'company' | 'contact', externalId: string, internalId: string): Promise<void> {
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
}

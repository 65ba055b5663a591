/**
 * HubSpot objects → engine records, the configurable property map, and the sync cursor.
 *
 * Every HubSpot property value is a string on the wire (numbers, epoch-ms and ISO dates alike).
 */
import { htmlToText, normaliseDomain } from '../text.js';
import type { ActivityRecord, ActivityType, CompanyRecord, ContactRecord, Cursor, OutcomeRecord } from '../types.js';

/**
 * Which HubSpot company properties hold the client fields. HubSpot has no standard MRR or
 * renewal property: accounts name their own, so the map is configuration (per workspace).
 */
export interface HubSpotPropertyMap {
  /** Numeric property with monthly recurring revenue. Default `mrr`. */
  mrr: string;
  /** Date property with the renewal date. Default `renewal_date`. */
  renewalDate: string;
  /** Owner property; `hubspot_owner_id` values are turned into the owner's e-mail. Default `hubspot_owner_id`. */
  csmOwner: string;
}

export const DEFAULT_PROPERTY_MAP: Readonly<HubSpotPropertyMap> = Object.freeze({
  mrr: 'mrr',
  renewalDate: 'renewal_date',
  csmOwner: 'hubspot_owner_id',
});

/** Every stream, in the order a sync reads them; `deals` only with a renewal pipeline mapped. */
export const STREAMS = ['companies', 'contacts', 'emails', 'meetings', 'calls', 'notes', 'deals'] as const;
export type Stream = (typeof STREAMS)[number];
const ENGAGEMENT_STREAMS: readonly Stream[] = ['emails', 'meetings', 'calls', 'notes'];
/** Streams whose ids are only unique per object type: their provider ids are `<stream>:<id>`. */
export const PREFIXED_STREAMS: readonly Stream[] = [...ENGAGEMENT_STREAMS, 'deals'];

/** Contacts name their last-modified property differently from every other object. */
export function lastModifiedProperty(stream: Stream): string {
  return stream === 'contacts' ? 'lastmodifieddate' : 'hs_lastmodifieddate';
}

export function streamProperties(stream: Stream, map: HubSpotPropertyMap): string[] {
  const lm = lastModifiedProperty(stream);
  switch (stream) {
    case 'companies':
      return [...new Set(['name', 'domain', 'hs_additional_domains', map.mrr, map.renewalDate, map.csmOwner, lm])];
    case 'contacts':
      return ['firstname', 'lastname', 'jobtitle', 'email', 'associatedcompanyid', lm];
    case 'emails':
      return [
        'hs_timestamp',
        'hs_email_direction',
        'hs_email_subject',
        'hs_email_text',
        'hs_email_html',
        'hs_email_status',
        'hs_email_headers',
        'hs_email_open_count',
        lm,
      ];
    case 'meetings':
      return ['hs_timestamp', 'hs_meeting_title', 'hs_meeting_body', 'hs_internal_meeting_notes', 'hs_meeting_outcome', lm];
    case 'calls':
      return ['hs_timestamp', 'hs_call_title', 'hs_call_body', 'hs_call_direction', lm];
    case 'notes':
      return ['hs_timestamp', 'hs_note_body', lm];
    case 'deals':
      return ['dealname', 'pipeline', 'dealstage', 'closedate', 'hs_is_closed', 'hs_is_closed_won', lm];
  }
}

/**
 * Where a HubSpot sync stands: `done[stream]` = every change modified before this epoch-ms has
 * been read; `current` = the stream being read, its window [start, end) and the next page;
 * `dealsPipeline` = the renewal pipeline `done.deals` was read for (another one is read anew).
 */
export interface HubSpotCursor {
  v: 1;
  done: Partial<Record<Stream, number>>;
  current?: { stream: Stream; start: number; end: number; after?: string };
  dealsPipeline?: string;
}

export function parseHubSpotCursor(c: Cursor | undefined): HubSpotCursor | undefined {
  if (!c || c['v'] !== 1 || typeof c['done'] !== 'object' || c['done'] === null) return undefined;
  const done: Partial<Record<Stream, number>> = {};
  for (const s of STREAMS) {
    const v = (c['done'] as Record<string, unknown>)[s];
    if (typeof v === 'number') done[s] = v;
  }
  const out: HubSpotCursor = { v: 1, done };
  if (typeof c['dealsPipeline'] === 'string') out.dealsPipeline = c['dealsPipeline'];
  const cur = c['current'] as Record<string, unknown> | undefined;
  if (cur && (STREAMS as readonly unknown[]).includes(cur['stream']) && typeof cur['start'] === 'number' && typeof cur['end'] === 'number') {
    out.current = {
      stream: cur['stream'] as Stream,
      start: cur['start'],
      end: cur['end'],
      ...(typeof cur['after'] === 'string' ? { after: cur['after'] } : {}),
    };
  }
  return out;
}

type Props = Record<string, string | null | undefined>;

const str = (p: Props, k: string): string => (p[k] ?? '').trim();

/** A HubSpot date value (`2024-09-30`, ISO datetime, or epoch ms) → `YYYY-MM-DD`. */
function toDay(value: string): string | undefined {
  const v = value.trim();
  if (!v) return undefined;
  if (/^\d{4}-\d{2}-\d{2}$/.test(v)) return v;
  const t = /^\d+$/.test(v) ? Number(v) : Date.parse(v);
  return Number.isFinite(t) ? new Date(t).toISOString().slice(0, 10) : undefined;
}

/** A HubSpot timestamp value → ISO 8601 UTC. */
function toIso(value: string): string | undefined {
  const v = value.trim();
  if (!v) return undefined;
  const t = /^\d+$/.test(v) ? Number(v) : Date.parse(v);
  return Number.isFinite(t) ? new Date(t).toISOString() : undefined;
}

export function mapCompany(id: string, p: Props, map: HubSpotPropertyMap, ownerEmail: (ownerId: string) => string | undefined): CompanyRecord {
  const domains = [str(p, 'domain'), ...str(p, 'hs_additional_domains').split(/[;,\s]+/)].map(normaliseDomain).filter((d) => d !== '');
  const out: CompanyRecord = { kind: 'company', providerId: id, name: str(p, 'name'), domains: [...new Set(domains)] };
  const mrrRaw = str(p, map.mrr).replace(/[, ]/g, '');
  if (mrrRaw !== '' && Number.isFinite(Number(mrrRaw))) out.mrr = Number(mrrRaw);
  const renewal = toDay(str(p, map.renewalDate));
  if (renewal) out.renewalDate = renewal;
  const owner = str(p, map.csmOwner);
  if (owner) out.csmOwner = map.csmOwner === 'hubspot_owner_id' ? (ownerEmail(owner) ?? owner) : owner;
  return out;
}

export function mapContact(id: string, p: Props): ContactRecord {
  const out: ContactRecord = {
    kind: 'contact',
    providerId: id,
    email: str(p, 'email').toLowerCase(),
    name: [str(p, 'firstname'), str(p, 'lastname')].filter(Boolean).join(' '),
    title: str(p, 'jobtitle'),
  };
  const company = str(p, 'associatedcompanyid');
  if (company) out.companyProviderId = company;
  return out;
}

interface EmailHeaders {
  from?: { email?: string };
  to?: Array<{ email?: string }>;
  cc?: Array<{ email?: string }>;
}

function parseHeaders(json: string): EmailHeaders {
  if (!json) return {};
  try {
    const v = JSON.parse(json) as unknown;
    return v && typeof v === 'object' ? v : {};
  } catch {
    return {};
  }
}

type EngagementStream = Exclude<Stream, 'companies' | 'contacts' | 'deals'>;

const TYPE_OF: Record<EngagementStream, ActivityType> = { emails: 'email', meetings: 'meeting', calls: 'call', notes: 'note' };

export interface Associations {
  companyIds: string[];
  contactIds: string[];
  contactEmails: string[];
}

/** An engagement → ActivityRecord; a string reason when it cannot be used (no timestamp). */
export function mapEngagement(stream: EngagementStream, id: string, p: Props, assoc: Associations): ActivityRecord | string {
  const occurredAt = toIso(str(p, 'hs_timestamp'));
  if (!occurredAt) return 'engagement without hs_timestamp';
  const type = TYPE_OF[stream];
  let subject = '';
  let text = '';
  let fromEmail = '';
  let toEmails: string[] = [];
  let direction: ActivityRecord['direction'] = 'outbound';
  let opened: boolean | null = null;
  switch (stream) {
    case 'emails': {
      subject = str(p, 'hs_email_subject');
      text = str(p, 'hs_email_text') || htmlToText(str(p, 'hs_email_html'));
      const h = parseHeaders(str(p, 'hs_email_headers'));
      fromEmail = (h.from?.email ?? '').toLowerCase();
      toEmails = [...(h.to ?? []), ...(h.cc ?? [])].map((a) => (a.email ?? '').toLowerCase()).filter(Boolean);
      direction = str(p, 'hs_email_direction') === 'INCOMING_EMAIL' ? 'inbound' : 'outbound';
      const opens = str(p, 'hs_email_open_count');
      // Opens are only tracked on mail we sent; a missing count means "not tracked", not "unopened".
      if (direction === 'outbound' && opens !== '' && Number.isFinite(Number(opens))) opened = Number(opens) > 0;
      break;
    }
    case 'meetings':
      subject = str(p, 'hs_meeting_title');
      text = htmlToText(str(p, 'hs_meeting_body') || str(p, 'hs_internal_meeting_notes'));
      break;
    case 'calls':
      subject = str(p, 'hs_call_title');
      text = htmlToText(str(p, 'hs_call_body'));
      direction = str(p, 'hs_call_direction') === 'INBOUND' ? 'inbound' : 'outbound';
      break;
    case 'notes':
      text = htmlToText(str(p, 'hs_note_body'));
      subject = text.split('\n')[0]?.slice(0, 120) ?? '';
      direction = 'internal';
      break;
  }
  const out: ActivityRecord = {
    kind: 'activity',
    providerId: `${stream}:${id}`,
    type,
    occurredAt,
    subject,
    text,
    fromEmail,
    toEmails,
    direction,
    opened,
    contactEmails: assoc.contactEmails,
    contactProviderIds: assoc.contactIds,
  };
  if (assoc.companyIds[0] !== undefined) out.companyProviderId = assoc.companyIds[0];
  return out;
}

/** What a stage of the renewal pipeline means for its deals. */
export type StageVerdict = 'won' | 'lost' | 'open';

/** A deal pipeline's stage as `GET /crm/v3/pipelines/deals/{pipelineId}` lists it (metadata values are strings). */
export interface PipelineStage {
  id: string;
  label: string;
  metadata: Record<string, string>;
}

/**
 * A stage's verdict from its metadata: `isClosed` "true" with `probability` "1.0" is closed won,
 * with "0.0" closed lost (HubSpot allows no other closed stage); `isClosed` "false" is open,
 * whatever its probability (an open stage may forecast 0 %). Undefined when the metadata cannot tell.
 */
export function stageVerdict(metadata: Readonly<Record<string, string>>): StageVerdict | undefined {
  const closed = metadata['isClosed'];
  const p = Number(metadata['probability']);
  if (closed === 'false') return 'open';
  if (closed !== 'true' || metadata['probability'] === undefined || !Number.isFinite(p)) return undefined;
  return p >= 1 ? 'won' : p <= 0 ? 'lost' : undefined;
}

/** A deal's own calculated properties (`hs_is_closed`, `hs_is_closed_won`): the fallback for a stage the pipeline did not list. */
function dealVerdict(p: Props): StageVerdict | undefined {
  const closed = str(p, 'hs_is_closed');
  const won = str(p, 'hs_is_closed_won');
  if (closed === 'false') return 'open';
  if (closed !== 'true') return undefined;
  return won === 'true' ? 'won' : won === 'false' ? 'lost' : undefined;
}

export interface DealContext {
  /** The renewal pipeline's id: a deal of another pipeline is no renewal. */
  pipelineId: string;
  /** The pipeline's stages by id → verdict (stageVerdict). */
  stages: ReadonlyMap<string, StageVerdict | undefined>;
  /** The associated companies: `primary` (the deal's primary company), `all` ids. */
  companies: { primary?: string | undefined; all: readonly string[] };
  /** `YYYY-MM-DD` (UTC) today: a deal closing later is not an outcome yet. */
  today: string;
}

/**
 * A renewal deal → OutcomeRecord, or a string reason when a closed deal cannot be recorded (no
 * close date, no company to place it on, a stage neither the pipeline nor the deal can tell).
 * Open deals, closed ones whose close date is still to come, and deals of another pipeline (the
 * search asks for the renewal pipeline's; this is the second lock) are records without an outcome.
 */
export function mapDeal(id: string, p: Props, ctx: DealContext): OutcomeRecord | string {
  const providerId = `deals:${id}`;
  if (str(p, 'pipeline') !== ctx.pipelineId) return { kind: 'outcome', providerId, outcome: null };
  const stage = str(p, 'dealstage');
  const verdict = (ctx.stages.has(stage) ? ctx.stages.get(stage) : undefined) ?? dealVerdict(p);
  if (verdict === undefined) return `stage "${stage}" is neither open nor closed won/lost in the pipeline's metadata`;
  const date = toDay(str(p, 'closedate'));
  if (verdict === 'open' || (date !== undefined && date > ctx.today)) return { kind: 'outcome', providerId, outcome: null };
  if (date === undefined) return `closed ${verdict} deal without a closedate`;
  const company = ctx.companies.primary ?? (ctx.companies.all.length === 1 ? ctx.companies.all[0] : undefined);
  if (company === undefined)
    return ctx.companies.all.length === 0
      ? `closed ${verdict} deal without an associated company`
      : `closed ${verdict} deal with ${ctx.companies.all.length} companies and none primary`;
  return { kind: 'outcome', providerId, outcome: verdict === 'won' ? 'renewed' : 'churned', date, companyProviderId: company };
}

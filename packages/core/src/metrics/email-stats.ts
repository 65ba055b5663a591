/**
 * E-mail engagement: GET /metrics/email-stats and GET /ingest/email-stats. One grouped query
 * per client over the window's e-mails; the response rate comes from threads (an outbound
 * e-mail whose next message in its thread is inbound was answered).
 */
import { sql } from 'kysely';
import type { Db } from '../store/database.js';
import { addDays } from '../util/time.js';
import { includedClients } from './summary.js';

const round4 = (x: number): number => Math.round(x * 10_000) / 10_000;
const ratio = (a: number, b: number): number => (b > 0 ? round4(a / b) : 0);
/** Items in topEngaged / leastEngaged / topClients. */
export const EMAIL_LIST_SIZE = 5;
export const INGEST_TOP_CLIENTS = 10;

interface ClientEmailRow {
  clientId: string;
  name: string;
  emails: number;
  sent: number;
  received: number;
  tracked: number;
  opened: number;
  answered: number;
  sentimentSum: number;
}

async function clientEmailRows(db: Db, workspaceId: string, now: Date, windowDays: number): Promise<ClientEmailRow[]> {
  const nextDir = db
    .selectFrom('interactions')
    .select([
      'client_id',
      'direction',
      'opened',
      'sentiment_score',
      sql<string | null>`case when thread_id is null then null else lead(direction) over (partition by client_id, thread_id order by occurred_at, id) end`.as(
        'next_dir',
      ),
    ])
    .where('workspace_id', '=', workspaceId)
    .where('type', '=', 'email')
    .where('occurred_at', '>=', addDays(now, -windowDays).toISOString())
    .where('occurred_at', '<=', now.toISOString())
    .where('client_id', 'in', includedClients(db, workspaceId));
  const rows = await db
    .selectFrom(nextDir.as('t'))
    .innerJoin('clients as k', 'k.id', 't.client_id')
    .select([
      't.client_id',
      'k.name',
      sql<number>`count(*)`.as('emails'),
      sql<number>`sum(case when t.direction = 'outbound' then 1 else 0 end)`.as('sent'),
      sql<number>`sum(case when t.direction = 'inbound' then 1 else 0 end)`.as('received'),
      sql<number>`sum(case when t.direction = 'outbound' and t.opened is not null then 1 else 0 end)`.as('tracked'),
      sql<number>`sum(case when t.direction = 'outbound' and t.opened = 1 then 1 else 0 end)`.as('opened'),
      sql<number>`sum(case when t.direction = 'outbound' and t.next_dir = 'inbound' then 1 else 0 end)`.as('answered'),
      sql<number>`sum(t.sentiment_score)`.as('s_sum'),
    ])
    .groupBy(['t.client_id', 'k.name'])
    .execute();
  return rows.map((r) => ({
    clientId: r.client_id,
    name: r.name,
    emails: Number(r.emails),
    sent: Number(r.sent),
    received: Number(r.received),
    tracked: Number(r.tracked),
    opened: Number(r.opened),
    answered: Number(r.answered),
    sentimentSum: Number(r.s_sum),
  }));
}

export interface EngagedClient {
  clientId: string;
  name: string;
  /** Opened / outbound e-mails with open tracking; 0 without tracking. */
  openRate: number;
  /** Outbound e-mails answered in their thread / outbound e-mails. */
  responseRate: number;
  emailCount: number;
}

export interface EmailEngagement {
  avgOpenRate: number;
  avgResponseRate: number;
  totalEmailsSent: number;
  totalEmailsReceived: number;
  totalClients: number;
  topEngaged: EngagedClient[];
  leastEngaged: EngagedClient[];
  /** Extension: whether any outbound e-mail in the window carried open tracking. */
  openTrackingEnabled: boolean;
  /** Extension: what the open rate means here. */
  note: string;
  windowDays: number;
}

const NO_TRACKING_NOTE = 'No source in this window supplies open tracking: open rates are 0.';
const TRACKING_NOTE = 'Open rates count only outbound e-mails whose source supplies open tracking.';

export async function emailEngagement(db: Db, workspaceId: string, options: { windowDays?: number; now: Date }): Promise<EmailEngagement> {
  const windowDays = options.windowDays ?? 30;
  const rows = await clientEmailRows(db, workspaceId, options.now, windowDays);
  const sum = (f: (r: ClientEmailRow) => number): number => rows.reduce((s, r) => s + f(r), 0);
  const tracked = sum((r) => r.tracked);
  const view = (r: ClientEmailRow): EngagedClient => ({
    clientId: r.clientId,
    name: r.name,
    openRate: ratio(r.opened, r.tracked),
    responseRate: ratio(r.answered, r.sent),
    emailCount: r.emails,
  });
  const byVolume = [...rows].sort((a, b) => b.emails - a.emails || a.name.localeCompare(b.name));
  const least = [...rows].sort((a, b) => a.emails - b.emails || a.name.localeCompare(b.name));
  return {
    avgOpenRate: ratio(
      sum((r) => r.opened),
      tracked,
    ),
    avgResponseRate: ratio(
      sum((r) => r.answered),
      sum((r) => r.sent),
    ),
    totalEmailsSent: sum((r) => r.sent),
    totalEmailsReceived: sum((r) => r.received),
    totalClients: rows.length,
    topEngaged: byVolume.slice(0, EMAIL_LIST_SIZE).map(view),
    leastEngaged: least.slice(0, EMAIL_LIST_SIZE).map(view),
    openTrackingEnabled: tracked > 0,
    note: tracked > 0 ? TRACKING_NOTE : NO_TRACKING_NOTE,
    windowDays,
  };
}

export interface IngestEmailStats {
  windowDays: number;
  emailsProcessed: number;
  emailsInbound: number;
  emailsOutbound: number;
  openTrackingEnabled: boolean;
  openRate: number;
  responseRate: number;
  /** Mean e-mail sentiment mapped to [0, 1]; 0.5 (neutral) without e-mails. */
  avgSentimentScore: number;
  topClients: { clientId: string; clientName: string; emailCount: number; avgSentiment: number; openRate: number }[];
  processingErrors: { parseErrors: number; attachmentErrors: number; sentimentErrors: number; charsetErrors: number };
  note: string;
}

export async function ingestEmailStats(db: Db, workspaceId: string, options: { windowDays?: number; now: Date }): Promise<IngestEmailStats> {
  const windowDays = options.windowDays ?? 30;
  const rows = await clientEmailRows(db, workspaceId, options.now, windowDays);
  const sum = (f: (r: ClientEmailRow) => number): number => rows.reduce((s, r) => s + f(r), 0);
  const emails = sum((r) => r.emails);
  const tracked = sum((r) => r.tracked);
  // Runs carry wall-clock times, so the window is open-ended towards the present.
  const errors = await db
    .selectFrom('ingestion_runs')
    .select([
      sql<number>`coalesce(sum(parse_errors), 0)`.as('parse'),
      sql<number>`coalesce(sum(attachment_errors), 0)`.as('attachment'),
      sql<number>`coalesce(sum(sentiment_errors), 0)`.as('sentiment'),
      sql<number>`coalesce(sum(charset_errors), 0)`.as('charset'),
    ])
    .where('workspace_id', '=', workspaceId)
    .where('started_at', '>=', addDays(options.now, -windowDays).toISOString())
    .executeTakeFirstOrThrow();
  const top = [...rows].sort((a, b) => b.emails - a.emails || a.name.localeCompare(b.name)).slice(0, INGEST_TOP_CLIENTS);
  return {
    windowDays,
    emailsProcessed: emails,
    emailsInbound: sum((r) => r.received),
    emailsOutbound: sum((r) => r.sent),
    openTrackingEnabled: tracked > 0,
    openRate: ratio(
      sum((r) => r.opened),
      tracked,
    ),
    responseRate: ratio(
      sum((r) => r.answered),
      sum((r) => r.sent),
    ),
    avgSentimentScore: emails > 0 ? round4((sum((r) => r.sentimentSum) / emails + 1) / 2) : 0.5,
    topClients: top.map((r) => ({
      clientId: r.clientId,
      clientName: r.name,
      emailCount: r.emails,
      avgSentiment: round4((r.sentimentSum / r.emails + 1) / 2),
      openRate: ratio(r.opened, r.tracked),
    })),
    processingErrors: {
      parseErrors: Number(errors.parse),
      attachmentErrors: Number(errors.attachment),
      sentimentErrors: Number(errors.sentiment),
      charsetErrors: Number(errors.charset),
    },
    note: tracked > 0 ? TRACKING_NOTE : NO_TRACKING_NOTE,
  };
}

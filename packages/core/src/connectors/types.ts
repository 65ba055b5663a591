/**
 * The provider connector contract: Google Mail, HubSpot and Intercom behind one small interface.
 *
 * Glossary
 * - provider:      `google`, `hubspot` or `intercom`.
 * - connector:     one provider account's reader, built by a factory (see registry.ts). It knows
 *                  its provider's wire and nothing of the store: it yields data and cursors.
 * - sync:          one run of a connector. `full` re-reads everything back to the horizon;
 *                  `quick` continues from the saved cursor (and does a full read when there is
 *                  none, or when the provider says the cursor is too old).
 * - batch:         what a sync yields: items plus the cursor to save *after* the items are
 *                  stored. Saving the cursor and the items in one transaction makes a restart
 *                  lose nothing and duplicate nothing (items are idempotent by providerId anyway).
 * - window:        the slice of provider data a batch covers (a time range, a list page, a
 *                  history page); `expectedIds` are the provider ids the provider listed in it.
 * - reconciliation: after a window the connector compares `expectedIds` with the ids it yielded;
 *                  an item that failed to fetch is tried again once, and if it still fails it is
 *                  listed in `unreconciled` with its reason. A source with unreconciled items
 *                  must not report itself healthy (the caller records them).
 * - resync:        the provider refused the incremental cursor (Gmail history 404); the
 *                  connector starts a windowed full read by itself and says so in the batch.
 * - park:          a daily quota is spent: the sync throws `ChsError('PROVIDER_RATE_LIMITED')`
 *                  with `details.resumeAt` (ISO); the caller parks the job until then and resumes
 *                  from the last saved cursor.
 * - needs reauth:  the credentials are dead (`invalid_grant`, revoked token, 401 that a refresh
 *                  cannot cure): the sync throws `ChsError('INTEGRATION_NEEDS_REAUTH')`, never
 *                  retried; after a reconnect the sync resumes from the last saved cursor.
 *
 * Items are `RawMessage` (Google, a `MailConnector`: the decoded RFC 5322 bytes, fed to the same
 * parser as local mail) or typed CRM/support records (HubSpot and Intercom, `RecordsConnector`s:
 * companies, contacts, activities, and HubSpot's renewal deals as outcomes);
 * a connector's `kind` says which. One suite, contract.test.ts, holds every connector to this.
 */
import type { RawMessage } from '../interfaces.js';
import type { Logger } from '../util/logger.js';
import type { Clock } from '../util/time.js';
import type { RetryPolicy } from './retry.js';

export const PROVIDERS = ['google', 'hubspot', 'intercom'] as const;
export type Provider = (typeof PROVIDERS)[number];

export function isProvider(value: string): value is Provider {
  return (PROVIDERS as readonly string[]).includes(value);
}

/** A connector's resumable position: plain JSON, opaque to everyone but its connector. */
export type Cursor = Record<string, unknown>;

/** A client company as a CRM / support tool knows it. Domains are additive across records. */
export interface CompanyRecord {
  kind: 'company';
  providerId: string;
  name: string;
  /** Lower-cased registrable-looking domains (no scheme, no `www.`); may be empty. */
  domains: string[];
  /** Monthly recurring revenue, in the account's currency. */
  mrr?: number;
  /** `YYYY-MM-DD`. */
  renewalDate?: string;
  /** The CSM owner: an e-mail address when the provider can tell it, else the provider's owner id. */
  csmOwner?: string;
}

export interface ContactRecord {
  kind: 'contact';
  providerId: string;
  /** Lower-cased; '' when the provider has none (such contacts cannot be resolved by mail). */
  email: string;
  name: string;
  title: string;
  companyProviderId?: string;
  /** The company's domain when known, so a contact resolves even before its company is stored. */
  companyDomain?: string;
}

export const ACTIVITY_TYPES = ['email', 'meeting', 'call', 'note', 'support_ticket'] as const;
export type ActivityType = (typeof ACTIVITY_TYPES)[number];

/** An interaction recorded by a CRM or support tool (not a raw e-mail). */
export interface ActivityRecord {
  kind: 'activity';
  providerId: string;
  type: ActivityType;
  /** ISO 8601 UTC. */
  occurredAt: string;
  subject: string;
  /**
   * Text to score for sentiment: the customer's own words where the provider separates them
   * (Intercom: only the customer's parts), else the body as recorded. Plain text, HTML removed.
   */
  text: string;
  /** Lower-cased, '' when unknown. */
  fromEmail: string;
  toEmails: string[];
  /** `inbound` client → us, `outbound` us → client, `internal` our own notes. */
  direction: 'inbound' | 'outbound' | 'internal';
  /** Open tracking: true / false when the provider tracks opens, null when it does not. */
  opened: boolean | null;
  companyProviderId?: string;
  /** Lower-cased addresses of the client-side people involved. */
  contactEmails: string[];
  contactProviderIds: string[];
  threadId?: string;
}

/** What a closed renewal deal says: won is `renewed`, lost is `churned`. */
export type RenewalOutcome = 'renewed' | 'churned';

/**
 * A deal of the mapped renewal pipeline (HubSpot): how the client's renewal ended, or that it has
 * not (yet) ended. Each read of the deal says what it says now, so a deal that reopened, moved from
 * won to lost or changed its close date replaces what it said before.
 */
export interface OutcomeRecord {
  kind: 'outcome';
  /** `deals:<id>`. */
  providerId: string;
  /** Closed won → `renewed`, closed lost → `churned`; null while open (or closing on a day still to come). */
  outcome: RenewalOutcome | null;
  /** `YYYY-MM-DD` (UTC): the day the deal closed. Set with an outcome. */
  date?: string;
  /** The deal's company: its primary one, else its only one. Set with an outcome. */
  companyProviderId?: string;
}

export type ProviderRecord = CompanyRecord | ContactRecord | ActivityRecord | OutcomeRecord;

/** A provider id that was listed for a window but could not be read, with the reason. */
export interface UnreconciledItem {
  providerId: string;
  reason: string;
}

export interface SyncBatch<T = RawMessage | ProviderRecord> {
  items: T[];
  /** Save this after storing `items`: resuming from it continues after this batch. */
  cursor: Cursor;
  /** What the batch covers, for progress and history: e.g. `messages after:… before:…`. */
  window: string;
  /** Provider ids the provider listed for this window (for reconciliation by the caller too). */
  expectedIds: string[];
  /** Listed ids that still failed after the retry pass. */
  unreconciled: UnreconciledItem[];
  /** Listed ids that disappeared before they could be read (deleted); not an error. */
  vanished: string[];
  /** Set on the batch where the connector started a full resync by itself. */
  resync?: { reason: string };
}

/**
 * What a connector tells of its read while it runs (docs/jobs.md#live-progress). Report the total
 * as soon as the provider can say it (before the first page when it can be counted up front), and
 * `itemsListed` before yielding each page, so the job's read counter moves before the page is stored.
 */
export interface SyncProgress {
  phase: string;
  itemsYielded: number;
  /**
   * The provider's own count of everything this read will list, over all its streams (Gmail's
   * `resultSizeEstimate` for the window, else the profile's `messagesTotal`; the sum of HubSpot's
   * search `total`s; the sum of Intercom's `total_count`s). An estimate, in the unit of `itemsListed`.
   */
  totalEstimate?: number;
  /** Rows the provider has listed so far in this read, in the unit of `totalEstimate` (records connectors). */
  itemsListed?: number;
  window?: string;
}

export interface SyncOptions {
  /** The saved cursor, if any. */
  cursor?: Cursor;
  mode: 'quick' | 'full';
  /** Horizon: the oldest data a full read goes back to. Default: the factory's `horizonDays`. */
  since?: Date;
  /** Upper bound of a full read. Default: the factory's clock "now". */
  until?: Date;
  signal?: AbortSignal;
  onProgress?: (p: SyncProgress) => void;
}

/**
 * A mail connector yields raw RFC 5322 messages for the same parser as local mail (Google).
 */
export interface MailConnector {
  readonly kind: 'mail';
  readonly provider: Provider;
  sync(options: SyncOptions): AsyncIterable<SyncBatch<RawMessage>>;
}

/** A records connector yields typed company / contact / activity records (HubSpot, Intercom). */
export interface RecordsConnector {
  readonly kind: 'records';
  readonly provider: Provider;
  sync(options: SyncOptions): AsyncIterable<SyncBatch<ProviderRecord>>;
}

/** Every connector is one of the two kinds; `kind` tells the caller which pipeline stores its items. */
export type Connector = MailConnector | RecordsConnector;

/** Stored credentials per provider (encrypted at rest by integrations/). */
export interface GoogleCredentials {
  accessToken: string;
  refreshToken?: string;
  clientId?: string;
  clientSecret?: string;
  /** ISO 8601. */
  expiresAt?: string;
  scope?: string;
  email?: string;
  /**
   * A Google Workspace service account with domain-wide delegation, acting for the mailbox
   * `email` (the JWT's `sub`): access tokens are minted with its key (JWT bearer grant), no
   * refresh token and no consent. Absent for a user's own sign-in.
   */
  serviceAccount?: ServiceAccountKey;
}

/** The parts of a service account's JSON key the JWT bearer grant needs. */
export interface ServiceAccountKey {
  clientEmail: string;
  /** PEM (PKCS #8). */
  privateKey: string;
  privateKeyId?: string;
}

export interface TokenCredentials {
  accessToken: string;
}

/**
 * HubSpot: a private-app token (it does not expire), or a public app's OAuth tokens: an access
 * token that lives 30 minutes, refreshed with the refresh token and the app's id and secret.
 */
export interface HubSpotCredentials {
  accessToken: string;
  refreshToken?: string;
  clientId?: string;
  clientSecret?: string;
  /** ISO 8601; OAuth tokens only. */
  expiresAt?: string;
}

export interface CredentialsByProvider {
  google: GoogleCredentials;
  hubspot: HubSpotCredentials;
  intercom: TokenCredentials;
}

/** What every connector factory takes besides its provider-specific options. */
export interface ConnectorBaseOptions {
  /** Default: drops everything. Tokens are never logged. */
  logger?: Logger;
  /** "Now" for default windows. Default: the system clock. */
  clock?: Clock;
  /** Retries, backoff and the park threshold. Default: see DEFAULT_RETRY_POLICY. */
  retry?: Partial<RetryPolicy>;
  /** Parallel requests per account. Default 5 (Google), 4 (HubSpot), 5 (Intercom). */
  concurrency?: number;
  /** How far back a full read goes when `since` is not given. Default 365 days. */
  horizonDays?: number;
}

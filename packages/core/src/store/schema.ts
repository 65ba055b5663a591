/**
 * Row types of the store, one interface per table. Columns are snake_case; domain types live
 * elsewhere and small mappers convert. Portable across SQLite and PostgreSQL:
 * - timestamps are ISO 8601 UTC strings (`Date#toISOString()`), so text order is time order and
 *   `substr(col, 1, 10)` is the UTC day on both dialects;
 * - booleans are integers 0/1;
 * - JSON documents are text (`*_json`).
 */
import type { Generated } from 'kysely';

export interface WorkspacesTable {
  /** The workspace's domain, e.g. `acme.com`: the API's `workspaceId`. */
  id: string;
  name: string;
  plan: string;
  billing_status: string;
  created_at: string;
  updated_at: string;
}

/** Domains the workspace's own staff write from (the workspace id is always one of them). */
interface WorkspaceDomainsTable {
  workspace_id: string;
  domain: string;
}

export interface UsersTable {
  id: string;
  workspace_id: string;
  email: string;
  name: string;
  title: string;
  role: string;
  has_completed_onboarding: number;
  created_at: string;
  last_login_at: string | null;
  /** A new address waiting for confirmation; `email` stays the confirmed one until then. */
  pending_email: string | null;
  /** SHA-256 hex of the single-use confirmation token sent to `pending_email`. */
  pending_email_token_hash: string | null;
  /** When that token stops being accepted. */
  pending_email_expires_at: string | null;
}

export interface ApiKeysTable {
  id: string;
  workspace_id: string;
  user_id: string;
  name: string;
  /** SHA-256 hex of the full key; the key itself is never stored. */
  key_hash: string;
  /** Masked preview shown in listings, e.g. `sk-Ab12…9xYz`. */
  key_preview: string;
  is_active: number;
  created_at: string;
  last_used_at: string | null;
  /** Who made the key: the id of the key whose request created it, or `cli`; null before migration 008. */
  created_by: string | null;
}

/** Workspace settings: one JSON document per workspace (profile lives on the user). */
interface SettingsTable {
  workspace_id: string;
  data_json: string;
  updated_at: string;
}

/** Per-workspace blocklist: a domain (covers its subdomains) or a full address. */
interface BlocklistTable {
  workspace_id: string;
  entry: string;
  created_at: string;
}

export interface ClientsTable {
  id: string;
  workspace_id: string;
  name: string;
  /** Where the name came from: `domain` (derived), `hubspot`, `intercom`, `manual`. */
  name_source: string;
  primary_domain: string;
  mrr: number | null;
  renewal_date: string | null;
  csm_owner: string | null;
  is_excluded: number;
  /**
   * `active` (a scored client), `suggested` (named by mail that did not qualify it; not scored,
   * not in metrics) or `ignored` (a suggestion turned down). Migration 013.
   */
  status: string;
  /** Why the row exists or was suggested: a DiscoveryReason (clients/discovery.ts); null before 013. */
  discovery: string | null;
  /**
   * Where mrr, renewal_date, csm_owner and is_excluded came from: `manual`, `hubspot`, `intercom`;
   * null when no source holds the attribute. A source never overwrites a more authoritative one
   * (clients/precedence.ts).
   */
  mrr_source: string | null;
  renewal_source: string | null;
  csm_source: string | null;
  excluded_source: string | null;
  /** Current health score (0–100) and when it was computed; null until first computed. */
  health_score: number | null;
  health_updated_at: string | null;
  last_interaction_at: string | null;
  /** 1 at risk, 0 not, null never scored: what client.risk_entered/cleared compare with (migration 015). */
  risk_state: number | null;
  /** The score last announced by client.score_changed (or the first score); null until scored. */
  announced_score: number | null;
  /**
   * The earliest UTC day whose snapshots are out of date (its interactions changed and its rebuild
   * has not written that day since); null when its history is up to date. Migration 017.
   */
  health_stale_from: string | null;
  /** When health_stale_from was last set (wall clock); null when it is. Migration 017. */
  health_stale_at: string | null;
  /** Times the client was marked stale (null: never): a rebuild clears the mark only if it is what it read. Migration 020. */
  health_stale_seq: number | null;
  created_at: string;
  updated_at: string;
}

interface ClientDomainsTable {
  workspace_id: string;
  domain: string;
  client_id: string;
}

interface ContactsTable {
  id: string;
  workspace_id: string;
  client_id: string | null;
  name: string;
  title: string;
  last_seen_at: string | null;
  created_at: string;
  updated_at: string;
}

interface ContactEmailsTable {
  workspace_id: string;
  email: string;
  contact_id: string;
}

export interface InteractionsTable {
  id: string;
  workspace_id: string;
  client_id: string;
  /** `email`, `meeting`, `call`, `note`, `support_ticket`, … */
  type: string;
  /** Where it came from: `mbox`, `eml`, `maildir`, `google`, `hubspot`, `intercom`. */
  source: string;
  /**
   * De-duplication key, unique per (workspace, client): the normalised Message-ID for mail
   * (a content hash when missing), the provider's object id otherwise.
   */
  dedupe_key: string;
  provider_id: string | null;
  thread_id: string | null;
  subject: string;
  summary: string;
  /** `positive`, `neutral` or `negative`. */
  sentiment_label: string;
  /** In [-1, 1]. */
  sentiment_score: number;
  occurred_at: string;
  from_email: string;
  /** Comma-separated recipient addresses (To, then Cc). */
  to_emails: string;
  /** `inbound` (client → us), `outbound` (us → client). */
  direction: string;
  /** 1 opened, 0 not opened, null when the source has no open tracking. */
  opened: number | null;
  /**
   * What the client's own new text says beyond its tone, as a bit set (score/signals.ts):
   * 1 churn intent, 2 a follow-up ("still waiting"), 4 asks for an answer. 0 for our own mail.
   */
  signals: number;
  /**
   * 1 when written to our people directly (one of them in To, person to person), 0 when we were
   * only copied or one of many recipients: only addressed mail can wait for our reply.
   */
  addressed: number;
  /** The part the client's domain plays in the message (resolve/discovery.ts DomainRole); null for CRM records and rows before 013. */
  role: string | null;
  /** What the message is about: `work`, `personal`, `unclear` (score/personal.ts); null as `role`. */
  topic: string | null;
  /** Hash of the stored fields, to tell an unchanged re-ingest from a changed one. */
  content_hash: string;
  created_at: string;
  updated_at: string;
}

/**
 * One row per client and UTC day: the score as it was at the end of that day, and what explains
 * it in compact form (store/history-codec.ts): `detail` holds the ids of its parts (shared by the
 * days that have the same skeletons) and the day's own figures. Read through health/snapshots.ts,
 * which gives back the components, reason, sentence and evidence.
 */
export interface HealthSnapshotsTable {
  client_id: string;
  date: string;
  score: number;
  /** Null since migration 019: the confidence is in `detail` (history-codec.ts packDetail). */
  confidence: number | null;
  detail: Uint8Array;
}

/** A health model learned from renewal outcomes (migration 022; health/models.ts writes it). */
export interface HealthModelsTable {
  workspace_id: string;
  /** 1, 2, … per workspace. */
  version: number;
  /** offered | rejected | active | retired. */
  status: string;
  /** JSON: health/models.ts HealthModelFit. */
  fit_json: string;
  created_at: string;
  applied_at: string | null;
  /** The model active when this one was applied; null: the hand-written one. */
  previous_version: number | null;
}

/** How a client's renewal ended, one per client and day (migration 021; clients/outcomes.ts writes it). */
export interface ClientOutcomesTable {
  id: string;
  workspace_id: string;
  client_id: string;
  /** YYYY-MM-DD. */
  date: string;
  /** renewed | churned | downgraded. */
  outcome: string;
  mrr_before: number | null;
  mrr_after: number | null;
  /** Where it was recorded: csv | api | hubspot. */
  source: string;
  created_at: string;
  updated_at: string;
}

/** A skeleton of a snapshot part (components; reason and sentence; evidence), once per workspace. */
interface HealthPartsTable {
  id: Generated<number>;
  workspace_id: string;
  /** SHA-256 (base64url) of `body`. */
  hash: string;
  body: string;
}

export interface IntegrationsTable {
  id: string;
  workspace_id: string;
  provider: string;
  /** The account within (workspace, provider): the lower-cased mailbox address for Google, '' otherwise. */
  account: Generated<string>;
  /** `connected`, `needs_reauth`, `disconnected`. */
  status: string;
  account_email: string | null;
  /** AES-256-GCM ciphertext of the provider credentials (JSON). */
  credentials_enc: string;
  scope: string | null;
  expires_at: string | null;
  has_refresh: number;
  config_json: string | null;
  last_sync_at: string | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
}

export interface JobsTable {
  id: string;
  workspace_id: string;
  /** `sync`, `backfill`, `ingest`. */
  kind: string;
  /** `google`, `hubspot`, `intercom`, `mbox`, … One active job per (workspace, source). */
  source: string;
  /** `queued`, `running`, `parked`, `completed`, `failed`, `cancelled`. */
  state: string;
  /** Jobs started together (one per source of a run) share it; the API reports it as the job id. */
  group_id: string | null;
  params_json: string;
  progress_json: string;
  items_processed: number;
  /** Items read from the source, stored or not yet (live; written outside the batch transactions). */
  items_read: number;
  total_items: number | null;
  items_added: number;
  items_updated: number;
  items_skipped: number;
  items_filtered: number;
  errors_count: number;
  errors_json: string;
  cursor_json: string | null;
  /** The running attempt's live state (jobs/repository.ts JobLive), or null. */
  live_json: string | null;
  lease_owner: string | null;
  lease_expires_at: string | null;
  parked_until: string | null;
  attempts: number;
  last_error: string | null;
  created_at: string;
  started_at: string | null;
  completed_at: string | null;
  updated_at: string;
}

/** Append-only event log of a job: transitions, progress, errors. */
interface JobEventsTable {
  id: Generated<number>;
  job_id: string;
  at: string;
  type: string;
  data_json: string;
}

/** One row per ingestion run (local mailbox or provider), with its counts. */
interface IngestionRunsTable {
  id: string;
  workspace_id: string;
  job_id: string | null;
  source: string;
  /** `running`, `completed`, `failed`. */
  status: string;
  started_at: string;
  completed_at: string | null;
  items_processed: number;
  items_added: number;
  items_updated: number;
  items_skipped: number;
  items_filtered: number;
  errors_count: number;
  parse_errors: number;
  charset_errors: number;
  attachment_errors: number;
  sentiment_errors: number;
  /** `{reason: count}` of what the filter dropped. */
  filtered_json: string;
  /** `{reason: count}` of the skipped messages (`suggested`: stored for suggested clients only); migration 013. */
  skipped_json: string;
  clients_created: number;
  contacts_created: number;
}

/** Messages that could not be ingested, each with its reason. */
interface IngestionErrorsTable {
  id: Generated<number>;
  run_id: string;
  at: string;
  kind: string;
  reason: string;
  /** Where the message was: file path, mbox offset, provider id. */
  location: string;
}

/** Resumable position of a source, saved in the same transaction as the batch it follows. */
interface SourceCursorsTable {
  workspace_id: string;
  source_key: string;
  cursor_json: string;
  updated_at: string;
}

/** Large mailbox ingestion sessions (`/ingest/v2/*`). */
export interface IngestionSessionsTable {
  id: string;
  workspace_id: string;
  job_id: string | null;
  status: string;
  config_json: string;
  stats_json: string;
  errors_json: string;
  started_at: string;
  updated_at: string;
  completed_at: string | null;
}

/** Sent notifications; the unique key makes every alert at most once. */
interface NotificationLogTable {
  id: string;
  workspace_id: string;
  kind: string;
  dedupe_key: string;
  recipients: string;
  subject: string;
  transport: string;
  status: string;
  sent_at: string;
}

/** Provider object id → our client / contact id. */
interface ExternalRefsTable {
  workspace_id: string;
  provider: string;
  /** `company` → clients.id, `contact` → contacts.id, `deal` (a HubSpot renewal deal, `deals:<id>`) → client_outcomes.id. */
  kind: string;
  external_id: string;
  internal_id: string;
  updated_at: string;
}

/** Provider sign-ins started over HTTP, waiting for their callback (integrations/oauth-states.ts). */
interface OAuthStatesTable {
  /** SHA-256 (hex) of the `state` parameter; the state itself is never stored. */
  state_hash: string;
  workspace_id: string;
  provider: string;
  /** The PKCE code verifier, sealed with the secret key (bound to the workspace). */
  verifier_enc: string;
  redirect_uri: string;
  /** The user whose key started the sign-in. */
  created_by: string | null;
  created_at: string;
  expires_at: string;
  /** Set when a callback consumed it: single use. */
  used_at: string | null;
}

/** Messages the filter set aside, one row each, with what showed it (ingest/writer.ts). */
export interface FilteredMailTable {
  workspace_id: string;
  /** Normalised Message-ID (a content hash when missing), as interactions.dedupe_key. */
  message_id: string;
  run_id: string;
  occurred_at: string | null;
  sender: string;
  subject: string;
  /** A FilterReason (parse/filter.ts): `bulk`, `list`, `auto_reply`, `bounce`, `no_reply`, `calendar`, `blocklist`. */
  reason: string;
  /** What showed it, in a few words: `List-Unsubscribe header`, `footer: "unsubscribe"`… */
  evidence: string;
  location: string;
  created_at: string;
}

/** The outbox (migration 015, docs/events.md): written only by events/outbox.ts. */
interface EventsTable {
  seq: Generated<number>;
  id: string;
  workspace_id: string;
  type: string;
  occurred_at: string;
  data_json: string;
  dedupe_key: string | null;
  created_at: string;
}

/** Written only by events/endpoints.ts. */
interface WebhookEndpointsTable {
  id: string;
  workspace_id: string;
  url: string;
  /** `standard` | `slack`. */
  kind: string;
  description: string | null;
  /** JSON array of event types. */
  events_json: string;
  enabled: number;
  /** Why it was disabled: `user`, `gone` (the receiver answered 410), `failing` (failing for days). */
  disabled_reason: string | null;
  secret_enc: string;
  previous_secret_enc: string | null;
  previous_secret_expires_at: string | null;
  /** First failure since the last success; null when the last delivery succeeded. */
  failing_since: string | null;
  created_at: string;
  updated_at: string;
}

/** Written only by events/deliveries.ts. */
interface WebhookDeliveriesTable {
  id: string;
  workspace_id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  /** `pending` | `succeeded` | `failed`. */
  state: string;
  attempts: number;
  next_attempt_at: string;
  lease_owner: string | null;
  lease_expires_at: string | null;
  last_status: number | null;
  last_error: string | null;
  last_attempt_at: string | null;
  /** The last attempts: JSON array of {at, status, error, durationMs}. */
  attempts_json: string;
  delivered_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface Database {
  workspaces: WorkspacesTable;
  workspace_domains: WorkspaceDomainsTable;
  users: UsersTable;
  api_keys: ApiKeysTable;
  settings: SettingsTable;
  blocklist: BlocklistTable;
  clients: ClientsTable;
  client_domains: ClientDomainsTable;
  contacts: ContactsTable;
  contact_emails: ContactEmailsTable;
  interactions: InteractionsTable;
  health_snapshots: HealthSnapshotsTable;
  health_parts: HealthPartsTable;
  client_outcomes: ClientOutcomesTable;
  health_models: HealthModelsTable;
  integrations: IntegrationsTable;
  jobs: JobsTable;
  job_events: JobEventsTable;
  ingestion_runs: IngestionRunsTable;
  ingestion_errors: IngestionErrorsTable;
  source_cursors: SourceCursorsTable;
  ingestion_sessions: IngestionSessionsTable;
  notification_log: NotificationLogTable;
  external_refs: ExternalRefsTable;
  oauth_states: OAuthStatesTable;
  filtered_mail: FilteredMailTable;
  events: EventsTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_deliveries: WebhookDeliveriesTable;
}

/** Domain types of the workspace module (rows are mapped to these; see store/schema.ts). */

export interface Workspace {
  /** The workspace's own registrable domain, lower-cased: the API's `workspaceId`. */
  id: string;
  name: string;
  plan: string;
  billingStatus: string;
  createdAt: string;
  updatedAt: string;
}

export interface User {
  id: string;
  workspaceId: string;
  email: string;
  name: string;
  title: string;
  /** `owner` for the user made with the workspace. */
  role: string;
  hasCompletedOnboarding: boolean;
  createdAt: string;
  /** Last time one of the user's keys was used (flushed by KeyUsageTracker); null when never. */
  lastLoginAt: string | null;
  /** A new address asked for and not yet confirmed (alerts still go to `email`); null when none. */
  pendingEmail: string | null;
  /** When the confirmation token of `pendingEmail` expires. */
  pendingEmailExpiresAt: string | null;
}

/** An API key as listed: never the full key, only its masked preview. */
export interface ApiKey {
  id: string;
  workspaceId: string;
  userId: string;
  name: string;
  /** Masked preview, e.g. `sk-Ab12…9xYz`. */
  preview: string;
  isActive: boolean;
  createdAt: string;
  lastUsedAt: string | null;
  /** Who made the key: the id of the key whose request created it, or `cli`; null for keys older than this record. */
  createdBy: string | null;
}

/** The result of creating a key: the only moment the full key exists outside its owner. */
export interface CreatedApiKey extends ApiKey {
  /** The full key (`sk-…`). Shown once; only its SHA-256 hash is stored. */
  key: string;
}

export {
  syncProvider,
  accountCursorKey,
  dropSyncCursors,
  type AccountSyncResult,
  type ProviderSyncDeps,
  type ProviderSyncInput,
  type ProviderSyncSummary,
  type FaultHook,
  type FaultPoint,
} from './provider-sync.js';

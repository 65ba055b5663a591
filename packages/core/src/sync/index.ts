export { syncProvider, type ProviderSyncDeps, type ProviderSyncInput, type ProviderSyncSummary } from './provider-sync.js';

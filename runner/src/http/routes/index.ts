import type { RouteModule } from '../types.js';
import { clientRoutes } from './clients.js';
import { outcomeRoutes } from './outcomes.js';
import { suggestedClientRoutes } from './suggested-clients.js';
import { metricsRoutes } from './metrics.js';
import { healthModelRoutes } from './health-models.js';
import { ingestEmailStatsRoutes } from './ingest-email-stats.js';
import { integrationStatusRoutes } from './integrations-status.js';
import { integrationSettingsRoutes } from './integrations-settings.js';
import { ingestRoutes } from './ingest.js';
import { integrationSyncRoutes } from './integrations-sync.js';
import { integrationConnectRoutes } from './integrations-connect.js';
import { ingestV2Routes } from './ingest-v2.js';
import { webhookRoutes } from './webhooks.js';

/** Every route module of the API, registered under `/api` in this order. */
export const routeModules: RouteModule[] = [
  clientRoutes,
  outcomeRoutes,
  suggestedClientRoutes,
  metricsRoutes,
  healthModelRoutes,
  ingestEmailStatsRoutes,
  integrationStatusRoutes,
  integrationSettingsRoutes,
  ingestRoutes,
  integrationSyncRoutes,
  integrationConnectRoutes,
  ingestV2Routes,
  webhookRoutes,
];

import type { Migration } from 'kysely';
import * as m001 from './001-initial.js';
import * as m002 from './002-external-refs.js';
import * as m003 from './003-metrics-indexes.js';
import * as m004 from './004-job-groups.js';
import * as m005 from './005-snapshot-index-trim.js';
import * as m006 from './006-interaction-signals.js';
import * as m007 from './007-attribute-sources.js';
import * as m008 from './008-keys-created-by.js';
import * as m009 from './009-pending-email.js';
import * as m010 from './010-oauth-states.js';
import * as m011 from './011-integration-accounts.js';
import * as m012 from './012-interaction-index-trim.js';
import * as m013 from './013-client-discovery.js';
import * as m014 from './014-live-progress.js';
import * as m015 from './015-events.js';
import * as m016 from './016-compact-history.js';
import * as m017 from './017-health-stale.js';
import * as m018 from './018-pg-snapshot-date-index.js';
import * as m019 from './019-snapshot-confidence-in-detail.js';
import * as m020 from './020-health-stale-seq.js';
import * as m021 from './021-client-outcomes.js';
import * as m022 from './022-health-models.js';

/** Every migration, by name; names sort in the order they run. Shipped in code, never read from disk. */
export const migrations: Record<string, Migration> = {
  '001-initial': m001,
  '002-external-refs': m002,
  '003-metrics-indexes': m003,
  '004-job-groups': m004,
  '005-snapshot-index-trim': m005,
  '006-interaction-signals': m006,
  '007-attribute-sources': m007,
  '008-keys-created-by': m008,
  '009-pending-email': m009,
  '010-oauth-states': m010,
  '011-integration-accounts': m011,
  '012-interaction-index-trim': m012,
  '013-client-discovery': m013,
  '014-live-progress': m014,
  '015-events': m015,
  '016-compact-history': m016,
  '017-health-stale': m017,
  '018-pg-snapshot-date-index': m018,
  '019-snapshot-confidence-in-detail': m019,
  '020-health-stale-seq': m020,
  '021-client-outcomes': m021,
  '022-health-models': m022,
};

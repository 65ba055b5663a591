export * from './interfaces.js';
export * from './errors.js';
export { createEngine, type Engine, type EngineOptions } from './engine/engine.js';
export { openStore, migrateToLatest, isPostgresUrl, redactUrl, type Store, type StoreOptions, type Db } from './store/database.js';
export type { Database } from './store/schema.js';
export { dialectOf, type DialectName } from './store/dialect.js';
export { systemClock, fixedClock, utcDay, addDays, daysBetween, type Clock } from './util/time.js';
export { silentLogger, type Logger } from './util/logger.js';
export { newId, sha256Hex } from './util/ids.js';

export { recomputeHealth, type RecomputeHealthInput, type RecomputeHealthResult } from './recompute.js';
export { workspacesWithStaleHealth, type StaleWorkspace } from './stale.js';
export {
  listHealthModels,
  activeHealthModel,
  applyHealthModel,
  revertHealthModel,
  churnProbability,
  MODEL_STATUSES,
  type ModelStatus,
  type Calibration,
  type HealthModelFit,
  type HealthModelView,
} from './models.js';
export {
  HEALTH_COMPONENTS,
  REASON_CODES,
  WEAKNESS_CODES,
  DEFAULT_SCORE,
  scoreDay,
  explainChange,
  explainWeakness,
  normaliseWeights,
  type HealthComponent,
  type ReasonCode,
  type WeaknessCode,
  type DayBucket,
  type HealthResult,
  type ComponentScore,
  type Explanation,
} from './model.js';

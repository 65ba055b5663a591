export * from './types.js';
export { mondayOf, digestsDue, currentPeriod, dedupeKeys, type DueDigest } from './schedule.js';
export { scoreDropAlerts, renewalAlerts, dropPercent, type ScoreDropOptions, type RenewalOptions } from './alerts.js';
export { buildDigest, digestIsQuiet, type DigestOptions } from './digest.js';
export { renderScoreDrop, renderRenewal, renderDigest, type Rendered } from './templates.js';
export { planNotifications, lastDigestSentAt, type PlanOptions, type NotificationPlan, type QuietDigest } from './plan.js';
export {
  claimNotification,
  markSent,
  markFailed,
  recordSkipped,
  claimOnDemand,
  releaseOnDemand,
  markOnDemandFailed,
  ON_DEMAND_KINDS,
  type ClaimInput,
  type OnDemandKind,
} from './sent-log.js';

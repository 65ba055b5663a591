export { loadConfig, type RunnerConfig, type RateLimitConfig, type ProviderUrls, type JobsConfig, type HttpTimeouts, type WebhooksConfig } from './config.js';
export { main as runCli, buildProgram } from './cli/main.js';
/**
 * The HTTP API as a Fastify instance of its own, built from injected dependencies: another
 * service runs it on its port, or mounts it on its own server (see embed.test.ts).
 */
export { buildApp, API_PREFIX } from './http/app.js';
export type { AppDeps, AuthContext, RouteModule } from './http/types.js';
export { createMetrics, type AppMetrics } from './http/metrics.js';
/** The job worker and scheduler of `chs serve`, for a host that runs the jobs its mounted API queues. */
export { createJobService, type JobService, type JobServiceOptions } from './jobs/service.js';
export { MemoryRateLimitStore, type RateLimitStore, type RateLimitResult, type RateWindow } from './http/rate-limit.js';
export { createMailer, type Mailer, type MailerOptions, type MailMessage, type SentMail } from './notify/mailer.js';
/** Types of the HTTP API for clients, generated from the OpenAPI document (docs/api.md#the-contract). */
export type { components as ApiComponents, operations as ApiOperations, paths as ApiPaths } from './http/openapi-types.js';

/**
 * Named errors of the engine. Each carries a stable `code`; the runner maps codes to HTTP
 * statuses in one table (runner/src/http/errors.ts). Expected failures of a single message are
 * not thrown: they are counted and recorded (see IngestSummary).
 */
export const ERROR_CODES = [
  'INVALID_INPUT',
  'NOT_FOUND',
  'CONFLICT',
  'WORKSPACE_NOT_FOUND',
  'WORKSPACE_EXISTS',
  'INVALID_DOMAIN',
  'CLIENT_NOT_FOUND',
  'KEY_NOT_FOUND',
  'DATABASE_UNREACHABLE',
  'DATABASE_BUSY',
  'STORAGE_FULL',
  'MIGRATION_FAILED',
  'SOURCE_UNREADABLE',
  'INTEGRATION_NOT_CONNECTED',
  'INTEGRATION_NEEDS_REAUTH',
  'OAUTH_FAILED',
  'CREDENTIALS_UNREADABLE',
  'PROVIDER_ERROR',
  'PROVIDER_RATE_LIMITED',
  'JOB_CONFLICT',
  'INVALID_TRANSITION',
  'NOTIFICATION_FAILED',
  'KEY_LIMIT_REACHED',
  'SENDER_NOT_ALLOWED',
  'CONFIRMATION_INVALID',
  'NOTIFICATION_RATE_LIMITED',
  'INTERNAL',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

export class ChsError extends Error {
  readonly code: ErrorCode;
  /** Extra machine-readable detail, safe to show a user. */
  readonly details: Record<string, unknown> | undefined;

  constructor(code: ErrorCode, message: string, options?: { cause?: unknown; details?: Record<string, unknown> }) {
    super(message, options?.cause !== undefined ? { cause: options.cause } : undefined);
    this.name = 'ChsError';
    this.code = code;
    this.details = options?.details;
  }
}

export function isChsError(err: unknown, code?: ErrorCode): err is ChsError {
  return err instanceof ChsError && (code === undefined || err.code === code);
}

/** Normalises anything thrown into an Error, once. */
export function toError(err: unknown): Error {
  if (err instanceof Error) return err;
  return new Error(typeof err === 'string' ? err : JSON.stringify(err));
}

/** The runner's pino logger: API keys, tokens and secrets never reach a log line. */
import { destination, pino, type DestinationStream, type Logger } from 'pino';

/** Paths pino replaces with `[redacted]`, at the top level and one level down (`*.token`). */
const SECRET_FIELDS = [
  'key',
  'apiKey',
  'token',
  'accessToken',
  'refreshToken',
  'password',
  'secret',
  'clientSecret',
  'secretKey',
  'credentials',
  'smtpUrl',
  'authorization',
];

const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'req.headers.cookie',
  'headers.authorization',
  'headers["x-api-key"]',
  'headers.cookie',
  '*.headers.authorization',
  '*.headers["x-api-key"]',
  ...SECRET_FIELDS,
  ...SECRET_FIELDS.map((f) => `*.${f}`),
];

export function createLogger(options: { level: string; destination?: DestinationStream }): Logger {
  return pino(
    {
      level: options.level,
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      base: { service: 'chs' },
    },
    options.destination ?? destination(1),
  );
}

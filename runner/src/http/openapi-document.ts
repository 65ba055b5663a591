/**
 * The OpenAPI document on its own, without a server or a database of record: the app is built
 * over an empty in-memory SQLite database and asked for its document. For tooling (the generated
 * client types, the lint in the tests); a running service serves the same at GET /api/openapi.json.
 */
import { tmpdir } from 'node:os';
import { createEngine } from '@chs/core';
import { buildApp } from './app.js';
import { createLogger } from './logging.js';

export async function openApiDocument(): Promise<Record<string, unknown>> {
  const engine = await createEngine({ database: ':memory:' });
  try {
    const app = await buildApp({
      engine,
      config: {
        databaseUrl: ':memory:',
        // Only an e-mail sent without SMTP would write there; building the document sends none.
        dataDir: tmpdir(),
        now: undefined,
        secretKey: undefined,
        smtpUrl: undefined,
        redisUrl: undefined,
        logLevel: 'silent',
        rateLimits: { perKeyMinute: 1, perKeyHour: 1, perWorkspaceMinute: 1, perWorkspaceDay: 1 },
        providers: {},
      },
      logger: createLogger({ level: 'silent' }),
    });
    try {
      await app.ready();
      return app.swagger() as unknown as Record<string, unknown>;
    } finally {
      await app.close();
    }
  } finally {
    await engine.close();
  }
}

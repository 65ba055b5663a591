/**
 * The browser's way back to a command-line consent flow (`chs connect google`, `chs connect
 * hubspot`): a listener on 127.0.0.1 that waits for the provider's redirect
 * (`<redirectUri>/?code=…&state=…`, or `?error=access_denied`), checks the state it drew, and
 * answers the browser a short page. Provider-neutral: the provider's module builds its consent URL
 * on `redirectUri` and `state`, and exchanges the code.
 *
 * Also here: the error a refused consent is, for the loopback and the HTTP callbacks alike.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ChsError } from '../errors.js';

/** How long the loopback listener waits for the browser to come back. */
export const DEFAULT_CONSENT_TIMEOUT_MS = 5 * 60_000;

/** The flows a person runs, as messages name them. */
const FLOW: Record<string, string> = { google: 'Google sign-in', hubspot: 'HubSpot install' };
/** `Google sign-in`, `HubSpot install`: the flow as messages name it. */
export const oauthFlowName = (provider: string): string => FLOW[provider] ?? `${provider} sign-in`;

/** What the provider's redirect says when the user did not allow access (or the request was refused). */
export function consentRefused(provider: string, error: string, description?: string): ChsError {
  const name = oauthFlowName(provider);
  return new ChsError(
    'OAUTH_FAILED',
    error === 'access_denied' ? `${name} was cancelled: consent was denied` : `${name} failed: ${error}${description ? ` (${description})` : ''}`,
    { details: { provider, reason: error === 'access_denied' ? 'denied' : 'provider' } },
  );
}

export interface LoopbackOptions {
  /** Whose redirect this waits for: `google`, `hubspot` (names the pages and errors). */
  provider: string;
  /** The command to start again with, e.g. `chs connect google`. */
  command: string;
  /** Loopback port; 0 (default) takes any free one. */
  port?: number | undefined;
  /**
   * The host name the redirect URI says (the listener is on 127.0.0.1 either way): Google takes
   * `127.0.0.1` (default); HubSpot allows plain http only for `localhost`.
   */
  redirectHost?: '127.0.0.1' | 'localhost' | undefined;
  /** Default 5 minutes. */
  timeoutMs?: number | undefined;
  /** Stops waiting (Ctrl-C). */
  signal?: AbortSignal | undefined;
}

export interface LoopbackListener {
  /** `http://<redirectHost>:<port>`: the redirect URI to put in the consent URL. */
  readonly redirectUri: string;
  /** The state to put in the consent URL (24 random bytes, base64url). */
  readonly state: string;
  /**
   * The authorization code the browser brought back with our state. Rejects with OAUTH_FAILED on
   * denied consent, an answer with another state, the timeout or the signal.
   */
  readonly code: Promise<string>;
  close(): Promise<void>;
}

const page = (title: string, text: string): string =>
  `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head><body style="font-family:sans-serif;max-width:40em;margin:4em auto"><h1>${title}</h1><p>${text}</p></body></html>`;

/** Starts the listener; close it (finally) whatever happens. */
export async function listenForRedirect(opts: LoopbackOptions): Promise<LoopbackListener> {
  const name = oauthFlowName(opts.provider);
  const who = name.replace(/ .*$/, '');
  const state = randomBytes(24).toString('base64url');
  const timeoutMs = opts.timeoutMs ?? DEFAULT_CONSENT_TIMEOUT_MS;
  let settle!: (code: string) => void;
  let fail!: (e: ChsError) => void;
  const code = new Promise<string>((resolve, reject) => {
    settle = resolve;
    fail = reject;
  });
  // It may fail (a forged answer, the timeout) while the caller still prints the URL: awaited there all the same.
  code.catch(() => undefined);

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const send = (status: number, title: string, text: string) => {
      res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
      res.end(page(title, text));
    };
    if (req.method !== 'GET' || url.pathname !== '/') return send(404, 'Not found', `This address only receives ${who}’s redirect.`);
    const q = url.searchParams;
    // A request without our state did not come from the consent we started: refuse it, keep waiting
    // for the real one (a stray request must not end the flow), but say so if it carries a code.
    if (q.get('state') !== state) {
      send(400, `${name} not accepted`, `This answer does not belong to the ${name} chs started (its state does not match). Start again with ${opts.command}.`);
      if (q.has('code') || q.has('error'))
        fail(
          new ChsError(
            'OAUTH_FAILED',
            `${name} failed: the redirect carried a state that does not match the one chs sent (a stale or forged answer); start again`,
          ),
        );
      return;
    }
    const error = q.get('error');
    if (error) {
      send(200, `${name} cancelled`, 'chs was not connected. You can close this tab.');
      fail(consentRefused(opts.provider, error, q.get('error_description') ?? undefined));
      return;
    }
    const got = q.get('code');
    if (!got) return send(400, `${name} not accepted`, `${who}’s answer carried no code.`);
    send(200, 'Connected', `chs received ${who}’s answer. You can close this tab and return to the terminal.`);
    settle(got);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) =>
      reject(
        new ChsError(
          'OAUTH_FAILED',
          err.code === 'EADDRINUSE' ? `port ${opts.port} on 127.0.0.1 is in use; pick another with --port` : `cannot listen on 127.0.0.1: ${err.message}`,
          { cause: err },
        ),
      ),
    );
    server.listen(opts.port ?? 0, '127.0.0.1', () => resolve());
  });
  const redirectUri = `http://${opts.redirectHost ?? '127.0.0.1'}:${(server.address() as AddressInfo).port}`;
  const timer = setTimeout(
    () => fail(new ChsError('OAUTH_FAILED', `${name} timed out: no answer came back to ${redirectUri} within ${Math.round(timeoutMs / 1000)} s`)),
    timeoutMs,
  );
  const onAbort = () => fail(new ChsError('OAUTH_FAILED', `${name} was interrupted`));
  opts.signal?.addEventListener('abort', onAbort, { once: true });
  return {
    redirectUri,
    state,
    code,
    close: async () => {
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

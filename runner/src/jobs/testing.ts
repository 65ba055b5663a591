/**
 * Test support for job tests: a mailbox of simple Gmail messages with known truth (each message
 * from one client's contact to the workspace, so it is exactly one interaction), and a delaying
 * proxy in front of the fake Gmail server so a job is still mid-way when a test acts on it.
 */
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface TestGmailMessage {
  id: string;
  threadId?: string;
  raw: string;
  internalDate: number;
}

export const CLIENT_DOMAINS = ['globex.com', 'initech.com', 'umbrella.com', 'hooli.com', 'stark.com'] as const;

/**
 * `n` messages, newest first from `newest` back, one every `spacingMs`; message i comes from
 * `contact{i%7}@<CLIENT_DOMAINS[i%5]>` to `rep@<workspace>`, with Message-ID `<m{i}@<domain>>`.
 */
export function makeMailbox(n: number, opts: { workspace?: string; newest?: number; spacingMs?: number } = {}): { messages: TestGmailMessage[]; messageIds: Set<string>; perDomain: Map<string, number> } {
  const ws = opts.workspace ?? 'acme.com';
  const newest = opts.newest ?? Date.now() - 60_000;
  const spacing = opts.spacingMs ?? 60_000;
  const messages: TestGmailMessage[] = [];
  const messageIds = new Set<string>();
  const perDomain = new Map<string, number>();
  for (let i = 0; i < n; i++) {
    const domain = CLIENT_DOMAINS[i % CLIENT_DOMAINS.length]!;
    const date = new Date(newest - i * spacing);
    const mid = `m${i}@${domain}`;
    messages.push({
      id: `g${String(i).padStart(6, '0')}`,
      internalDate: date.getTime(),
      raw: [
        `From: Contact ${i % 7} <contact${i % 7}@${domain}>`,
        `To: Rep <rep@${ws}>`,
        `Subject: Renewal question ${i}`,
        `Date: ${date.toUTCString()}`,
        `Message-ID: <${mid}>`,
        'Content-Type: text/plain; charset=utf-8',
        '',
        `Hello, thanks for the update on item ${i}. The rollout went well and the team is happy.`,
        '',
      ].join('\r\n'),
    });
    messageIds.add(mid);
    perDomain.set(domain, (perDomain.get(domain) ?? 0) + 1);
  }
  return { messages, messageIds, perDomain };
}

/** An HTTP proxy that waits `delayMs` before forwarding each request whose path matches `slow`. */
export async function startDelayProxy(target: string, delayMs: number, slow: RegExp = /\/messages\/[^/]+$/): Promise<{ url: string; close(): Promise<void> }> {
  const t = new URL(target);
  const server: Server = createServer((req, res) => {
    const forward = () => {
      const up = httpRequest({ host: t.hostname, port: t.port, method: req.method, path: req.url, headers: req.headers }, (r) => {
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.pipe(res);
      });
      up.on('error', () => { if (!res.headersSent) res.writeHead(502); res.end(); });
      req.pipe(up);
    };
    if (slow.test((req.url ?? '').split('?')[0] ?? '')) setTimeout(forward, delayMs);
    else forward();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }),
  };
}

/**
 * Test support: a webhook receiver on 127.0.0.1 (node:http) that records every delivery as it
 * arrived (headers and raw body, for the tests to verify with the `standardwebhooks` package) and
 * answers as the test says: a status, or `hang` (the request is held open until the receiver closes).
 */
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedDelivery {
  /** The `webhook-id` header ('' when absent). */
  id: string;
  headers: IncomingHttpHeaders;
  /** The raw body, as signed. */
  body: string;
  path: string;
  receivedAt: number;
}

/** How the receiver answers one delivery: a status (with headers), or hold the request open. */
type ReceiverAnswer = { status: number; headers?: Record<string, string> } | 'hang';

export interface WebhookReceiver {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  readonly received: ReceivedDelivery[];
  /** Requests held open by `hang` answers. */
  readonly hanging: number;
  /** Decides each answer; default 200. */
  answer: (d: ReceivedDelivery, n: number) => ReceiverAnswer;
  /** Resolves once `n` deliveries (in all) have arrived. */
  waitFor(n: number, timeoutMs?: number): Promise<ReceivedDelivery[]>;
  /** The `webhook-id`s received, with how often each came. */
  counts(): Map<string, number>;
  close(): Promise<void>;
}

export async function startWebhookReceiver(answer: WebhookReceiver['answer'] = () => ({ status: 200 })): Promise<WebhookReceiver> {
  const received: ReceivedDelivery[] = [];
  const held = new Set<ServerResponse>();
  const waiters: Array<{ n: number; resolve: () => void }> = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const d: ReceivedDelivery = {
        id: String(req.headers['webhook-id'] ?? ''),
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        path: req.url ?? '/',
        receivedAt: Date.now(),
      };
      received.push(d);
      for (const w of waiters.splice(0)) {
        if (received.length >= w.n) w.resolve();
        else waiters.push(w);
      }
      const a = receiver.answer(d, received.length);
      if (a === 'hang') {
        held.add(res);
        res.on('close', () => held.delete(res));
        return;
      }
      res.writeHead(a.status, { 'content-type': 'text/plain', ...a.headers });
      res.end(a.status < 300 ? 'ok' : `status ${a.status}`);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as AddressInfo).port;
  const receiver: WebhookReceiver = {
    url: `http://127.0.0.1:${port}`,
    received,
    get hanging() {
      return held.size;
    },
    answer,
    waitFor(n, timeoutMs = 30_000) {
      if (received.length >= n) return Promise.resolve(received);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`the receiver got ${received.length} deliveries, not ${n}, within ${timeoutMs} ms`)), timeoutMs);
        waiters.push({
          n,
          resolve: () => {
            clearTimeout(timer);
            resolve(received);
          },
        });
      });
    },
    counts() {
      const m = new Map<string, number>();
      for (const d of received) m.set(d.id, (m.get(d.id) ?? 0) + 1);
      return m;
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
  return receiver;
}

/**
 * One HTTP attempt of a delivery, safe against server-side request forgery: node:http(s) through
 * request-filtering-agent, which checks the address every connection actually goes to (after DNS,
 * so a name re-pointed at 10.0.0.1 after its endpoint was created is refused too); redirects are
 * never followed (a 3xx is a failed attempt); a time budget covers the whole attempt; at most
 * 64 KiB of the answer is read.
 */
import http from 'node:http';
import https from 'node:https';
import { RequestFilteringHttpAgent, RequestFilteringHttpsAgent } from 'request-filtering-agent';

interface SendResult {
  /** Null when no answer came (refused address, connection error, timeout). */
  status: number | null;
  /** Seconds or a date from `Retry-After`, as a time; undefined when absent or unreadable. */
  retryAfter?: Date;
  error: string | null;
  durationMs: number;
  /** The first bytes of the answer (for the delivery log), at most 1 KiB. */
  body?: string;
}

export interface Sender {
  send(url: string, headers: Record<string, string>, body: string, timeoutMs: number): Promise<SendResult>;
  close(): void;
}

const MAX_ANSWER_BYTES = 64 * 1024;

function retryAfter(value: string | undefined, now: number): Date | undefined {
  if (!value) return undefined;
  const secs = Number(value);
  if (Number.isFinite(secs) && secs >= 0) return new Date(now + secs * 1000);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : new Date(at);
}

/** A sender with its own agents (kept-alive connections, each checked when made). */
export function createSender(options: { allowPrivate?: boolean; userAgent?: string } = {}): Sender {
  const filter = { allowPrivateIPAddress: options.allowPrivate ?? false, allowMetaIPAddress: false, keepAlive: true, maxSockets: 16 };
  const httpAgent = new RequestFilteringHttpAgent(filter);
  const httpsAgent = new RequestFilteringHttpsAgent(filter);
  const userAgent = options.userAgent ?? 'customer-health-service-webhooks';
  return {
    send(url, headers, body, timeoutMs) {
      const started = performance.now();
      return new Promise<SendResult>((resolve) => {
        let done = false;
        const finish = (r: Omit<SendResult, 'durationMs'>) => {
          if (done) return;
          done = true;
          clearTimeout(timer);
          resolve({ ...r, durationMs: Math.round(performance.now() - started) });
        };
        let target: URL;
        try {
          target = new URL(url);
        } catch {
          // Not through `finish`: its timer does not exist yet.
          resolve({ status: null, error: 'the endpoint URL is not valid', durationMs: 0 });
          return;
        }
        const lib = target.protocol === 'https:' ? https : http;
        const req = lib.request(target, {
          method: 'POST',
          agent: target.protocol === 'https:' ? httpsAgent : httpAgent,
          headers: { 'content-type': 'application/json', 'user-agent': userAgent, 'content-length': Buffer.byteLength(body), ...headers },
        });
        const timer = setTimeout(() => {
          req.destroy(new Error(`no answer within ${timeoutMs} ms`));
        }, timeoutMs);
        req.on('error', (err) => finish({ status: null, error: err.message.slice(0, 500) }));
        req.on('response', (res) => {
          // Retry-After's seconds count from the answer, not from when the request left.
          const answeredAt = Date.now();
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (c: Buffer) => {
            if (size < MAX_ANSWER_BYTES) chunks.push(c);
            size += c.length;
            if (size >= MAX_ANSWER_BYTES) res.destroy();
          });
          const end = () => {
            const status = res.statusCode ?? 0;
            const text = Buffer.concat(chunks).toString('utf8').slice(0, 1024);
            const ra = retryAfter(typeof res.headers['retry-after'] === 'string' ? res.headers['retry-after'] : undefined, answeredAt);
            finish({
              status,
              ...(ra ? { retryAfter: ra } : {}),
              error:
                status >= 200 && status < 300
                  ? null
                  : status >= 300 && status < 400
                    ? `redirect to ${String(res.headers.location ?? '?').slice(0, 200)} not followed`
                    : `HTTP ${status}`,
              body: text,
            });
          };
          res.on('end', end);
          res.on('close', end);
          res.on('error', end);
        });
        req.end(body);
      });
    },
    close() {
      httpAgent.destroy();
      httpsAgent.destroy();
    },
  };
}

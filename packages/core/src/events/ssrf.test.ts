/**
 * Server-side request forgery, over SQLite and PostgreSQL: endpoints that point inside the
 * server's network (loopback, private, link-local, the cloud metadata address, IPv6 forms of them,
 * a name resolving to one) are refused when made or changed unless the operator allows private
 * targets; at delivery the address is checked again on every connection, and a redirect is never
 * followed, so a receiver cannot bounce a delivery to an internal address.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { isChsError } from '../errors.js';
import { dropTestSchemas, testDialects } from '../store/testing.js';
import { createEndpoint, listEndpoints, refusedAddress, updateEndpoint, type TargetPolicy } from './endpoints.js';
import { accept, drainUntil, setUp, WS } from './receiver.harness.js';

afterAll(() => dropTestSchemas());

/** A name resolver for the tests: what each name resolves to. */
function resolver(names: Record<string, string[]>): TargetPolicy['resolve'] {
  return async (host) => {
    const a = names[host];
    if (!a) throw new Error(`ENOTFOUND ${host}`);
    return a;
  };
}

const resolve = resolver({
  'hooks.internal.example': ['10.0.0.5'],
  'split.example': ['93.184.215.14', '192.168.1.20'],
  'meta.example': ['169.254.169.254'],
  'v6.internal.example': ['fd12:3456::1'],
  'hooks.example.com': ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'],
});

const REFUSED: Array<[string, RegExp]> = [
  ['http://127.0.0.1/hook', /must be https/],
  ['https://127.0.0.1/hook', /loopback/],
  ['https://127.8.9.10/hook', /loopback/],
  ['https://10.1.2.3/hook', /private/],
  ['https://172.16.0.1/hook', /private/],
  ['https://192.168.0.10/hook', /private/],
  ['https://100.64.0.1/hook', /carrierGradeNat/],
  ['https://169.254.169.254/latest/meta-data', /linkLocal/],
  ['https://0.0.0.0/hook', /unspecified/],
  ['https://2130706433/hook', /loopback/],
  ['https://0x7f.0.0.1/hook', /loopback/],
  ['https://[::1]/hook', /loopback/],
  ['https://[::ffff:127.0.0.1]/hook', /loopback/],
  ['https://[::ffff:a9fe:a9fe]/hook', /linkLocal/],
  ['https://[fe80::1]/hook', /linkLocal/],
  ['https://[fd00::1]/hook', /uniqueLocal/],
  ['https://[::]/hook', /unspecified/],
  ['https://hooks.internal.example/hook', /10\.0\.0\.5 is a private address/],
  ['https://split.example/hook', /192\.168\.1\.20 is a private address/],
  ['https://meta.example/hook', /linkLocal/],
  ['https://v6.internal.example/hook', /uniqueLocal/],
  ['https://nowhere.example/hook', /does not resolve/],
  ['http://93.184.215.14/hook', /must be https \(got http\)/],
  ['ftp://93.184.215.14/hook', /must be https/],
  ['https://user:pass@hooks.example.com/hook', /user name or password/],
  ['not a url', /not a URL/],
];

describe('address policy', () => {
  it('refusedAddress: only public unicast addresses may be targets', () => {
    expect(refusedAddress('93.184.215.14')).toBeNull();
    expect(refusedAddress('2606:2800:21f:cb07:6820:80da:af6b:8b2c')).toBeNull();
    for (const a of ['127.0.0.1', '10.0.0.1', '169.254.169.254', '::1', '::ffff:10.0.0.1', 'fc00::1', '224.0.0.1', '255.255.255.255'])
      expect(refusedAddress(a), a).not.toBeNull();
    expect(refusedAddress('example.com')).toMatch(/not an IP address/);
  });
});

describe('endpoints pointing inside the network', async () => {
  for (const dialect of await testDialects()) {
    describe(dialect.name, () => {
      it('are refused when made or changed, unless the operator allows private targets', async () => {
        const ctx = await setUp(dialect);
        try {
          for (const [url, why] of REFUSED) {
            const err = await createEndpoint(ctx.db, ctx.key, { workspaceId: WS, url, events: ['client.risk_entered'] }, { resolve }).then(
              () => null,
              (e: unknown) => e,
            );
            expect(isChsError(err, 'INVALID_INPUT'), `${url}: ${String(err)}`).toBe(true);
            expect((err as Error).message, url).toMatch(why);
          }
          expect(await listEndpoints(ctx.db, WS)).toEqual([]);

          // Public addresses and names resolving only to public addresses are fine.
          const ok = await createEndpoint(
            ctx.db,
            ctx.key,
            { workspaceId: WS, url: 'https://93.184.215.14/hook', events: ['client.risk_entered'] },
            { resolve },
          );
          const named = await createEndpoint(
            ctx.db,
            ctx.key,
            { workspaceId: WS, url: 'https://hooks.example.com/chs', events: ['client.risk_entered'] },
            { resolve },
          );
          expect(named.endpoint.url).toBe('https://hooks.example.com/chs');
          // http only when the operator allows it.
          const plain = await createEndpoint(
            ctx.db,
            ctx.key,
            { workspaceId: WS, url: 'http://93.184.215.14/hook', events: ['client.risk_entered'] },
            { resolve, allowHttp: true },
          );
          expect(plain.endpoint.url).toBe('http://93.184.215.14/hook');

          // Changing the URL is checked the same way, and the endpoint keeps its old one.
          const moved = await updateEndpoint(ctx.db, WS, ok.endpoint.id, { url: 'https://hooks.internal.example/x' }, { resolve }).catch((e: unknown) => e);
          expect(isChsError(moved, 'INVALID_INPUT')).toBe(true);
          expect((await listEndpoints(ctx.db, WS)).find((e) => e.id === ok.endpoint.id)?.url).toBe('https://93.184.215.14/hook');

          // The operator's setting (intranets, tests) allows them, http included.
          const intranet = await createEndpoint(
            ctx.db,
            ctx.key,
            { workspaceId: WS, url: 'http://10.1.2.3/hook', events: ['client.risk_entered'] },
            { resolve, allowPrivate: true },
          );
          expect(intranet.endpoint.url).toBe('http://10.1.2.3/hook');
          const noHttp = await createEndpoint(
            ctx.db,
            ctx.key,
            { workspaceId: WS, url: 'http://10.1.2.3/hook', events: ['client.risk_entered'] },
            { allowPrivate: true, allowHttp: false },
          ).catch((e: unknown) => e);
          expect(isChsError(noHttp, 'INVALID_INPUT')).toBe(true);
        } finally {
          await ctx.close();
        }
      });

      it('an endpoint stored while private targets were allowed gets nothing from a dispatcher that does not allow them', async () => {
        const ctx = await setUp(dialect);
        try {
          const receiver = await ctx.server();
          const { endpoint: ep } = await ctx.endpoint(receiver.url);
          await ctx.record('client.risk_entered');
          const strict = ctx.dispatcher({ allowPrivate: false });
          expect(await strict.drain()).toBe(1);
          const del = await ctx.only(ep.id);
          expect(del).toMatchObject({ state: 'pending', attempts: 1, lastStatus: null });
          expect(del.lastError).toMatch(/127\.0\.0\.1.*not allowed/);
          expect(receiver.requests).toHaveLength(0);
          // The same by name: localhost resolves to a loopback address at connection time.
          const byName = await ctx.endpoint(`http://localhost:${receiver.port}/hook`);
          await ctx.record('client.escalation');
          expect(await strict.drain(new Date(Date.now() + 60_000))).toBeGreaterThanOrEqual(1);
          expect((await ctx.only(byName.endpoint.id)).lastError).toMatch(/not allowed/);
          expect(receiver.requests).toHaveLength(0);
        } finally {
          await ctx.close();
        }
      });

      it('a receiver that redirects to an internal address: the redirect is not followed', async () => {
        const ctx = await setUp(dialect);
        try {
          const internal = await ctx.server();
          const targets = ['http://169.254.169.254/latest/meta-data/iam/security-credentials/', `${internal.url}/admin`];
          const receiver = await ctx.server((_r, n) => (n < targets.length ? { status: 301, headers: { location: targets[n]! } } : { status: 200 }));
          const { endpoint: ep, secret } = await ctx.endpoint(receiver.url);
          await ctx.record('client.churn_intent');
          await drainUntil(ctx.dispatcher(), async () => (await ctx.only(ep.id)).state !== 'pending');
          const del = await ctx.only(ep.id);
          expect(del.history.map((a) => a.status)).toEqual([301, 301, 200]);
          expect(del.history[0]!.error).toMatch(/redirect to http:\/\/169\.254\.169\.254\/.* not followed/);
          expect(del.history[1]!.error).toMatch(/redirect to http:\/\/127\.0\.0\.1:\d+\/admin not followed/);
          expect(internal.requests).toHaveLength(0);
          // What the receiver got, it verifies: three times the same event.
          expect(new Set(receiver.requests.map((r) => accept(secret, r).id)).size).toBe(1);
        } finally {
          await ctx.close();
        }
      });
    });
  }
});

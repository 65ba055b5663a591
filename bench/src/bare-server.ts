/**
 * The ceiling for the API bench: Fastify with one route and nothing else (no auth, no rate
 * limits, no logging), returning a small JSON body. Prints `listening http://127.0.0.1:<port>` on stdout.
 */
import Fastify from 'fastify';

const app = Fastify({ logger: false });
app.get('/bare', async () => ({ ok: true, service: 'bare' }));
await app.listen({ port: 0, host: '127.0.0.1' });
const address = app.server.address();
process.stdout.write(`listening http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}\n`);
const stop = (): void => {
  void app.close().then(() => process.exit(0));
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);

/**
 * Shutdown in phases: a job drain that takes longer than the HTTP budget still gets its own
 * (CHS_JOB_SHUTDOWN_MS) and the process exits cleanly; a phase over its own budget is left behind,
 * the later phases still run, and the exit code says something did not stop.
 */
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { installGracefulShutdown } from './shutdown.js';

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

describe('graceful shutdown', () => {
  it('gives each phase its own budget: a drain longer than the HTTP budget finishes and the exit is clean', async () => {
    const app = Fastify({ logger: false });
    const order: string[] = [];
    const exits: number[] = [];
    const { shutdown, done } = installGracefulShutdown(app, {
      signals: [],
      httpTimeoutMs: 100,
      phases: [
        {
          name: 'jobs',
          timeoutMs: 1_000,
          run: async () => {
            await sleep(300);
            order.push('jobs drained');
          },
        },
        {
          name: 'database',
          timeoutMs: 200,
          run: async () => {
            order.push('database closed');
          },
        },
      ],
      exit: (code) => exits.push(code),
    });
    await shutdown('test');
    await done;
    expect(order).toEqual(['jobs drained', 'database closed']);
    expect(exits).toEqual([]);
  });

  it('a phase over its budget is left behind, the next phases still run, and the exit code is 1', async () => {
    const app = Fastify({ logger: false });
    const order: string[] = [];
    const exits: number[] = [];
    const { shutdown } = installGracefulShutdown(app, {
      signals: [],
      phases: [
        {
          name: 'jobs',
          timeoutMs: 50,
          run: () =>
            sleep(2_000).then(() => {
              order.push('too late');
            }),
        },
        {
          name: 'database',
          timeoutMs: 200,
          run: async () => {
            order.push('database closed');
          },
        },
      ],
      exit: (code) => exits.push(code),
    });
    const started = Date.now();
    await shutdown('test');
    expect(Date.now() - started).toBeLessThan(1_500);
    expect(order).toEqual(['database closed']);
    expect(exits).toEqual([1]);
  });

  it('a failing phase is logged, does not stop the others, and makes the exit code 1', async () => {
    const app = Fastify({ logger: false });
    const order: string[] = [];
    const exits: number[] = [];
    const { shutdown } = installGracefulShutdown(app, {
      signals: [],
      phases: [
        {
          name: 'jobs',
          timeoutMs: 100,
          run: async () => {
            throw new Error('boom');
          },
        },
        {
          name: 'database',
          timeoutMs: 100,
          run: async () => {
            order.push('database closed');
          },
        },
      ],
      exit: (code) => exits.push(code),
    });
    await shutdown('test');
    expect(order).toEqual(['database closed']);
    expect(exits).toEqual([1]);
  });
});

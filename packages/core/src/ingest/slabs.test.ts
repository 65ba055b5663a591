import { describe, expect, it } from 'vitest';
import { MessageSlabs } from './slabs.js';

const bytes = (n: number, fill: number) => Buffer.alloc(n, fill);

describe('message slabs (shared memory for tasks on their way to workers)', () => {
  it('copies each message byte for byte: into shared memory, or into its own buffer when larger than a slab', () => {
    const task = new MessageSlabs().task();
    const sizes = [0, 1, 300, 1024 * 1024, 1024 * 1024 + 7, 3 * 1024 * 1024];
    const inputs = sizes.map((n, i) => bytes(n, i + 1));
    const copies = inputs.map((raw) => task.add(raw));
    copies.forEach((c, i) => {
      expect(c.buffer).toBeInstanceOf(sizes[i]! > 2 * 1024 * 1024 ? ArrayBuffer : SharedArrayBuffer);
      expect(c.buffer).not.toBe(inputs[i]!.buffer);
      expect(Buffer.from(c.buffer, c.byteOffset, c.byteLength).equals(inputs[i]!)).toBe(true);
    });
    // A copy passed on (the ingest's to the pool) is not copied again.
    expect(new MessageSlabs().task().add(copies[5]!)).toBe(copies[5]);
    // The source may reuse its buffer once a message is added: the copy does not change.
    inputs[2]!.fill(0);
    expect(copies[2]!.every((b) => b === 3)).toBe(true);
  });

  it('reuses a released task’s memory for a later task, and never memory a task still holds', () => {
    const slabs = new MessageSlabs();
    const first = slabs.task();
    const a = first.add(bytes(1000, 1));
    const second = slabs.task();
    const b = second.add(bytes(1000, 2));
    expect(b.buffer).not.toBe(a.buffer);
    expect(a.every((x) => x === 1)).toBe(true);
    first.release();
    const third = slabs.task();
    const c = third.add(bytes(1000, 3));
    expect(c.buffer).toBe(a.buffer);
    expect(b.every((x) => x === 2)).toBe(true);
  });

  it('passes a message already in shared memory through without a copy', () => {
    const shared = new Uint8Array(new SharedArrayBuffer(10));
    expect(new MessageSlabs().task().add(shared)).toBe(shared);
  });
});

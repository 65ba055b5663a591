/**
 * Shared memory for messages' bytes on their way to worker threads, reused from task to task.
 *
 * A message handed to a worker must be copied out of its source's buffer (a view of a larger
 * read buffer would be cloned whole, and an mbox reader reuses its buffer). A new ArrayBuffer per
 * message made one gigabyte of garbage out of a one-gigabyte mailbox, freed only when a thread
 * next collected (V8 collects for outside memory every ~64 MB): most of what the ingest's peak
 * RSS held beyond the heaps. Slabs of shared memory are read in place by the worker (and by a
 * fresh one after an overrun: no second copy is kept to send a task again), then released when
 * the task's results are in and filled again for a later task.
 */

/** Bytes of one slab. A task (ingest.ts: up to 4 MiB) fills a few; a larger message gets memory of its own. */
const SLAB_BYTES = 2 * 1024 * 1024;
/** Free slabs kept for reuse: more than the bytes the ingest has in flight (16 MiB) plus the task being filled. */
const MAX_FREE_SLABS = 16;

/**
 * Copies of messages too large for a slab. They are plain buffers, cloned to the worker like any
 * buffer: a `SharedArrayBuffer` per message is freed late (one per message of a 50,000-message
 * mailbox peaked at 600-980 MB), and a mailbox of large attachments would make many.
 */
const ownCopies = new WeakSet<ArrayBufferLike>();

export class MessageSlabs {
  private readonly free: SharedArrayBuffer[] = [];

  /** A new task's bytes. */
  task(): TaskBytes {
    return new TaskBytes(this);
  }

  /** @internal */
  take(): SharedArrayBuffer {
    return this.free.pop() ?? new SharedArrayBuffer(SLAB_BYTES);
  }

  /** @internal */
  give(held: SharedArrayBuffer[]): void {
    for (const s of held) if (s.byteLength === SLAB_BYTES && this.free.length < MAX_FREE_SLABS) this.free.push(s);
  }
}

/** The bytes of one task's messages, in slabs of shared memory until {@link release}. */
export class TaskBytes {
  private readonly held: SharedArrayBuffer[] = [];
  private slab: Buffer | undefined;
  private used = 0;

  constructor(private readonly slabs: MessageSlabs) {}

  /**
   * `raw` copied into a slab of shared memory, or into a buffer of its own when larger than a
   * slab; `raw` itself when it already is either (a message passed on by the ingest to the pool).
   */
  add(raw: Uint8Array): Uint8Array {
    if (raw.buffer instanceof SharedArrayBuffer || ownCopies.has(raw.buffer)) return raw;
    const n = raw.byteLength;
    if (n > SLAB_BYTES) {
      const own = new Uint8Array(n);
      own.set(raw);
      ownCopies.add(own.buffer);
      return own;
    }
    if (!this.slab || this.used + n > this.slab.byteLength) {
      const next = this.slabs.take();
      this.held.push(next);
      this.slab = Buffer.from(next);
      this.used = 0;
    }
    // Buffer#copy is a native memcpy; TypedArray#set into shared memory copies with relaxed
    // atomics, ~9× slower (a gigabyte of mail took ~0.6 s of this thread instead of ~0.07).
    const from = Buffer.isBuffer(raw) ? raw : Buffer.from(raw.buffer, raw.byteOffset, n);
    from.copy(this.slab, this.used);
    const view = this.slab.subarray(this.used, this.used + n);
    this.used += n;
    return view;
  }

  /** The task is done: its slabs may be filled again (views of them must no longer be read). */
  release(): void {
    this.slabs.give(this.held.splice(0));
    this.slab = undefined;
    this.used = 0;
  }
}

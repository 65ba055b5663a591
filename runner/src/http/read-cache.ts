/**
 * Answers of read endpoints kept as JSON text for as long as they are exactly right: until the
 * store's data version changes (any write, by this runner or any process sharing the database;
 * see `Store.dataVersion`) or until the time the computation said its figures would move (a
 * 30-day window sliding past an interaction). A cached answer is therefore byte for byte the one
 * a fresh computation would give at that moment; nothing is served "a bit stale".
 *
 * Without a data version (PostgreSQL) nothing is kept and every request computes, still shared
 * with identical requests arriving together (`Coalescer`).
 */
import type { FastifyRequest } from 'fastify';
import { Coalescer, requestKey } from './coalesce.js';

/** What a read computes: its value and, when time alone can change it, until when it holds. */
export interface ReadAnswer {
  value: unknown;
  validUntil?: Date | null;
}

interface Entry {
  json: string;
  /** Epoch ms from which the answer may differ; Infinity when only a write can change it. */
  validUntil: number;
}

/** Answers kept at most; the oldest goes first. */
const READ_CACHE_MAX_ENTRIES = 20_000;
/** JSON characters kept at most, all answers together; the oldest go first, a larger answer is not kept. */
const READ_CACHE_MAX_CHARS = 64 * 1024 * 1024;

export class ReadCache {
  readonly #dataVersion: () => string | undefined;
  readonly #clock: () => Date;
  readonly #maxEntries: number;
  readonly #maxChars: number;
  #chars = 0;
  readonly #shared = new Coalescer();
  readonly #entries = new Map<string, Entry>();
  #version: string | undefined;

  constructor(options: { dataVersion: () => string | undefined; clock: () => Date; maxEntries?: number; maxChars?: number }) {
    this.#dataVersion = options.dataVersion;
    this.#clock = options.clock;
    this.#maxEntries = options.maxEntries ?? READ_CACHE_MAX_ENTRIES;
    this.#maxChars = options.maxChars ?? READ_CACHE_MAX_CHARS;
  }

  /**
   * The JSON text of the answer to `request` (identical: same route and validated parameters, see
   * `requestKey`; unknown query parameters do not count): kept from an earlier identical request when still
   * exactly right, else computed (once for identical requests arriving together) and kept.
   */
  async forRequest(request: FastifyRequest, compute: () => Promise<ReadAnswer>): Promise<string> {
    const key = requestKey(request);
    const hit = this.#lookup(key, request.dataVersion);
    if (hit !== undefined) return hit;
    return this.#shared.run(key, async () => {
      // Read right before the data: a write from here on changes the version the answer is kept under.
      const version = this.#dataVersion();
      const answer = await compute();
      const json = JSON.stringify(answer.value);
      if (version !== undefined) this.#keep(key, version, json, answer.validUntil?.getTime() ?? Infinity);
      return json;
    });
  }

  /** Answers kept now (for tests). */
  get size(): number {
    return this.#entries.size;
  }

  /** JSON characters kept now (for tests). */
  get chars(): number {
    return this.#chars;
  }

  /** `version`: the data version as the request arrived (read once per request by the auth hook). */
  #lookup(key: string, version: string | undefined): string | undefined {
    // Undefined: no data version (PostgreSQL). Another than the kept answers': written to since
    // (or the request predates the last write seen); computed afresh, and kept if current.
    if (version === undefined || version !== this.#version) return undefined;
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    if (this.#clock().getTime() >= entry.validUntil) {
      this.#drop(key, entry);
      return undefined;
    }
    return entry.json;
  }

  #keep(key: string, version: string, json: string, validUntil: number): void {
    // Written to while computing: the answer may be older than the data now.
    if (this.#dataVersion() !== version) return;
    if (version !== this.#version) {
      this.#entries.clear();
      this.#chars = 0;
      this.#version = version;
    }
    if (json.length > this.#maxChars) return;
    const previous = this.#entries.get(key);
    if (previous) this.#drop(key, previous);
    for (const [oldest, entry] of this.#entries) {
      if (this.#entries.size < this.#maxEntries && this.#chars + json.length <= this.#maxChars) break;
      this.#drop(oldest, entry);
    }
    this.#entries.set(key, { json, validUntil });
    this.#chars += json.length;
  }

  #drop(key: string, entry: Entry): void {
    this.#entries.delete(key);
    this.#chars -= entry.json.length;
  }
}

/** The content type Fastify gives a serialized object: a `ReadCache`'s JSON text is sent with it. */
export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

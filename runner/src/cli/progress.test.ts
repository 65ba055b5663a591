/**
 * The `chs ingest` / `chs sync` bar as a user at a terminal reads it: it follows what has been
 * read (not only what is stored), against the message count when the source has one, else the
 * bytes of the mbox read so far (a resumed mbox, whose remaining count is unknown), else it only counts.
 */
import { describe, expect, it } from 'vitest';
import { barPosition } from './progress.js';

const base = { processed: 1000, rate: 500, etaSeconds: undefined };

describe('the progress bar', () => {
  it('follows the messages read against the count, ahead of the stored batches', () => {
    expect(barPosition({ ...base, read: 1800, total: 5000 })).toEqual({ at: 1800, of: 5000, unit: 'messages' });
    // A short estimate never draws past the end.
    expect(barPosition({ ...base, read: 5200, total: 5000 })).toEqual({ at: 5000, of: 5000, unit: 'messages' });
  });

  it('without a count, follows the bytes of the mbox read so far', () => {
    expect(barPosition({ ...base, read: 1800, total: undefined, bytesRead: 300 << 20, bytesTotal: 1200 << 20 })).toEqual({
      at: 300 << 20,
      of: 1200 << 20,
      unit: 'bytes',
    });
  });

  it('with neither, only counts (no percentage to make up)', () => {
    expect(barPosition({ ...base, read: 1800, total: undefined })).toEqual({ at: 1800, of: 1800, unit: 'none' });
    expect(barPosition({ ...base, total: undefined })).toEqual({ at: 1000, of: 1000, unit: 'none' });
  });
});

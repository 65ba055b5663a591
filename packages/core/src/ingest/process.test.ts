import { afterEach, describe, expect, it, vi } from 'vitest';
import { mailparserBackend } from '../parse/backends.js';
import { processBatch, type ProcessInput } from './process.js';
import { summarise, SUMMARY_LENGTH } from './summary.js';
import { SIGNAL_BITS } from '../score/signals.js';

const rules = { blocklist: ['spam.example'], ownDomains: ['ourco.com'] };

function msg(location: string, headers: string, body = 'Thanks, the rollout went well.'): ProcessInput {
  return { location, raw: Buffer.from(`${headers}\nMessage-ID: <${location}@test>\nSubject: Rollout\n\n${body}\n`) };
}
const DATE = 'Date: Tue, 3 Jun 2025 10:00:00 +0000';
/** A body the direct reader (parse/text-parts.ts) leaves to the MIME library: flowed text. */
const FLOWED = 'Content-Type: text/plain; charset=utf-8; format=flowed';

describe('processBatch decides on the header block first', () => {
  afterEach(() => vi.restoreAllMocks());

  it('MIME-parses only the messages it keeps, and gives each outcome with its reason', async () => {
    const parse = vi.spyOn(mailparserBackend, 'parse');
    const results = await processBatch({
      rules,
      parser: 'mailparser',
      messages: [
        msg('list', `${DATE}\nFrom: news@vendor.com\nTo: ann@ourco.com\nList-Id: <news.vendor.com>`),
        msg('blocked', `${DATE}\nFrom: x@mail.spam.example\nTo: ann@ourco.com`),
        msg('internal', `${DATE}\nFrom: bob@ourco.com\nTo: ann@ourco.com`),
        msg('free-mail', `${DATE}\nFrom: someone@gmail.com\nTo: ann@ourco.com`),
        msg('undated', 'From: jane@acme.com\nTo: ann@ourco.com'),
        msg('kept', `${DATE}\nFrom: Jane Doe <jane@acme.com>\nTo: ann@ourco.com\nCc: raj@globex.io\n${FLOWED}`),
      ],
    });
    expect(parse).toHaveBeenCalledTimes(1);
    expect(results.map((r) => (r.ok ? [r.location, r.outcome, r.outcome === 'kept' ? r.clientDomains : r.reason] : [r.location, 'failed', r.reason]))).toEqual([
      ['list', 'filtered', 'list'],
      ['blocked', 'filtered', 'blocklist'],
      ['internal', 'skipped', 'internal'],
      ['free-mail', 'skipped', 'no_client'],
      ['undated', 'failed', 'no usable date (Date, Received and envelope all missing or invalid)'],
      ['kept', 'kept', ['acme.com', 'globex.io']],
    ]);
    const kept = results[5];
    if (!kept?.ok || kept.outcome !== 'kept') throw new Error('not kept');
    expect(kept.direction).toBe('inbound');
    expect(kept.participants).toEqual([
      { email: 'jane@acme.com', name: 'Jane Doe', domain: 'acme.com' },
      { email: 'raj@globex.io', name: '', domain: 'globex.io' },
    ]);
    expect(kept.summary).toBe('Thanks, the rollout went well.');
    expect(kept.sentiment.label).toBe('positive');
  });

  it('counts a body the MIME parser rejects as a parse failure of that message only', async () => {
    vi.spyOn(mailparserBackend, 'parse').mockRejectedValueOnce(new Error('boom'));
    const [bad, good] = await processBatch({
      rules,
      parser: 'mailparser',
      messages: [
        msg('a', `${DATE}\nFrom: jane@acme.com\nTo: ann@ourco.com\n${FLOWED}`),
        msg('b', `${DATE}\nFrom: jane@acme.com\nTo: ann@ourco.com\n${FLOWED}`),
      ],
    });
    expect(bad).toEqual({ ok: false, location: 'a', kind: 'parse', reason: 'mailparser: boom' });
    expect(good?.ok && good.outcome).toBe('kept');
  });
});

describe('what a message says beyond tone', () => {
  it("is read from the client's mail, never from ours", async () => {
    const text = 'We have decided not to renew the contract when it ends in March.';
    const [theirs, ours] = await processBatch({
      rules,
      messages: [msg('theirs', `${DATE}\nFrom: jane@acme.com\nTo: ann@ourco.com`, text), msg('ours', `${DATE}\nFrom: ann@ourco.com\nTo: jane@acme.com`, text)],
    });
    if (!theirs?.ok || theirs.outcome !== 'kept' || !ours?.ok || ours.outcome !== 'kept') throw new Error('both are client mail');
    expect(theirs.direction).toBe('inbound');
    expect(theirs.signals & SIGNAL_BITS.churnIntent).toBe(SIGNAL_BITS.churnIntent);
    expect(ours.direction).toBe('outbound');
    expect(ours.signals).toBe(0);
  });
});

describe('summarise', () => {
  it('collapses whitespace and cuts long text with an ellipsis, looking only at the beginning', () => {
    expect(summarise('  Hello\n\n  there \t friend ')).toBe('Hello there friend');
    const words = Array.from({ length: 400 }, (_, i) => `w${i}`).join(' \n ');
    const flat = words.replace(/\s+/g, ' ');
    const s = summarise(words);
    expect(s).toBe(`${flat.slice(0, SUMMARY_LENGTH - 1).trimEnd()}…`);
    expect(s).toHaveLength(SUMMARY_LENGTH);
    // Mostly whitespace at the start: the collapsed prefix is too short, so the whole text is used.
    const sparse = `${' '.repeat(5_000)}${'x'.repeat(SUMMARY_LENGTH + 10)}`;
    expect(summarise(sparse)).toBe(`${'x'.repeat(SUMMARY_LENGTH - 1)}…`);
  });
});

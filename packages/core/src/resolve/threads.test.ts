import { describe, expect, it } from 'vitest';
import { growthRatio } from '../test-support/complexity.js';
import { isReplySubject, linkSubjectThreads, subjectKey, type ThreadRow } from './threads.js';

const row = (id: string, subject: string, day: number, thread: string | null = id, client = 'c1'): ThreadRow => ({
  id,
  client_id: client,
  dedupe_key: id,
  thread_id: thread,
  subject,
  occurred_at: new Date(Date.UTC(2001, 9, 1) + day * 86_400_000).toISOString(),
});

describe('subjects', () => {
  it('tell a reply from a forward and an ordinary word, in the languages mail clients write', () => {
    for (const s of ['Re: x', 'RE: x', 're:x', 'AW: x', 'SV: x', 'Antw: x', 'Re[2]: x', '[EXT] Re: x']) expect(isReplySubject(s), s).toBe(true);
    for (const s of ['FW: x', 'Fwd: x', 'Revenue: Q4', 'Regarding the renewal', 'x', '']) expect(isReplySubject(s), s).toBe(false);
  });

  it('key a conversation by its subject without prefixes, case and spacing', () => {
    expect(subjectKey('RE: FW:  Q4   Plan')).toBe('q4 plan');
    expect(subjectKey('Q4 plan')).toBe('q4 plan');
    expect(subjectKey('Re: Re: re: ')).toBe('');
    expect(subjectKey('Revenue: Q4')).toBe('revenue: q4');
  });

  it('read a hostile subject of prefixes in linear time', () => {
    expect(growthRatio((n) => 'Re: '.repeat(n / 4), subjectKey, 20_000)).toBeLessThan(10);
    expect(growthRatio((n) => `Re${' '.repeat(n)}x`, isReplySubject, 20_000)).toBeLessThan(10);
  });
});

describe('linkSubjectThreads', () => {
  it('puts a reply without threading headers in the thread of the message before it, in any input order', () => {
    const q = row('q', 'Capacity for week 1', 0);
    const a = row('a', 'RE: Capacity for week 1', 1);
    const b = row('b', 'Re: RE: Capacity for week 1', 2);
    expect(linkSubjectThreads([b, a, q])).toEqual(
      new Map([
        ['a', 'q'],
        ['b', 'q'],
      ]),
    );
  });

  it('leaves alone replies that name their thread, forwards, other clients, other subjects and replies over 30 days later', () => {
    const q = row('q', 'Invoice 4471', 0);
    expect(linkSubjectThreads([q, row('r', 'RE: Invoice 4471', 1, 'q-root')])).toEqual(new Map());
    expect(linkSubjectThreads([q, row('f', 'FW: Invoice 4471', 1)])).toEqual(new Map());
    expect(linkSubjectThreads([q, row('o', 'RE: Invoice 4471', 1, 'o', 'c2')])).toEqual(new Map());
    expect(linkSubjectThreads([q, row('s', 'RE: Invoice 4472', 1)])).toEqual(new Map());
    expect(linkSubjectThreads([q, row('late', 'RE: Invoice 4471', 31)])).toEqual(new Map());
    // A reply joins the thread of the message just before it, a threaded one included.
    expect(linkSubjectThreads([q, row('m', 'RE: Invoice 4471', 20, 'modern-root'), row('r2', 'RE: Invoice 4471', 40)])).toEqual(
      new Map([['r2', 'modern-root']]),
    );
  });
});

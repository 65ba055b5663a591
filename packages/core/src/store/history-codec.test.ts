/**
 * The compact history codec gives back exactly what the rebuild wrote — the same numbers, the same
 * sentences to the character — whatever the values, and shares a part between the days whose
 * only difference is their figures.
 */
import { describe, expect, it } from 'vitest';
import { Rng } from '@chs/fixtures';
import { decodeDetail, encodeDetail, packDetail, parsePart, unpackDetail, type EncodedFrom, type SnapshotDetail } from './history-codec.js';

const roundTrip = (d: SnapshotDetail<unknown>, previous?: EncodedFrom) => {
  const e = encodeDetail(d, previous);
  // Through a row's detail, its part ids standing for the bodies.
  const { partIds, figures } = unpackDetail(
    packDetail(
      e.parts.map((_, i) => 1_000 * i + 7),
      e.figures,
    ),
  );
  return {
    encoded: e,
    decoded: decodeDetail(
      partIds.map((id) => parsePart(e.parts[(id - 7) / 1_000]!)),
      figures,
    ),
  };
};

/** What the old JSON columns gave back: the value through JSON. */
const viaJson = (d: SnapshotDetail<unknown>) => ({
  components: JSON.parse(JSON.stringify(d.components) ?? 'null') as unknown,
  reason: d.reason,
  reasonText: d.reasonText,
  evidence: JSON.parse(JSON.stringify(d.evidence) ?? 'null') as unknown,
});

/** A day as the rebuild writes it (health/score-client.ts). */
function day(score: number, daysSince: number, opts: { risk?: boolean; evidenceDay?: string; ids?: string[] } = {}): SnapshotDetail<unknown> {
  const comp = (value: number, weight: number) => ({ value, weight, contribution: Math.round(value * weight * 100) / 100 });
  return {
    components: {
      sentiment: comp(59.8, 0.4),
      engagement: comp(0, 0.2),
      responsiveness: comp(50, 0.2),
      recency: comp(Math.max(0, 100 - daysSince * 1.2), 0.2),
      risk: opts.risk
        ? {
            code: 'gone_quiet',
            cap: 35,
            points: -0.38,
            text: `no two-way contact for ${daysSince} days, where they usually write every 15 days`,
            interactionIds: ['in_V4kd2cyt6arcZiwQ'],
          }
        : null,
      inputs: { avgSentiment: 0.195, recent30: 0, baseline30: 2.667, ourReplyHours: null, daysSinceContact: daysSince, usualGapDays: 14.933333333333334 },
    },
    reason: opts.risk ? 'gone_quiet' : 'stable',
    reasonText: `Score ${score.toFixed(1)} (±0.0 points): no two-way contact for ${daysSince} days.`,
    evidence: {
      from: score,
      to: score,
      changes: { sentiment: 0, engagement: 0, responsiveness: 0, recency: -0.33, risk: 0.33 },
      driver: null,
      day: opts.evidenceDay ?? '2025-02-25',
      interactionIds: opts.ids ?? ['in_V4kd2cyt6arcZiwQ'],
    },
  };
}

const NUMBERS = [0, -0, 1, -1, 0.1 + 0.2, 1e-7, -0.38, 23.91, 14.933333333333334, 1e21, 2 ** 53, -(2 ** 60), 123456.789012, 5e-324, NaN, Infinity];
const SENTENCES = [
  'Score 35.0 (±0.0 points).',
  'since 2025-06-05, 3. times',
  'v1.2.3 and 007',
  '',
  'no digits',
  'a\\u0003b 12',
  'x\u0002y 4',
  '\u0003',
  '1.50 or 0.05',
];

function randomValue(next: () => number, depth: number): unknown {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!;
  const r = next();
  if (depth > 3 || r < 0.3) return pick(NUMBERS);
  if (r < 0.45) return pick(['plain', 'in_abc', '\u0002', 'ünïcode ✓', null, true, false, undefined]);
  if (r < 0.6) return Array.from({ length: Math.floor(next() * 4) }, () => randomValue(next, depth + 1));
  const o: Record<string, unknown> = {};
  for (const k of ['value', 'weight', 'cap', 'text', 'code', 'n', 'inputs', 'day', 'interactionIds'].filter(() => next() < 0.6))
    o[k] = k === 'text' ? pick(SENTENCES) : randomValue(next, depth + 1);
  return o;
}

describe('history codec', () => {
  it('gives back a stored day exactly as it was written', () => {
    for (const d of [day(35, 78, { risk: true }), day(88.1, 1), day(50, 0)]) expect(roundTrip(d).decoded).toEqual(viaJson(d));
  });

  it('gives back any JSON value exactly as JSON would, slots and all, with or without the day before', () => {
    const rng = new Rng(42);
    const next = () => rng.next();
    let previous: EncodedFrom | undefined;
    for (let i = 0; i < 3_000; i++) {
      const d: SnapshotDetail<unknown> = {
        components: randomValue(next, 0),
        reason: next() < 0.5 ? null : 'stable',
        reasonText: next() < 0.2 ? null : SENTENCES[Math.floor(next() * SENTENCES.length)]!,
        evidence: randomValue(next, 0),
      };
      const alone = roundTrip(d);
      expect(alone.decoded, JSON.stringify(d)).toEqual(viaJson(d));
      // Encoding against the day before must come to the very same bodies and figures.
      const chained = roundTrip(d, previous);
      expect(chained.encoded.parts).toEqual(alone.encoded.parts);
      expect([...chained.encoded.figures]).toEqual([...alone.encoded.figures]);
      previous = chained.encoded;
    }
  });

  it('comes to the same bodies and figures against a day before that differs only in its figures, whatever they are', () => {
    // The usual day: yesterday's values with other numbers and other digits in its sentences.
    // Encoded against yesterday, each part is compared in place and its figures written in the
    // same walk; that must give what encoding it alone gives, byte for byte.
    const rng = new Rng(7);
    const next = () => rng.next();
    const DIGIT_RUNS = ['0', '05', '00.5', '0.50', '7', '12.25', '123456789012345678', '3.1415926535', '99999999999999', '1.000001'];
    const refigure = (v: unknown, key: string | null): unknown => {
      if (typeof v === 'number') return key === 'weight' || key === 'cap' ? (next() < 0.1 ? v + 1 : v) : NUMBERS[Math.floor(next() * NUMBERS.length)];
      if (typeof v === 'string' && key === 'text') return v.replace(/\d+(?:\.\d+)?/g, () => DIGIT_RUNS[Math.floor(next() * DIGIT_RUNS.length)]!);
      if (Array.isArray(v)) return v.map((x) => refigure(x, null));
      if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, refigure(x, k)]));
      return v;
    };
    let reused = 0;
    for (let i = 0; i < 300; i++) {
      const first =
        i % 3 === 0
          ? day(35, i, { risk: i % 2 === 0 })
          : {
              components: { ...(randomValue(next, 1) as object), inputs: randomValue(next, 1) },
              reason: next() < 0.5 ? null : 'stable',
              reasonText: SENTENCES[Math.floor(next() * SENTENCES.length)]!,
              evidence: { ...(randomValue(next, 1) as object), day: '2025-02-25', interactionIds: ['in_a', 'in_b'] },
            };
      let previous = encodeDetail(first);
      let before = first;
      for (let k = 0; k < 10; k++) {
        const d: SnapshotDetail<unknown> = {
          components: refigure(before.components, null),
          reason: before.reason,
          reasonText: typeof before.reasonText === 'string' ? (refigure({ text: before.reasonText }, null) as { text: string }).text : null,
          evidence: refigure(before.evidence, null),
        };
        const alone = roundTrip(d);
        expect(alone.decoded, JSON.stringify(d)).toEqual(viaJson(d));
        const chained = roundTrip(d, previous);
        expect(chained.encoded.parts).toEqual(alone.encoded.parts);
        expect([...chained.encoded.figures]).toEqual([...alone.encoded.figures]);
        reused += chained.encoded.parts.filter((b, j) => b === previous.parts[j]).length;
        previous = chained.encoded;
        before = d;
      }
    }
    // Most parts were recognised as the day before's (the case the comparison in place is for).
    expect(reused).toBeGreaterThan(300 * 10 * 5 * 0.5);
  });

  it('keeps every figure of a sentence as written, leading zeros and trailing zeros included', () => {
    for (const text of SENTENCES) {
      const d = { components: {}, reason: 'stable', reasonText: text, evidence: null };
      expect(roundTrip(d).decoded.reasonText).toBe(text);
    }
  });

  it('reads a row written before the messages behind a risk had a part of their own (five parts, no marker)', () => {
    // A day with no risk names no messages in its components: its first five parts are what the
    // five-part codec wrote, and a five-part row of them decodes to the same day.
    const d = day(50, 3);
    const e = encodeDetail(d);
    expect(e.parts[5]).toBe('[]');
    const old = new Uint8Array([11, 12, 13, 14, 15, ...e.figures]);
    const { partIds, figures } = unpackDetail(old);
    expect(partIds).toEqual([11, 12, 13, 14, 15]);
    expect(
      decodeDetail(
        partIds.map((id) => parsePart(e.parts[id - 11]!)),
        figures,
      ),
    ).toEqual(viaJson(d));
  });

  it('keeps a day’s confidence in its detail in a byte or two, exactly, beside the same parts and figures', () => {
    const e = encodeDetail(day(50, 3));
    const ids = [3, 4, 5, 6, 7, 300];
    const without = packDetail(ids, e.figures);
    // [confidence, its bytes]: one decimal takes one byte, two decimals two, a float64 its eight and a head.
    for (const [confidence, bytes] of [
      [0, 1],
      [1, 1],
      [0.2, 1],
      [0.85, 2],
      [1 / 3, 9],
      [0.1 + 0.2, 9],
    ] as const) {
      const withIt = packDetail(ids, e.figures, confidence);
      const back = unpackDetail(withIt, true);
      expect(back.confidence).toBe(confidence);
      expect(back.partIds).toEqual(ids);
      expect(back.figures).toEqual(e.figures);
      expect(withIt.length - without.length).toBe(bytes);
    }
    // Read without the flag, a row holds no confidence; a five-part row never held one.
    expect(unpackDetail(without).confidence).toBeNull();
    expect(() => unpackDetail(new Uint8Array([11, 12, 13, 14, 15, ...e.figures]), true)).toThrow(/confidence/);
    expect(() => packDetail(ids, e.figures, Number.NaN)).toThrow(/confidence/);
  });

  it('keeps the messages behind a risk in a part of their own: a new one changes that small part, not the components', () => {
    const a = encodeDetail(day(35, 78, { risk: true }));
    const withMore = day(35, 78, { risk: true });
    const risk = (withMore.components as { risk: { interactionIds: string[] } }).risk;
    risk.interactionIds = [...risk.interactionIds, 'in_2nd'];
    const b = roundTrip(withMore, a);
    expect(b.decoded).toEqual(viaJson(withMore));
    expect(b.encoded.parts[0]).toBe(a.parts[0]);
    expect(b.encoded.parts[5]).not.toBe(a.parts[5]);
    expect(b.encoded.parts[5]).toBe(JSON.stringify([['in_V4kd2cyt6arcZiwQ', 'in_2nd']]));
    expect(a.parts[0]).not.toContain('in_V4kd2cyt6arcZiwQ');
  });

  it('shares every part between two days that differ only in their figures, and only the messages part when a new message arrives', () => {
    // Parts: components, inputs, reason and sentence, evidence, the messages it points to, the messages behind its risks.
    const a = encodeDetail(day(35, 78, { risk: true }));
    const b = encodeDetail(day(34.6, 79, { risk: true }));
    expect(b.parts).toEqual(a.parts);
    expect([...b.figures]).not.toEqual([...a.figures]);
    const c = encodeDetail(day(36, 0, { risk: true, evidenceDay: '2025-05-14', ids: ['in_new'] }));
    expect(c.parts.slice(0, 4)).toEqual(a.parts.slice(0, 4));
    expect(c.parts[4]).not.toBe(a.parts[4]);
    // A risk that appears changes the components' and the reason's skeletons, not the inputs'.
    const d = encodeDetail(day(50, 3));
    expect(d.parts[0]).not.toBe(a.parts[0]);
    expect(d.parts[1]).toBe(a.parts[1]);
    expect(d.parts[2]).not.toBe(a.parts[2]);
  });

  it('keeps components whose inputs are not last, and evidence without a day, whole', () => {
    const odd = {
      components: { inputs: { n: 1 }, sentiment: { value: 2 } },
      reason: null,
      reasonText: null,
      evidence: { interactionIds: ['x'], day: 'd', more: 1 },
    };
    expect(roundTrip(odd).decoded).toEqual(viaJson(odd));
    expect(Object.keys(roundTrip(odd).decoded.components as object)).toEqual(['inputs', 'sentiment']);
  });

  it('writes a day’s figures in a few bytes each', () => {
    const d = day(35, 78, { risk: true });
    const e = encodeDetail(d);
    // 26 figures, one of them a float64 (usualGapDays has 15 decimals), where the JSON columns
    // took ~800 bytes a day.
    expect(JSON.stringify(d).length).toBeGreaterThan(800);
    expect(e.figures.length).toBeLessThanOrEqual(64);
  });

  it('refuses figures that do not match their parts', () => {
    const e = encodeDetail(day(35, 78));
    const parts = e.parts.map(parsePart);
    expect(() => decodeDetail(parts.slice(2), e.figures)).toThrow(/5 or 6 parts, not 4/);
    expect(() => decodeDetail(parts, e.figures.subarray(0, e.figures.length - 1))).toThrow(/end early/);
    expect(() => decodeDetail(parts, new Uint8Array([...e.figures, 0]))).toThrow(/left over/);
  });
});

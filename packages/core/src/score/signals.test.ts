import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { detectSignals, SIGNAL_BITS, type TextSignals } from './signals.js';
import { cpuMsOf, growthRatio } from '../test-support/complexity.js';

type Signal = 'churnIntent' | 'followUp' | 'needsReply';

interface Example {
  text: string;
  label: boolean;
  holdout: boolean;
}

/** Reads one labelled set: `{"text", "<signal>": boolean, "holdout"?: true}` per line. */
function load(file: string, signal: Signal): Example[] {
  const path = fileURLToPath(new URL(`../../../../fixtures/signals/${file}`, import.meta.url));
  const out: Example[] = [];
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    const row: unknown = JSON.parse(line);
    if (typeof row !== 'object' || row === null) throw new Error(`${file}: not an object: ${line}`);
    const r = row as Record<string, unknown>;
    const text = r['text'];
    const label = r[signal];
    if (typeof text !== 'string' || typeof label !== 'boolean') throw new Error(`${file}: bad line: ${line}`);
    out.push({ text, label, holdout: r['holdout'] === true });
  }
  return out;
}

interface Figures {
  n: number;
  positives: number;
  precision: number;
  recall: number;
  errors: string[];
}

function measure(examples: readonly Example[], signal: Signal): Figures {
  let tp = 0;
  let fp = 0;
  let fn = 0;
  const errors: string[] = [];
  for (const e of examples) {
    const got = detectSignals(e.text)[signal];
    if (got && e.label) tp++;
    else if (got) fp++;
    else if (e.label) fn++;
    if (got !== e.label) errors.push(`${e.label ? 'missed' : 'false alarm'}: ${e.text}`);
  }
  return {
    n: examples.length,
    positives: tp + fn,
    precision: tp + fp === 0 ? 0 : tp / (tp + fp),
    recall: tp + fn === 0 ? 0 : tp / (tp + fn),
    errors,
  };
}

const SETS: readonly { file: string; signal: Signal; min: number; minLines: number }[] = [
  { file: 'churn-intent.jsonl', signal: 'churnIntent', min: 0.9, minLines: 120 },
  { file: 'follow-up.jsonl', signal: 'followUp', min: 0.85, minLines: 40 },
  { file: 'needs-reply.jsonl', signal: 'needsReply', min: 0.85, minLines: 40 },
];

describe.each(SETS)('$signal on fixtures/signals/$file', ({ file, signal, min, minLines }) => {
  const all = load(file, signal);
  const holdout = all.filter((e) => e.holdout);

  it('is a balanced set with a held-out third', () => {
    expect(all.length).toBeGreaterThanOrEqual(minLines);
    const positives = all.filter((e) => e.label).length;
    expect(positives / all.length).toBeGreaterThan(0.35);
    expect(positives / all.length).toBeLessThan(0.65);
    expect(holdout.length / all.length).toBeGreaterThan(0.25);
    expect(new Set(all.map((e) => e.text)).size).toBe(all.length);
  });

  it.each([
    ['whole set', all],
    ['holdout', holdout],
  ] as const)(`precision and recall on the %s are at least ${min}`, (name, examples) => {
    const f = measure(examples, signal);
    console.log(
      `[signals] ${signal} ${name}: n=${f.n} positives=${f.positives} precision=${f.precision.toFixed(3)} recall=${f.recall.toFixed(3)}` +
        (f.errors.length > 0 ? `\n  ${f.errors.join('\n  ')}` : ''),
    );
    expect(f.precision).toBeGreaterThanOrEqual(min);
    expect(f.recall).toBeGreaterThanOrEqual(min);
  });
});

const churn = (text: string): boolean => detectSignals(text).churnIntent;

describe('churn intent: negations and hypotheticals', () => {
  it.each([
    'We are not cancelling.',
    'We have no plans to leave.',
    'There is no intention of switching providers.',
    "We're not looking at alternatives, we just need this fixed.",
    'If you need us to cancel the old invoice, let me know.',
    'If you want to terminate the old token, go ahead.',
    "If you'd like us to terminate the staging instance, we can do it on Friday.",
    'Whether or not we renew was never the question.',
    'Cancelling is off the table.',
  ])('not churn: %s', (text) => {
    expect(churn(text)).toBe(false);
  });

  it.each([
    'We will not renew if this continues.',
    'Unless this is fixed we will cancel.',
    "If we don't see an improvement by the end of the quarter, we will be terminating.",
    'We do not intend to renew the contract.',
    "I'm not sure we can justify the renewal.",
    'Renewal is off the table for us.',
    "We won't need the licences after June.",
    'Please make sure our contract does NOT auto-renew.',
  ])('churn (a negated retention word or a conditional threat): %s', (text) => {
    expect(churn(text)).toBe(true);
  });
});

describe('churn intent: logistics and look-alikes are not churn', () => {
  it.each([
    'Can we cancel the meeting on Thursday?',
    'Please cancel the duplicate order.',
    'Can you cancel the call with the implementation team?',
    'Please terminate the old API key.',
    'The import process was terminated by the OOM killer.',
    'Can you cancel my subscription to the newsletter?',
    'Unsubscribe me from the marketing emails.',
    'We terminated our contract with our old payroll provider.',
    'We need to renew the SSL certificate.',
    'Please reset my password.',
    "I'll leave a note for the team.",
    'I have to leave early today.',
    'She is on leave until Monday.',
    "I'm leaving the company; Sara is your new contact.",
    'How do I switch the dashboard to dark mode?',
    "We're moving offices next week.",
    'Paul will be moving to London in May.',
    'We switched our SSO provider to Okta.',
    'Just thought I would drop you a line.',
    'Start and end date of contract.',
  ])('not churn: %s', (text) => {
    expect(churn(text)).toBe(false);
  });

  it.each([
    "We're renewing for another year.",
    "We'd like to renew for two more years.",
    'We are moving more teams onto your platform.',
    "The competitor's demo was worse, we are staying.",
    'We decided to go with the annual plan.',
    'Moving to the Enterprise tier makes sense for us.',
    'We migrated from Zendesk to your platform last year.',
  ])('retention and expansion are not churn: %s', (text) => {
    expect(churn(text)).toBe(false);
  });
});

describe('churn intent: phrasings that are churn', () => {
  it.each([
    "We won't be renewing.",
    "We've decided to go with Competitor X.",
    'We are evaluating alternatives.',
    'Please send us the termination clause.',
    'What is the notice period?',
    'Our budget for your tool was cut.',
    "We're moving to Zendesk next quarter.",
    'Consider this our notice.',
    'We plan to cancel at the end of the term.',
    "We're looking at other vendors.",
    'Leadership asked us to find a cheaper option.',
    'Please cancel our account.',
    'We are seriously considering switching providers.',
    "We'll be migrating off your platform by Q3.",
    "We're going elsewhere when the contract runs out.",
    'The renewal is at risk.',
    'We are reviewing our options.',
    'We will stop using your product next month.',
  ])('churn: %s', (text) => {
    expect(churn(text)).toBe(true);
  });
});

describe('churnSentence', () => {
  it('is the sentence that states churn, trimmed, with white space collapsed', () => {
    const r = detectSignals('Hi Tom,\n\nThanks for the invoice.   Sadly,\r\n  we will not renew   the licence.\n\nBest,\nPriya');
    expect(r.churnSentence).toBe('Sadly, we will not renew the licence.');
  });

  it('is the first churn sentence when there are several', () => {
    const r = detectSignals('The export broke again. We plan to cancel at the end of the term. We are also looking at other vendors.');
    expect(r.churnSentence).toBe('We plan to cancel at the end of the term.');
  });

  it('is at most 200 characters', () => {
    const long = `We will not renew ${'because the reports keep failing and '.repeat(20)}nobody answers.`;
    const r = detectSignals(long);
    expect(r.churnIntent).toBe(true);
    expect(r.churnSentence?.length).toBeLessThanOrEqual(200);
    expect(r.churnSentence?.startsWith('We will not renew because')).toBe(true);
  });

  it('is null without churn intent', () => {
    expect(detectSignals('Thanks, that works!').churnSentence).toBeNull();
  });
});

describe('follow-up and needs-reply', () => {
  it.each([
    'Following up again on my email from last week.',
    'Still waiting on the refund.',
    'Any update on this?',
    "I haven't heard back from anyone.",
    "This is the third time I'm asking.",
    'Bumping this.',
  ])('a chaser: %s', (text) => {
    const r = detectSignals(text);
    expect(r.followUp).toBe(true);
    expect(r.needsReply).toBe(true);
  });

  it.each([
    'Following up on our call, here are the notes.',
    "I'll follow up with finance and get back to you.",
    'Thanks for following up so quickly!',
    'I have not heard from him yet.',
  ])('not a chaser: %s', (text) => {
    expect(detectSignals(text).followUp).toBe(false);
  });

  it.each([
    'Thanks, that works!',
    'Great, talk next month',
    'Got it, cheers',
    'Let me know if you need anything else.',
    'Please find attached the signed order form.',
    '',
  ])('no reply needed: %j', (text) => {
    expect(detectSignals(text).needsReply).toBe(false);
  });

  it.each([
    'Please send the invoice.',
    'Can you add Maria as an admin',
    'Let me know when the fix is live.',
    'Could you look into the sync?',
    'The dashboard is broken.',
    'How do I export?',
  ])('a reply is expected: %s', (text) => {
    expect(detectSignals(text).needsReply).toBe(true);
  });

  it.each([
    // Offers to be reached, conditional on something being off: nothing waits for us.
    'Please call me at 713/256-8499 if anything changes.',
    'Please contact me if there are any other topics you wish to discuss.',
    'Please let me know if you disagree with this timeline.',
    'Please let me know if this number is incorrect.',
    'This email is to confirm our call at 9:00 tomorrow.',
    // Courtesy after "please".
    'Please understand that the migration window was very short.',
    'I forgot the attachment. Please forgive.',
    // A confidentiality footer asks nothing of the account team.
    'If you have received this message in error, please destroy it and kindly notify the sender by reply email.',
    'Please advise immediately if you or your employer does not consent to Internet email for messages of this kind.',
    // Remarks that only look like questions or problems.
    "I'm curious to see how the new owner will handle it.",
    "I know you can't right now, no worries.",
    'The regulator will issue its order within two weeks.',
    // A service desk's closing offer of more help.
    'Please let us know if we can be of further assistance.',
    'If we can be of any further assistance, please call me.',
    'Let me know if you need assistance.',
  ])('no reply needed: %s', (text) => {
    expect(detectSignals(text).needsReply).toBe(false);
  });

  it.each([
    // The same shapes, asking.
    'Please call me at 713/256-8499 when the export is ready.',
    'Please let me know if you can meet on Tuesday.',
    'Please let me know if you need us to cancel the extra seats.',
    'Can you confirm the renewal date?',
    "I'm curious whether the fix made it into this release.",
    "We can't log in since this morning.",
    "You can't export more than 100 rows, which breaks our month-end.",
    'Please let me know if this number is incorrect, the export still fails every night.',
    'We need your consent to share the usage data with our auditors.',
    'The confidentiality agreement is still not signed, please send it back.',
    'The invoice has an issue with the VAT number.',
    'Can you assist us with the migration?',
    'We need assistance with the export, it keeps failing.',
  ])('still expects a reply: %s', (text) => {
    expect(detectSignals(text).needsReply).toBe(true);
  });

  it('no firm news yet is a report, not a chaser; "still nothing" from us is', () => {
    expect(detectSignals('Greg, still nothing firm about that, both utilities are screaming for relief.').followUp).toBe(false);
    expect(detectSignals('Still nothing new on the merger, the board meets Monday.').followUp).toBe(false);
    expect(detectSignals('Still nothing from you on the refund.').followUp).toBe(true);
    expect(detectSignals('It is Friday and still nothing.').followUp).toBe(true);
    expect(detectSignals('Still nothing?').followUp).toBe(true);
  });

  it('a status note about someone else is not a chaser; a chase of us still is', () => {
    expect(detectSignals("I haven't heard from the person in Settlements who sent me the worksheets.").followUp).toBe(false);
    expect(detectSignals("I haven't heard back from your team since Monday.").followUp).toBe(true);
  });

  it('a churn threat expects a reply', () => {
    const r = detectSignals('Consider this our notice.');
    expect(r.churnIntent).toBe(true);
    expect(r.needsReply).toBe(true);
  });
});

describe('bits', () => {
  const bitsOf = (r: TextSignals): number =>
    (r.churnIntent ? SIGNAL_BITS.churnIntent : 0) | (r.followUp ? SIGNAL_BITS.followUp : 0) | (r.needsReply ? SIGNAL_BITS.needsReply : 0);

  it('are fixed and frozen', () => {
    expect(SIGNAL_BITS).toEqual({ churnIntent: 1, followUp: 2, needsReply: 4 });
    expect(Object.isFrozen(SIGNAL_BITS)).toBe(true);
  });

  it.each([
    ['Thanks, that works!', 0],
    ['Can you send the invoice?', 4],
    ['Following up again: any update on the refund?', 6],
    ['We will cancel our subscription.', 5],
    ["Still waiting. If this isn't fixed by Friday we will cancel.", 7],
  ] as const)('%s → %i', (text, bits) => {
    const r = detectSignals(text);
    expect(r.bits).toBe(bits);
    expect(r.bits).toBe(bitsOf(r));
  });

  it('empty and non-string input give no signal', () => {
    const none = { churnIntent: false, followUp: false, needsReply: false, bits: 0, churnSentence: null };
    expect(detectSignals('')).toEqual(none);
    expect(detectSignals(null as unknown as string)).toEqual(none);
  });
});

describe('linear time', () => {
  const HOSTILE = [
    'not cancel ',
    '<(',
    'if you ',
    'second time second time ',
    'budget cut ',
    'a'.repeat(50) + ' ',
    '?!.',
    'We will not renew, ',
    '\n \n',
    "n't'''",
  ];

  it.each(HOSTILE)('a 1 MB string of %j finishes well under a second', async (unit) => {
    const text = unit.repeat(Math.ceil(1_000_000 / unit.length));
    expect(text.length).toBeGreaterThanOrEqual(1_000_000);
    expect(await cpuMsOf(() => detectSignals(text))).toBeLessThan(2_000);
  });

  it.each(HOSTILE)('below the 20,000-character cap, 4× the input of %j takes less than 10× the time', (unit) => {
    const make = (n: number) => unit.repeat(Math.ceil(n / unit.length));
    expect(growthRatio(make, detectSignals, 4_500, 20)).toBeLessThan(10);
  });
});

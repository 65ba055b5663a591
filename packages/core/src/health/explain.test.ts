import { describe, expect, it } from 'vitest';
import { DEFAULT_HEALTH_WEIGHTS } from '../settings/settings.js';
import { explainStanding, explainWeakness, type StoredComponents } from './model.js';

/** Components as a snapshot stores them: value, weight, contribution, plus the raw inputs. */
function stored(values: Record<'sentiment' | 'engagement' | 'responsiveness' | 'recency', number>, daysSinceContact: number | null): StoredComponents {
  const w = DEFAULT_HEALTH_WEIGHTS;
  const c = (k: keyof typeof values) => ({ value: values[k], weight: w[k], contribution: values[k] * w[k] });
  return {
    sentiment: c('sentiment'),
    engagement: c('engagement'),
    responsiveness: c('responsiveness'),
    recency: c('recency'),
    risk: null,
    inputs: { daysSinceContact },
  };
}

describe('why a low score is low, in words a CS lead can check', () => {
  it('a client nobody has heard from in months is explained by the silence, not by a "negative tone" nobody expressed', () => {
    // Nothing said in 90 days: sentiment sits at its neutral 50, no exchange, no contact.
    const silent = stored({ sentiment: 50, engagement: 0, responsiveness: 50, recency: 0 }, null);
    const why = explainWeakness(30, silent);
    expect(why.reason).toBe('no_recent_contact');
    expect(why.text).toBe('Score 30.0: there has been no two-way contact in the last 120 days.');
    expect(why.text).not.toMatch(/tone/);
  });

  it('says how long the silence has lasted when there was contact in the lookback', () => {
    const quiet = stored({ sentiment: 60, engagement: 40, responsiveness: 70, recency: 10 }, 41);
    expect(explainWeakness(36, quiet)).toEqual({ reason: 'no_recent_contact', text: 'Score 36.0: there has been no two-way contact for 41 days.' });
  });

  it('names the tone only when what the client said is negative', () => {
    const sour = stored({ sentiment: 15, engagement: 70, responsiveness: 80, recency: 100 }, 2);
    expect(explainWeakness(36, sour).reason).toBe('low_sentiment');
    // A neutral-to-warm client whose score is held back only by its tone is not "negative".
    const content = stored({ sentiment: 65, engagement: 100, responsiveness: 100, recency: 100 }, 1);
    const why = explainWeakness(86, content);
    expect(why.reason).toBe('stable');
    expect(why.text).not.toMatch(/negative/);
  });

  it('a risk signal, when one holds, is the reason whatever the components say', () => {
    const cur: StoredComponents = {
      ...stored({ sentiment: 50, engagement: 0, responsiveness: 50, recency: 0 }, null),
      risk: { code: 'churn_intent', cap: 30, points: -10, text: '1 message in the last 90 days says they will leave or not renew', interactionIds: ['in_1'] },
    };
    expect(explainStanding(30, cur, null)).toEqual({
      code: 'churn_intent',
      text: 'Score 30.0: 1 message in the last 90 days says they will leave or not renew.',
    });
  });
});

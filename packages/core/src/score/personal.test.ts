/**
 * What a message is about, judged as a CS lead would sort a stranger's first mail: a client
 * talking business is work, a friend writing from the office is personal, a vendor selling to us
 * is a pitch, and a client who uses a salesman's phrase once is still a client.
 */
import { describe, expect, it } from 'vitest';
import { messageTopic } from './personal.js';

describe('messageTopic', () => {
  it("a client's business is work, a friend's weekend is personal", () => {
    expect(messageTopic('Invoice 4471', 'Sam, the invoice for the March order has the wrong price. Can you send a corrected one before our meeting?')).toBe(
      'work',
    );
    expect(messageTopic('saturday', 'Hey man, still on for golf Saturday? Then beers and the game at my place, bring the kids.')).toBe('personal');
    expect(messageTopic('Re: ok', 'sounds good')).toBe('unclear');
  });

  it('a cold pitch asks a stranger for a slot, chases it, or calls to action', () => {
    expect(messageTopic('Quick question', 'Worth a quick chat? I help teams like yours cut reporting time. Do you have 15 minutes next week?')).toBe('pitch');
    // A marketing call to action of the years before sales tools: try it, reply YES.
    expect(
      messageTopic(
        'Monitor regulatory sites, competitors, clients',
        'Do you need to monitor web sites for new information?\n\nTo try our portal and receive a sample daily email for 30 days, just reply to this email and put the word "yes" in the subject line.',
      ),
    ).toBe('pitch');
    expect(messageTopic('Analytics', 'Start your free trial today. To try our analytics, reply with YES.')).toBe('pitch');
  });

  it('a client who wants to try its own things, or asks for a yes, is not pitching', () => {
    expect(
      messageTopic('Sandbox', 'We want to try our new export against your API next week, can you send the sandbox keys? Reply with yes if that works.'),
    ).not.toBe('pitch');
    expect(messageTopic('Renewal', 'Could you book 15 minutes to go over the renewal and the invoice? Reply with yes and a time.')).not.toBe('pitch');
  });
});

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseMessage } from './parse.js';
import { extractNewText } from './strip.js';
import { corpusDir } from '../test-support/corpus.js';

// The shared corpus beside the clone (required in CI; left out with a warning elsewhere).
const CORPUS = corpusDir();
const TALON = `${CORPUS ?? ''}/talon`;

async function newTextOf(path: string): Promise<string> {
  return (await parseMessage({ raw: readFileSync(path) })).newText;
}

describe.runIf(CORPUS !== null)('extractNewText on real replies (talon fixtures)', () => {
  // Each of these is a real reply "Hello" over a quoted message, from a different client; the
  // iPhone and Sparrow ones also carry a signature that must go.
  const replies = ['android', 'aol', 'apple_mail', 'apple_mail_2', 'comcast', 'gmail', 'hotmail', 'iphone', 'outlook', 'sparrow', 'yahoo'];
  it.each(replies)('%s: the new text is the reply only', async (name) => {
    expect(await newTextOf(`${TALON}/standard_replies/${name}.eml`)).toBe('Hello');
  });

  it('keeps a long reply and drops the quoted inquiry under it', async () => {
    const text = await newTextOf(`${TALON}/reply-quotations-share-block.eml`);
    expect(text.startsWith('Hi Katharine.')).toBe(true);
    expect(text).toContain('look forward to hearing from you soon.');
    expect(text).not.toContain('New Booking Inquiry');
    expect(text).not.toContain('wrote:');
  });
});

describe('extractNewText', () => {
  it('drops an "On … wrote:" quote', () => {
    expect(extractNewText('Sounds good, ship it.\n\nOn Mon, Mar 4, 2024 at 9:00 AM Sam <sam@acme.com> wrote:\n> Can we ship?\n> Thanks')).toBe(
      'Sounds good, ship it.',
    );
  });

  it('drops an Outlook original-message block and From/Sent headers', () => {
    expect(extractNewText('We are cancelling.\n\n-----Original Message-----\nFrom: Sam\nSent: Monday\nSubject: renewal\n\nold')).toBe('We are cancelling.');
    expect(
      extractNewText('Not happy at all.\n\nFrom: Sam Smith <sam@acme.com>\nSent: Monday, March 4, 2024 9:00 AM\nTo: Dana\nSubject: Re: x\n\nold text'),
    ).toBe('Not happy at all.');
  });

  it('drops forwarded blocks, including Lotus Notes "Forwarded by" lines', () => {
    expect(extractNewText('FYI see below.\n\n---------- Forwarded message ---------\nFrom: a@b.c\n\nold')).toBe('FYI see below.');
    expect(extractNewText('Please review.\n\n---------------------- Forwarded by Phillip K Allen/HOU/ECT on 10/04/2000 ---------------------------\nold')).toBe(
      'Please review.',
    );
    expect(extractNewText('Begin forwarded message:\n\nFrom: x\nold')).toBe('');
  });

  it('drops a Lotus Notes reply header and the message it quotes: our own question is not theirs', () => {
    // Lotus Notes quotes without ">" under a "Name <address> on date time" line and a To/cc/Subject block.
    const reply =
      'In STAT, they mean the following: Active, Submitted, Closed.\n\n--Steve\n\n\n\n' +
      '"Stokley, Chris" <Chris.Stokley@ENRON.com> on 09/20/2001 01:55:33 PM\n\n' +
      'To:   Stephen Walker/TMG/CSC@CSC\ncc:\n\nSubject:  FW: CSC Terminology\n\n\n\n' +
      'Could you please help me by giving the definitions of the following terms?\n';
    expect(extractNewText(reply)).toBe('In STAT, they mean the following: Active, Submitted, Closed.\n\n--Steve');
    expect(
      extractNewText(
        'Agreed, go ahead.\n\nFrom:\tChris H Foster/ENRON@enronXgate on 05/08/2001 07:53 AM\nTo:\tMelissa K Ratnala/HOU/ECT@ECT\ncc:\t\nSubject:\tRE: Harbor Payments\n\nCan you send the payments?',
      ),
    ).toBe('Agreed, go ahead.');
    // A sentence that only ends in a date and time, with no header block after it, stays.
    const plain = 'The call moved.\nWe will meet on 10/12/2001 10:00 AM\nBring the contract.';
    expect(extractNewText(plain)).toBe(plain);
  });

  it('drops signatures, mobile footers and sign-off blocks', () => {
    expect(extractNewText('The fix works.\n\n-- \nJane Doe\nAcme Corp | +1 555 0100')).toBe('The fix works.');
    expect(extractNewText('On my way.\n\nSent from my iPhone')).toBe('On my way.');
    expect(extractNewText('Invoice paid today.\n\nBest regards,\nJane Doe\nHead of Finance\nClient Inc.')).toBe('Invoice paid today.');
    // A sign-off with a long paragraph after it is not a signature block.
    const long = `Thanks,\n${'This is a long paragraph that keeps going well past any signature line length. '.repeat(2).trim()}`;
    expect(extractNewText(long)).toBe(long);
  });

  it('drops legal disclaimers', () => {
    expect(
      extractNewText(
        'The outage cost us a day.\n\nThis e-mail and any attachments are confidential and intended solely for the addressee. If you have received this e-mail in error, please delete it.',
      ),
    ).toBe('The outage cost us a day.');
    expect(extractNewText('Ok.\n\nCONFIDENTIALITY NOTICE: The information in this message is privileged.')).toBe('Ok.');
  });

  it('keeps a bottom-posted reply', () => {
    expect(extractNewText('On 04/02/2012 06:26 PM, Megan wrote:\n> Hi\n> there\n\nHello back')).toBe('Hello back');
  });

  it('handles empty and CRLF input', () => {
    expect(extractNewText('')).toBe('');
    expect(extractNewText('Yes.\r\n\r\nOn Mon, Sam wrote:\r\n> q')).toBe('Yes.');
  });
});

import { describe, expect, it } from 'vitest';
import type { MailSignals, ParsedMessage } from '../interfaces.js';
import { classifyBody, classifyMessage, type FilterRules } from './filter.js';

const noSignals: MailSignals = {
  listUnsubscribe: false,
  listId: false,
  precedence: '',
  autoSubmitted: false,
  autoReplyHeader: false,
  deliveryReport: false,
  gmailLabels: [],
};

function msg(from: string, over: { subject?: string; signals?: Partial<MailSignals> } = {}): ParsedMessage {
  return {
    messageId: 'm@x',
    messageIdSynthetic: false,
    threadId: 'm@x',
    inReplyTo: null,
    references: [],
    date: '2024-03-01T00:00:00.000Z',
    dateSource: 'header',
    from: { email: from, name: '' },
    to: [{ email: 'sam@acme.com', name: 'Sam' }],
    cc: [],
    subject: over.subject ?? 'Question about our invoice',
    text: 'hi',
    newText: 'hi',
    attachmentCount: 0,
    sizeBytes: 100,
    signals: { ...noSignals, ...over.signals },
    warnings: [],
  };
}

const rules: FilterRules = { blocklist: ['spammy.com', 'Boss@Client.com', '@old-vendor.io'] };

describe('classifyMessage', () => {
  it('keeps real people, including customers writing from support@ or info@', () => {
    for (const from of ['dana@client.com', 'support@client.com', 'info@client.com', 'sales@client.com', 'help@client.io']) {
      expect(classifyMessage(msg(from), rules)).toEqual({ keep: true });
    }
  });

  it('drops bulk and list mail', () => {
    expect(classifyMessage(msg('a@shop.com', { signals: { listUnsubscribe: true } }), rules)).toMatchObject({ keep: false, reason: 'bulk' });
    expect(classifyMessage(msg('a@shop.com', { signals: { precedence: 'bulk' } }), rules)).toMatchObject({ keep: false, reason: 'bulk' });
    expect(classifyMessage(msg('a@shop.com', { signals: { precedence: 'junk' } }), rules)).toMatchObject({ keep: false, reason: 'bulk' });
    expect(classifyMessage(msg('a@shop.com', { signals: { gmailLabels: ['Inbox', 'Category Promotions'] } }), rules)).toMatchObject({
      keep: false,
      reason: 'bulk',
    });
    expect(classifyMessage(msg('a@shop.com', { signals: { gmailLabels: ['Inbox', 'Category Personal'] } }), rules)).toEqual({
      keep: true,
    });
    expect(classifyMessage(msg('dev@lists.org', { signals: { listId: true } }), rules)).toMatchObject({ keep: false, reason: 'list' });
    expect(classifyMessage(msg('dev@lists.org', { signals: { precedence: 'list' } }), rules)).toMatchObject({ keep: false, reason: 'list' });
  });

  it('drops auto-replies by header and by subject, but not a conversation about them', () => {
    expect(classifyMessage(msg('dana@client.com', { signals: { autoSubmitted: true } }), rules)).toMatchObject({
      keep: false,
      reason: 'auto_reply',
    });
    expect(classifyMessage(msg('dana@client.com', { signals: { autoReplyHeader: true } }), rules)).toMatchObject({
      keep: false,
      reason: 'auto_reply',
    });
    for (const subject of ['Out of Office: back Monday', 'Automatic reply: Renewal', 'Auto-Reply: hello']) {
      expect(classifyMessage(msg('dana@client.com', { subject }), rules)).toMatchObject({ keep: false, reason: 'auto_reply' });
    }
    expect(classifyMessage(msg('dana@client.com', { subject: 'Re: our out of office policy' }), rules)).toEqual({ keep: true });
  });

  it('drops bounces and delivery reports', () => {
    expect(classifyMessage(msg('mailer-daemon@mx.client.com', { signals: { deliveryReport: true } }), rules)).toMatchObject({
      keep: false,
      reason: 'bounce',
    });
    expect(classifyMessage(msg('postmaster@client.com', { subject: 'Undeliverable: Renewal' }), rules)).toMatchObject({
      keep: false,
      reason: 'bounce',
    });
  });

  it('drops no-reply senders', () => {
    for (const from of [
      'noreply@client.com',
      'no-reply@client.com',
      'donotreply@client.com',
      'do-not-reply@x.io',
      'notifications@github.com',
      'mailer-daemon@x.com',
      // a newspaper's "e-mail this article" service
      'nobody@sfgate.com',
    ]) {
      expect(classifyMessage(msg(from), rules)).toMatchObject({ keep: false, reason: 'no_reply' });
    }
  });

  it('drops blocklisted domains (with subdomains) and addresses, case-insensitively', () => {
    expect(classifyMessage(msg('x@spammy.com'), rules)).toMatchObject({ keep: false, reason: 'blocklist' });
    expect(classifyMessage(msg('x@mail.eu.spammy.com'), rules)).toMatchObject({ keep: false, reason: 'blocklist' });
    expect(classifyMessage(msg('x@notspammy.com'), rules)).toEqual({ keep: true });
    expect(classifyMessage(msg('boss@client.com'), rules)).toMatchObject({ keep: false, reason: 'blocklist' });
    expect(classifyMessage(msg('other@client.com'), rules)).toEqual({ keep: true });
    expect(classifyMessage(msg('x@old-vendor.io'), rules)).toMatchObject({ keep: false, reason: 'blocklist' });
    expect(classifyMessage(msg('x@spammy.com'), { blocklist: [] })).toEqual({ keep: true });
  });
});

describe('classifyMessage: machine senders, bulk-sender headers and calendar notices', () => {
  it('drops mail from VERP and tracking addresses, list software and publication desks, with what showed it', () => {
    for (const from of [
      '42.8997.6e-2aajoy2t2bpnfgry39rr.1@e-mail.delta.com',
      'customerservice.1556092.29223.0@service.example.com',
      'msprvs1=fe3a8d@bounce.example.com',
      'reply-fec3a8@mail.example.com',
    ]) {
      expect(classifyMessage(msg(from), rules), from).toMatchObject({ keep: false, reason: 'bulk' });
    }
    for (const from of ['owner-strawbale@crest.org', 'webmaster@earnings.com', 'subscriptions@intelligencepress.com', 'partner-news@amazon.com']) {
      expect(classifyMessage(msg(from), rules), from).toMatchObject({ keep: false, reason: 'list', evidence: expect.stringContaining('sender') });
    }
    // Addresses that say they are campaign machinery, and statement desks.
    expect(classifyMessage(msg('unsubscribe-i@networkpromotion.com'), rules)).toMatchObject({ keep: false, reason: 'bulk' });
    expect(classifyMessage(msg('edelivery@salomonsmithbarney.com'), rules)).toMatchObject({ keep: false, reason: 'no_reply' });
    // A person whose name starts like a desk is still a person.
    expect(classifyMessage(msg('newsom@acme.com'), rules)).toEqual({ keep: true });
    expect(classifyMessage(msg('dana.2@acme.com'), rules)).toEqual({ keep: true });
  });

  it('drops ESP-sent and calendar mail', () => {
    expect(classifyMessage(msg('dana@vendor.io', { signals: { espHeader: 'feedback-id' } }), rules)).toEqual({
      keep: false,
      reason: 'bulk',
      evidence: 'bulk-sender header feedback-id',
    });
    expect(classifyMessage(msg('dana@client.com', { signals: { calendar: true } }), rules)).toMatchObject({ keep: false, reason: 'calendar' });
  });
});

describe('classifyBody', () => {
  it('finds the footer of mass mail that carries no bulk header', () => {
    const news =
      "TODAY'S HEADLINES\n\nStory one…\n\nYou received these headlines because you requested The Daily Direct e-mail service. To cancel delivery, see the site.";
    expect(classifyBody(news)).toMatchObject({ keep: false, reason: 'bulk' });
    expect(classifyBody('Big sale!\n\nTo unsubscribe from these emails, click here.')).toMatchObject({
      keep: false,
      reason: 'bulk',
      evidence: 'footer: "unsubscribe"',
    });
    expect(classifyBody('Offers inside. Click here for details.\nRead our privacy policy. All rights reserved.')).toMatchObject({
      keep: false,
      reason: 'bulk',
    });
  });

  it('keeps a client who writes about cancelling, a subscription or a privacy policy, and a reply that quotes our newsletter', () => {
    expect(classifyBody('We will not renew our subscription and want to cancel the contract.')).toEqual({ keep: true });
    expect(classifyBody('Can you send your privacy policy? Legal needs it before we sign.')).toEqual({ keep: true });
    expect(classifyBody('Why was I charged twice?\n\n> Big news this month!\n> To unsubscribe, click here.')).toEqual({ keep: true });
  });

  it('finds the footers of newsletters and promotions that were sent before bulk headers were common (the Enron years)', () => {
    // Each is the foot of a real kind of mass mail: a retailer's newsletter, a hotel programme's
    // promotion, a newspaper's subscription offer, an "e-mail this article" service.
    const feet = [
      'You have subscribed to the Outdoor Co. Email Newsletter as [sam@acme.com].\nIf you would like to change your email address or prefer not to receive the Outdoor Co. Email Newsletter, please visit: http://x',
      'You are subscribed as: sam@acme.com\nIf you would like your e-mail to be sent to a different address, please click the link below.',
      'If you prefer not to receive future promotional e-mails from Guest Rewards, please click below.',
      'You have received this e-mail as a member of Guest Rewards.',
      'Occasionally, we use e-mail for fast, paperless communications with our customers. If you do not wish to receive these notices in the future, please visit our Web site.',
      'This article was sent to you by someone who found it on City Gate.',
    ];
    for (const foot of feet) expect(classifyBody(`Great gifts under $50 for the holidays.\n\n${foot}`), foot).toMatchObject({ keep: false, reason: 'bulk' });
  });

  it('keeps a client who says what it subscribed to, what it does not wish to receive, or that an article was sent to them', () => {
    for (const text of [
      'We have subscribed to the premium plan for 40 seats; please send the invoice.',
      'We do not wish to receive the paper invoices any more, e-mail is fine.',
      'I would prefer not to receive the call on Friday, Monday works better.',
      'The article you sent was useful, thanks.',
    ]) {
      expect(classifyBody(text), text).toEqual({ keep: true });
    }
  });

  it('reads a long newsletter in linear time (only its head and foot)', () => {
    const long = 'word '.repeat(200_000) + '\nunsubscribe';
    expect(classifyBody(long)).toMatchObject({ keep: false });
  });
});

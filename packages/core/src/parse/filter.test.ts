import { describe, expect, it } from 'vitest';
import type { MailSignals, ParsedMessage } from '../interfaces.js';
import { classifyMessage, type FilterRules } from './filter.js';

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
    expect(classifyMessage(msg('a@shop.com', { signals: { listUnsubscribe: true } }), rules)).toEqual({ keep: false, reason: 'bulk' });
    expect(classifyMessage(msg('a@shop.com', { signals: { precedence: 'bulk' } }), rules)).toEqual({ keep: false, reason: 'bulk' });
    expect(classifyMessage(msg('a@shop.com', { signals: { precedence: 'junk' } }), rules)).toEqual({ keep: false, reason: 'bulk' });
    expect(classifyMessage(msg('a@shop.com', { signals: { gmailLabels: ['Inbox', 'Category Promotions'] } }), rules)).toEqual({
      keep: false,
      reason: 'bulk',
    });
    expect(classifyMessage(msg('a@shop.com', { signals: { gmailLabels: ['Inbox', 'Category Personal'] } }), rules)).toEqual({
      keep: true,
    });
    expect(classifyMessage(msg('dev@lists.org', { signals: { listId: true } }), rules)).toEqual({ keep: false, reason: 'list' });
    expect(classifyMessage(msg('dev@lists.org', { signals: { precedence: 'list' } }), rules)).toEqual({ keep: false, reason: 'list' });
  });

  it('drops auto-replies by header and by subject, but not a conversation about them', () => {
    expect(classifyMessage(msg('dana@client.com', { signals: { autoSubmitted: true } }), rules)).toEqual({
      keep: false,
      reason: 'auto_reply',
    });
    expect(classifyMessage(msg('dana@client.com', { signals: { autoReplyHeader: true } }), rules)).toEqual({
      keep: false,
      reason: 'auto_reply',
    });
    for (const subject of ['Out of Office: back Monday', 'Automatic reply: Renewal', 'Auto-Reply: hello']) {
      expect(classifyMessage(msg('dana@client.com', { subject }), rules)).toEqual({ keep: false, reason: 'auto_reply' });
    }
    expect(classifyMessage(msg('dana@client.com', { subject: 'Re: our out of office policy' }), rules)).toEqual({ keep: true });
  });

  it('drops bounces and delivery reports', () => {
    expect(classifyMessage(msg('mailer-daemon@mx.client.com', { signals: { deliveryReport: true } }), rules)).toEqual({
      keep: false,
      reason: 'bounce',
    });
    expect(classifyMessage(msg('postmaster@client.com', { subject: 'Undeliverable: Renewal' }), rules)).toEqual({
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
    ]) {
      expect(classifyMessage(msg(from), rules)).toEqual({ keep: false, reason: 'no_reply' });
    }
  });

  it('drops blocklisted domains (with subdomains) and addresses, case-insensitively', () => {
    expect(classifyMessage(msg('x@spammy.com'), rules)).toEqual({ keep: false, reason: 'blocklist' });
    expect(classifyMessage(msg('x@mail.eu.spammy.com'), rules)).toEqual({ keep: false, reason: 'blocklist' });
    expect(classifyMessage(msg('x@notspammy.com'), rules)).toEqual({ keep: true });
    expect(classifyMessage(msg('boss@client.com'), rules)).toEqual({ keep: false, reason: 'blocklist' });
    expect(classifyMessage(msg('other@client.com'), rules)).toEqual({ keep: true });
    expect(classifyMessage(msg('x@old-vendor.io'), rules)).toEqual({ keep: false, reason: 'blocklist' });
    expect(classifyMessage(msg('x@spammy.com'), { blocklist: [] })).toEqual({ keep: true });
  });
});

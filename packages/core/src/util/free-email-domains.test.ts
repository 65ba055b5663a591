import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { FREE_EMAIL_DOMAINS } from './free-email-domains.generated.js';
import { isFreeMailDomain } from '../resolve/domains.js';

const require = createRequire(import.meta.url);

describe('the free-mail list the engine ships', () => {
  it('is the list the pinned free-email-domains package publishes (run `npm run refresh:free-mail -w @chs/core` after updating it)', () => {
    const published = require('free-email-domains') as string[];
    const version = (require('free-email-domains/package.json') as { version: string }).version;
    expect(FREE_EMAIL_DOMAINS.length, `free-email-domains@${version}`).toBe(new Set(published).size);
    expect([...FREE_EMAIL_DOMAINS]).toEqual([...new Set(published.map((d) => d.toLowerCase()))].sort());
  });

  it('keeps personal addresses at the big free providers from ever becoming clients', () => {
    for (const d of ['gmail.com', 'yahoo.com', 'hotmail.com', 'outlook.com', 'aol.com', 'protonmail.com', 'mail.ru']) expect(isFreeMailDomain(d), d).toBe(true);
    for (const d of ['acme.com', 'enron.com', 'stripe.com']) expect(isFreeMailDomain(d), d).toBe(false);
  });
});

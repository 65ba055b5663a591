import { describe, expect, it } from 'vitest';
import { isRoleAddress, isRoleSender, Resolver } from './resolve.js';
import { isFreeMailDomain, registrableDomain } from './domains.js';

const a = (email: string, name = '') => ({ email, name });
const resolver = new Resolver({ ownDomains: ['ourco.com'], blocklist: ['spam.example', 'ceo@partner.com'] });

describe('registrableDomain', () => {
  it('folds subdomains into the registrable domain per the Public Suffix List', () => {
    expect(registrableDomain('ana@mail.eu.acme.co.uk')).toBe('acme.co.uk');
    expect(registrableDomain('sales.globex.com.au')).toBe('globex.com.au');
    expect(registrableDomain('bob@ACME.COM')).toBe('acme.com');
  });
  it('gives null for junk and bare hosts', () => {
    expect(registrableDomain('root@localhost')).toBeNull();
    expect(registrableDomain('')).toBeNull();
  });
  it('knows the free-mail providers', () => {
    expect(isFreeMailDomain('gmail.com')).toBe(true);
    expect(isFreeMailDomain('outlook.com')).toBe(true);
    expect(isFreeMailDomain('acme.com')).toBe(false);
  });
});

describe('Resolver', () => {
  it('marks mail from a client as inbound to that client', () => {
    const r = resolver.resolve({ from: a('ana@mail.eu.acme.co.uk', 'Ana'), to: [a('me@ourco.com')], cc: [] });
    expect(r).toEqual({
      kind: 'interaction',
      direction: 'inbound',
      clientDomains: ['acme.co.uk'],
      roles: ['direct'],
      participants: [{ email: 'ana@mail.eu.acme.co.uk', name: 'Ana', domain: 'acme.co.uk' }],
      addressed: true,
    });
  });

  it('marks our mail to two clients as outbound, an interaction of each', () => {
    const r = resolver.resolve({ from: a('me@ourco.com'), to: [a('x@acme.com'), a('y@globex.com')], cc: [a('z@sub.acme.com')] });
    expect(r.kind).toBe('interaction');
    if (r.kind !== 'interaction') return;
    expect(r.direction).toBe('outbound');
    expect(r.clientDomains).toEqual(['acme.com', 'globex.com']);
    expect(r.participants.map((p) => p.email)).toEqual(['x@acme.com', 'y@globex.com', 'z@sub.acme.com']);
  });

  it('skips internal-only mail, including staff on our subdomains', () => {
    expect(resolver.resolve({ from: a('me@ourco.com'), to: [a('you@eu.ourco.com')], cc: [] })).toEqual({ kind: 'skip', reason: 'internal' });
  });

  it('never makes a client of free mail, blocklisted domains or addresses', () => {
    expect(resolver.resolve({ from: a('joe@gmail.com'), to: [a('me@ourco.com')], cc: [] })).toEqual({ kind: 'skip', reason: 'no_client' });
    expect(resolver.resolve({ from: a('x@news.spam.example'), to: [a('me@ourco.com')], cc: [] })).toEqual({ kind: 'skip', reason: 'no_client' });
    expect(resolver.resolve({ from: a('ceo@partner.com'), to: [a('me@ourco.com')], cc: [] })).toEqual({ kind: 'skip', reason: 'no_client' });
    const r = resolver.resolve({ from: a('ceo@partner.com'), to: [a('me@ourco.com')], cc: [a('cto@partner.com')] });
    expect(r.kind === 'interaction' && r.clientDomains).toEqual(['partner.com']);
  });

  it('a free-mail sender writing to us with a client in copy is an interaction of that client', () => {
    const r = resolver.resolve({ from: a('joe@gmail.com'), to: [a('me@ourco.com')], cc: [a('boss@initech.io', 'Boss')] });
    expect(r.kind === 'interaction' && r.direction).toBe('inbound');
    expect(r.kind === 'interaction' && r.clientDomains).toEqual(['initech.io']);
    // …but only as a co-recipient: on its own, such mail makes no client (resolve/discovery.ts).
    expect(r.kind === 'interaction' && r.roles).toEqual(['co_recipient']);
  });

  it('tells each domain its part: we wrote to them, they wrote to us, they copied us, a long list, a role desk, a co-recipient', () => {
    const roles = (m: Parameters<Resolver['resolve']>[0]) => {
      const r = resolver.resolve(m);
      return r.kind === 'interaction' ? Object.fromEntries(r.clientDomains.map((d, i) => [d, r.roles[i]])) : r.reason;
    };
    expect(roles({ from: a('me@ourco.com'), to: [a('x@acme.com')], cc: [a('y@globex.com')] })).toEqual({ 'acme.com': 'wrote_to', 'globex.com': 'wrote_to' });
    // Our joke forwarded to friends at free-mail and company addresses: no conversation with their employers.
    expect(roles({ from: a('me@ourco.com'), to: [a('pal@aol.com'), a('gal@yahoo.com'), a('bud@initech.io')], cc: [] })).toEqual({ 'initech.io': 'mass_mail' });
    // Our announcement to five companies at once.
    const five = ['a.com', 'b.com', 'c.com', 'd.com', 'e.com'].map((d) => a(`x@${d}`));
    expect(Object.values(roles({ from: a('me@ourco.com'), to: five, cc: [] }) as object)).toEqual(Array(5).fill('mass_mail'));
    expect(roles({ from: a('ana@acme.com'), to: [a('me@ourco.com')], cc: [a('bo@globex.com')] })).toEqual({
      'acme.com': 'direct',
      'globex.com': 'co_recipient',
    });
    expect(roles({ from: a('ana@acme.com'), to: [a('bo@globex.com')], cc: [a('me@ourco.com')] })).toEqual({
      'acme.com': 'cc_only',
      'globex.com': 'co_recipient',
    });
    expect(roles({ from: a('info@acme.com'), to: [a('me@ourco.com')], cc: [] })).toEqual({ 'acme.com': 'role_sender' });
    expect(roles({ from: a('ecenter@acme.com', 'Acme Member Services'), to: [a('me@ourco.com')], cc: [] })).toEqual({ 'acme.com': 'role_sender' });
    const crowd = Array.from({ length: 12 }, (_, i) => a(`p${i}@ourco.com`));
    expect(roles({ from: a('ana@acme.com'), to: crowd, cc: [] })).toEqual({ 'acme.com': 'mass_mail' });
    // Only mail written to us directly can wait for our reply.
    const direct = resolver.resolve({ from: a('ana@acme.com'), to: [a('me@ourco.com')], cc: [] });
    const copied = resolver.resolve({ from: a('ana@acme.com'), to: [a('bo@globex.com')], cc: [a('me@ourco.com')] });
    expect([direct.kind === 'interaction' && direct.addressed, copied.kind === 'interaction' && copied.addressed]).toEqual([true, false]);
  });

  it('knows the ISPs of old mailboxes and role addresses', () => {
    for (const d of ['flash.net', 'home.com', 'erols.com', 'swbell.net', 'teleport.com', 'sympatico.ca']) expect(isFreeMailDomain(d), d).toBe(true);
    expect(isRoleAddress('sales@acme.com')).toBe(true);
    expect(isRoleAddress('info.us@acme.com')).toBe(true);
    expect(isRoleAddress('sandra.lee@acme.com')).toBe(false);
    // A desk's display name shows it where its address is a code.
    expect(isRoleSender({ email: 'ecenter@news.example', name: 'ENL Member Services' })).toBe(true);
    expect(isRoleSender({ email: 'cs4@shop.example', name: 'Acme Customer Care' })).toBe(true);
    expect(isRoleSender({ email: 'llb@explore1.shop.example', name: 'Outdoor Co Newsletter' })).toBe(true);
    expect(isRoleSender({ email: 'info@acme.com', name: '' })).toBe(true);
    expect(isRoleSender({ email: 'sandra.lee@acme.com', name: 'Sandra Lee' })).toBe(false);
    expect(isRoleSender({ email: 'sandra.lee@acme.com', name: 'Sandra Lee (Customer Success)' })).toBe(false);
  });
});

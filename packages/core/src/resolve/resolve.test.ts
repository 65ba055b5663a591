import { describe, expect, it } from 'vitest';
import { Resolver } from './resolve.js';
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
      participants: [{ email: 'ana@mail.eu.acme.co.uk', name: 'Ana', domain: 'acme.co.uk' }],
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
  });
});

/**
 * What mailparser reads as a message's envelope, mapped the way the pipeline stores addresses
 * (groups flattened, lower-cased, trimmed names) — the reference the header reader is tested against.
 */
import type { AddressObject, EmailAddress, ParsedMail } from 'mailparser';
import type { Address } from '../interfaces.js';

function mailparserAddresses(value: AddressObject | AddressObject[] | undefined): Address[] {
  const out: Address[] = [];
  const walk = (list: EmailAddress[]) => {
    for (const a of list) {
      if (a.group) walk(a.group);
      else if ((a.address ?? '').trim() !== '') out.push({ email: (a.address ?? '').trim().toLowerCase(), name: (a.name ?? '').trim() });
    }
  };
  for (const obj of value === undefined ? [] : Array.isArray(value) ? value : [value]) walk(obj.value);
  return out;
}

export function mailparserEnvelope(mail: ParsedMail): { from: Address | null; to: Address[]; cc: Address[]; subject: string } {
  return {
    from: mailparserAddresses(mail.from)[0] ?? null,
    to: mailparserAddresses(mail.to),
    cc: mailparserAddresses(mail.cc),
    subject: (mail.subject ?? '').replace(/\s+/g, ' ').trim(),
  };
}

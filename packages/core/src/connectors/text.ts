/** Small text helpers shared by the connectors. */
import { htmlToText as mailHtmlToText } from '../parse/html.js';

/** `https://www.Acme.com/x` → `acme.com`; '' when it is not a domain. */
export function normaliseDomain(value: string): string {
  let v = value.trim().toLowerCase();
  if (!v) return '';
  v = v
    .replace(/^[a-z][a-z0-9+.-]*:\/\//, '')
    .replace(/[/?#].*$/, '')
    .replace(/:\d+$/, '')
    .replace(/^www\./, '')
    .replace(/\.$/, '');
  return /^[a-z0-9-]+(\.[a-z0-9-]+)+$/.test(v) ? v : '';
}

/**
 * HubSpot and Intercom bodies to plain text on the calling (main) thread: the mail pipeline's
 * converter, linear in the input and capped (parse/html.ts), so a hostile body cannot stall it.
 */
export function htmlToText(html: string): string {
  return mailHtmlToText(html);
}

/**
 * The short summary stored with each interaction (mail and provider records alike). Its own
 * module: the provider sync needs it on the main thread, where the parse stack is not loaded.
 */
/** Longest summary kept per interaction (characters of the message's own new text). */
export const SUMMARY_LENGTH = 280;

/** Whitespace collapsed and cut to SUMMARY_LENGTH; only the text's beginning is looked at. */
export function summarise(text: string): string {
  // Collapsing a prefix gives the same first SUMMARY_LENGTH characters as collapsing the whole
  // text whenever that prefix is still longer than the summary once collapsed.
  const prefix = text.length > SUMMARY_LENGTH * 4 ? text.slice(0, SUMMARY_LENGTH * 4) : text;
  let flat = prefix.replace(/\s+/g, ' ').trim();
  if (prefix !== text && flat.length <= SUMMARY_LENGTH + 1) flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= SUMMARY_LENGTH ? flat : `${flat.slice(0, SUMMARY_LENGTH - 1).trimEnd()}…`;
}

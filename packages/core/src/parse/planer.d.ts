declare module 'planer' {
  const planer: {
    /** Removes the quotation (and what follows it) from a plain-text reply. */
    extractFromPlain(body: string): string;
  };
  export default planer;
}

declare module 'punycode.js' {
  const punycode: {
    /** Punycode (`xn--…` labels) to Unicode; other labels unchanged. */
    toUnicode(domain: string): string;
  };
  export default punycode;
}

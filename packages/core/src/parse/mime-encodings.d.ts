// The transfer decoders mailsplit (mailparser's MIME splitter) uses, called directly on a whole
// part body. The packages ship no types.
declare module 'libqp' {
  /** Quoted-printable → bytes; a Buffer is read byte for byte. */
  export function decode(input: string | Buffer): Buffer;
}
declare module 'libbase64' {
  /** Base64 → bytes; input made of several padded segments is decoded segment by segment. */
  export function decode(input: string): Buffer;
}

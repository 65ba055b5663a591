/** Bounds of ingestion that the main thread needs without loading the parse stack (config, sources). */

/** Default cap on one message's size (64 MiB: Gmail's 25 MB limit after base64, with room to spare). */
export const MAX_MESSAGE_BYTES = 64 * 1024 * 1024;

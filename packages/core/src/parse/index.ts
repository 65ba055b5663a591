export {
  parseMessage,
  readHead,
  type ReadHeadInput,
  readBody,
  parseMailDate,
  MessageParseError,
  isMessageParseError,
  DEFAULT_BACKEND,
  NO_DATE,
  type ParseOptions,
  type HeadRead,
  type MessageHead,
  type MessageBody,
} from './parse.js';
export { BACKENDS, BACKEND_NAMES, type BackendName, type BackendResult, type ParserBackend } from './backends.js';
export { cutAttachmentBodies, CUT_THRESHOLD, type CutResult } from './cut.js';
export { htmlToText } from './html.js';
export { extractNewText } from './strip.js';
export { classifyMessage, FILTER_REASONS, type FilterDecision, type FilterReason, type FilterRules } from './filter.js';
export { decodeAddressHeaders, decodeSubject } from './addresses.js';

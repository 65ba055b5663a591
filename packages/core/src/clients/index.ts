export { updateClientAttributes, applyClientAttributes, validateAttributes, findClientByDomain, createClient, type ClientAttributes } from './attributes.js';
export { importClientsCsv, parseCsv, CSV_COLUMNS, type CsvImportResult } from './import-csv.js';
export {
  listSuggestedClients,
  acceptSuggestedClient,
  ignoreSuggestedClient,
  type SuggestedClient,
  SUGGESTION_STATUSES,
  type SuggestionStatus,
  type ListSuggestionsOptions,
} from './suggestions.js';

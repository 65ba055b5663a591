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
export {
  OUTCOMES,
  OUTCOME_SOURCES,
  OUTCOME_CSV_COLUMNS,
  recordOutcome,
  listClientOutcomes,
  listWorkspaceOutcomes,
  importOutcomesCsv,
  validateOutcome,
  type Outcome,
  type OutcomeSource,
  type OutcomeInput,
  type OutcomeView,
  type OutcomeImportResult,
} from './outcomes.js';

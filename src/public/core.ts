/**
 * @module a2a-replay/core
 * What every layer shares, without loading any of them (the package root loads the recorder and
 * the reference peer): the error with its stable code and the commands' exit codes, clocks and id
 * sources, canonical JSON and strict JSON parsing, text made safe to print to a terminal, and
 * output files created afresh, never through a link, with mode 0600 (docs/design.md §9).
 */
export {
  A2aReplayError,
  type A2aReplayErrorCode,
  EXIT_CODES,
  describeError,
  errorMessage,
  isInfrastructureError,
} from '../errors.js';
export { type Clock, ManualClock, systemClock, isoAt } from '../clock.js';
export { type IdSource, CounterIdSource, randomIdSource } from '../ids.js';
export { VERSION, TOOL_NAME } from '../version.js';
export { type JsonValue, canonicalJson, hashCanonical, sha256Prefixed } from '../canonical/canonical-json.js';
export { parseJsonText } from '../canonical/parse-json.js';
export { printable } from '../printable.js';
export { type OutputFileOptions, type WholeFileOptions, openOutputFile, writeOutputFile } from '../output-file.js';

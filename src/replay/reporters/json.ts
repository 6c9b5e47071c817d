/**
 * @module replay/reporters/json
 * `--json`: the run summary as one JSON document (results, drift, receipt differences, exit code),
 * for scripts and dashboards. Field names are those of `result.ts`.
 */
import type { RunSummary } from '../result.js';

export function renderJson(summary: RunSummary): string {
  return JSON.stringify(summary, null, 2);
}

/**
 * @module cli/trace-name
 * The stem of a recording's trace file (`--traces DIR` writes `DIR/<stem>.otlp.json`), shared by
 * the commands that trace a recording (`run`, `record`) so one recording always names one file.
 */
import { basename, dirname } from 'node:path';

/** The recording's name without `.jsonl`, or its folder's for `<scenario>/recording.jsonl` (docs/design.md §10). */
export function traceName(file: string): string {
  const stem = basename(file).replace(/\.jsonl$/, '');
  return stem === 'recording' ? basename(dirname(file)) || stem : stem;
}

/**
 * @module tracing/trace-name
 * The stem of a recording's trace file (`--traces DIR` writes `DIR/<stem>.otlp.json`), shared by
 * the commands that trace a recording (`run`, `record`) so one recording always names one file.
 */
import { createHash } from 'node:crypto';
import { basename, dirname, resolve } from 'node:path';

/** The recording's name without `.jsonl`, or its folder's for `<scenario>/recording.jsonl` (docs/design.md §10). */
export function traceName(file: string): string {
  const stem = basename(file).replace(/\.jsonl$/, '');
  return stem === 'recording' ? basename(dirname(file)) || stem : stem;
}

/**
 * Trace names for several recordings at once: {@link traceName}, except that recordings whose
 * names collide (`a/session.jsonl`, `b/session.jsonl`) get `-<8 hex>` of their resolved path's
 * sha256 appended, so each writes its own trace file.
 */
export function uniqueTraceNames(files: readonly string[]): Map<string, string> {
  const byName = new Map<string, string[]>();
  for (const file of new Set(files)) {
    const name = traceName(file);
    byName.set(name, [...(byName.get(name) ?? []), file]);
  }
  const out = new Map<string, string>();
  for (const [name, group] of byName) {
    for (const file of group) {
      const suffix = createHash('sha256').update(resolve(file)).digest('hex').slice(0, 8);
      out.set(file, group.length === 1 ? name : `${name}-${suffix}`);
    }
  }
  return out;
}

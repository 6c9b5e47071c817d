/**
 * @module observe/entry-versions
 * The A2A version of each exchange of a recording, as its request entry recorded it (`a2aVersion`,
 * absent for 1.0; docs/design.md §5, §14.10), for the listings that name it: `lost` per task,
 * `audit` and the report per receipt (its `entries`). One session may mix dialects, so a task — a
 * pause seen in v0.3 and resumed in v1.0 — may show both. Only what is not 1.0 is kept, so a v1.0
 * recording costs nothing; the recording is read as it comes, never held.
 */
import type { RecordingEntry } from '../recording/format.js';
import { answerTaskId, requestTaskId } from '../replay/lanes.js';
import { CONTROL_PATH } from '../protocol/methods.js';
import { readTarget } from '../http/request-target.js';

/** The version of an exchange whose request names none. */
export const DEFAULT_A2A_VERSION = '1.0';

function sorted(versions: Iterable<string>): string[] {
  return [...new Set(versions)].sort();
}

export class EntryVersions {
  /** Exchanges (xid) and entries (seq) of a version other than 1.0. */
  readonly #exchanges = new Map<string, string>();
  readonly #entries = new Map<number, string>();
  /** Every version each task's exchanges spoke. */
  readonly #tasks = new Map<string, Set<string>>();

  /** Reads one entry, in `seq` order. */
  add(entry: RecordingEntry): void {
    if (readTarget(entry.http.path).path === CONTROL_PATH) return;
    let version: string;
    if (entry.kind === 'request') {
      version = entry.a2aVersion ?? DEFAULT_A2A_VERSION;
      if (version !== DEFAULT_A2A_VERSION) this.#exchanges.set(entry.xid, version);
    } else version = this.#exchanges.get(entry.xid) ?? DEFAULT_A2A_VERSION;
    if (version !== DEFAULT_A2A_VERSION) this.#entries.set(entry.seq, version);
    let taskId: string | undefined;
    try {
      taskId = entry.kind === 'request' ? requestTaskId(entry) : answerTaskId(entry.body);
    } catch {
      return; // what no binding reads names no task; the observer names it
    }
    if (taskId === undefined) return;
    const versions = this.#tasks.get(taskId) ?? new Set<string>();
    versions.add(version);
    this.#tasks.set(taskId, versions);
  }

  /** Whether any exchange read so far spoke a version other than 1.0: then the listings name versions. */
  get named(): boolean {
    return this.#exchanges.size > 0;
  }

  /** The versions of the exchanges `seqs` belong to, sorted (`["0.3", "1.0"]`). */
  ofEntries(seqs: readonly number[]): string[] {
    return sorted(seqs.map((seq) => this.#entries.get(seq) ?? DEFAULT_A2A_VERSION));
  }

  /** The versions the exchanges naming `taskId` spoke, sorted; 1.0 for a task none named. */
  ofTask(taskId: string): string[] {
    return sorted(this.#tasks.get(taskId) ?? [DEFAULT_A2A_VERSION]);
  }
}

/** `["0.3", "1.0"]` as `0.3+1.0`, the way the listings show a row's versions. */
export function versionsLabel(versions: readonly string[]): string {
  return versions.join('+');
}

/** The receipt logs of the golden corpus as the twin tests read them: one parsed line each. */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

export const GOLDEN = join(import.meta.dirname, '..', '..', 'golden');

export interface Line {
  type: string;
  [key: string]: unknown;
}

/** The lines of `golden/<scenario>/recording.receipts.jsonl`, parsed. */
export async function lines(scenario: string): Promise<Line[]> {
  return (await readFile(join(GOLDEN, scenario, 'recording.receipts.jsonl'), 'utf8'))
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Line);
}

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { OBSERVER_RULES } from '../../src/observe/rules/tables.js';

const DESIGN = new URL('../../docs/design.md', import.meta.url);

/** The rule list of docs/design.md §14.8: `- \`id\` (fact → next states): reason`, one line a rule. */
function documentedRules(): Array<{ id: string; on: string; next: string[]; reason: string }> {
  const text = readFileSync(DESIGN, 'utf8');
  const start = text.indexOf('### 14.8 Rules');
  expect(start, 'docs/design.md has a §14.8 Rules section').toBeGreaterThan(-1);
  const end = text.indexOf('\n## ', start);
  const section = text.slice(start, end === -1 ? undefined : end);
  const rules: Array<{ id: string; on: string; next: string[]; reason: string }> = [];
  for (const line of section.split('\n')) {
    const m = /^- `([a-z-]+\/[a-z-]+)` \(([A-Za-z]+) → ([a-z, -]+)\): (.+)$/.exec(line);
    if (m) rules.push({ id: m[1]!, on: m[2]!, next: m[3]!.split(', '), reason: m[4]! });
  }
  return rules;
}

describe('the observer rule list in docs/design.md §14.8', () => {
  it('names every rule of the tables, and no rule the tables lack', () => {
    const documented = documentedRules().map((r) => r.id);
    const tables = OBSERVER_RULES.map((r) => r.id);
    expect(
      tables.filter((id) => !documented.includes(id)),
      'rules missing from the design',
    ).toEqual([]);
    expect(
      documented.filter((id) => !tables.includes(id)),
      'rules the tables do not have',
    ).toEqual([]);
  });

  it('gives each rule the fact and reason of its row, in precedence order', () => {
    expect(documentedRules()).toEqual(
      OBSERVER_RULES.map((r) => ({ id: r.id, on: r.on, next: [...r.next], reason: r.reason })),
    );
  });

  it('has unique rule ids, each prefixed by its state', () => {
    const ids = OBSERVER_RULES.map((r) => r.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const r of OBSERVER_RULES) expect(r.id.startsWith(`${r.state}/`), r.id).toBe(true);
  });
});

/**
 * The top functions by self time of a V8 CPU profile (`node --cpu-prof` writes one on exit),
 * with their file:line: `npx tsx bench/profile-summary.ts FILE.cpuprofile... [--top 15]`.
 * Share is of the whole profile and of its busy time (everything but `(idle)`).
 */
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { textTable } from '../cli/text-table.js';
import { ROOT, arg } from './_lib.js';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const top = Number(arg('top', '15'));
const files = process.argv.slice(2).filter((a, i, all) => !a.startsWith('--') && all[i - 1] !== '--top');
if (files.length === 0 || !Number.isInteger(top) || top < 1)
  throw new Error('usage: profile-summary.ts FILE.cpuprofile... [--top N]');

function where(url: string, line: number): string {
  if (url === '') return '';
  const path = url.startsWith('file://') ? relative(ROOT, fileURLToPath(url)) : url;
  return `${path}:${line + 1}`;
}

function summarize(file: string): void {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  // Self time in µs by function (name + place): sample i lasts until sample i+1.
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<string, { name: string; at: string; us: number }>();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const us = profile.timeDeltas[i + 1] ?? 0;
    const frame = nodes.get(id)?.callFrame;
    if (!frame) return;
    const at = where(frame.url, frame.lineNumber);
    const name = frame.functionName || '(anonymous)';
    const key = `${name} ${at}`;
    const entry = self.get(key) ?? { name, at, us: 0 };
    entry.us += us;
    self.set(key, entry);
    total += us;
  });
  const idle = [...self.values()].filter((e) => e.name === '(idle)').reduce((sum, e) => sum + e.us, 0);
  const busy = total - idle;
  const rows = [...self.values()].sort((a, b) => b.us - a.us).slice(0, top);
  const pct = (us: number, of: number): string => `${((100 * us) / Math.max(of, 1)).toFixed(1)}%`;
  console.log(`${file}: ${(total / 1000).toFixed(0)} ms sampled, ${(busy / 1000).toFixed(0)} ms busy`);
  console.log(
    textTable([
      ['self ms', 'of all', 'of busy', 'function', 'file:line'],
      ...rows.map((r) => [
        (r.us / 1000).toFixed(1),
        pct(r.us, total),
        r.name === '(idle)' ? '' : pct(r.us, busy),
        r.name,
        r.at,
      ]),
    ]),
  );
}

for (const file of files) summarize(file);

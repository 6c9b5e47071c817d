/**
 * Runs every benchmark in bench/ one after the other (never in parallel: each measures its own
 * baseline on the same machine in the same run). `npm run bench [name-filter]`.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const dir = fileURLToPath(new URL('.', import.meta.url));
const filter = process.argv[2] ?? '';
const benches = readdirSync(dir)
  .filter((f) => f.endsWith('.ts') && f !== 'run.ts' && !f.startsWith('_') && f.includes(filter))
  .sort();
let failed = 0;
for (const bench of benches) {
  process.stdout.write(`\n== ${bench} ==\n`);
  const result = spawnSync(process.execPath, ['--import', 'tsx', `${dir}${bench}`], { stdio: 'inherit' });
  if (result.status !== 0) failed++;
}
process.exitCode = failed === 0 ? 0 : 1;

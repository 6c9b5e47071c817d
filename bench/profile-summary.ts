/**
 * The top functions by self time of a V8 CPU profile (`node --cpu-prof` writes one on exit),
 * with their file:line: `npx tsx bench/profile-summary.ts FILE.cpuprofile... [--top 15] [--stages | --inclusive]`.
 * Share is of the whole profile and of its busy time (everything but `(idle)`). Frames of the bundled
 * CLI are read through the source maps beside its files, so places and stages name `src/...ts`.
 *
 * With `--stages`, the busy time is summed into the recorder's stages instead ({@link stageOf}):
 * each sample goes to the stage of the innermost frame of this project's code on its stack (a
 * native `JSON.parse` called by the body reader is body parsing; Node's own code, such as a socket's
 * writev, is `http machinery` whoever called it), or, with none, to the kind of V8 work it is. Counting
 * starts at the first exchange forwarded (start-up is no call's cost). `stagesOf` is what
 * bench/proxy-latency.ts reports per call kind.
 */
import { existsSync, readFileSync } from 'node:fs';
import { SourceMap, type SourceMapPayload } from 'node:module';
import { dirname, relative, resolve as resolvePath } from 'node:path';
import { fileURLToPath } from 'node:url';
import { textTable } from '../cli/text-table.js';
import { ROOT, arg } from './_lib.js';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  children?: number[];
}

export interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** The stages of the recorder's work on a call, in the order they are printed. */
export const STAGES = [
  'body buffering/parsing',
  'observer reading',
  'entry serialization',
  'line writer',
  'receipts',
  'span work',
  'holds',
  'headers',
  'proxy logic',
  'other project code',
  'http machinery',
  'gc',
  'other',
] as const;
export type Stage = (typeof STAGES)[number];

/** Where in src/ (path relative to the build's root, `dist/src/...` or `src/...`) each stage lives. */
const STAGE_FILES: [RegExp, Stage][] = [
  [/src\/(http\/limits|http\/json-body|intercept\/body-record|recording\/resume-token)\./, 'body buffering/parsing'],
  [/src\/canonical\/(depth|parse-json)\./, 'body buffering/parsing'],
  [/src\/observe\/pipeline\.|src\/intercept\/held-relay\.|cli\/commands\/record\./, 'holds'],
  [/src\/tracing\/|src\/observe\/observer-spans\.|@opentelemetry|cli\/(open-tracing|tracing-setup)\./, 'span work'],
  [/src\/observe\//, 'observer reading'],
  [/src\/(recording\/entry-line|canonical\/canonical-json)\./, 'entry serialization'],
  [/src\/recording\/(recording-writer|line-sink)\./, 'line writer'],
  [/src\/receipts\//, 'receipts'],
  [/src\/(intercept\/http-headers|recording\/redaction|recording\/principal)\./, 'headers'],
  [/src\/intercept\//, 'proxy logic'],
  [/(^|\/)(src|cli)\//, 'other project code'],
];

/** The stage of a sample whose innermost project frame is in `path` (none: `undefined`), else of its own frame. */
export function stageOf(projectPath: string | undefined, self: { functionName: string; url: string }): Stage {
  if (projectPath !== undefined) {
    for (const [pattern, stage] of STAGE_FILES) if (pattern.test(projectPath)) return stage;
  }
  if (self.functionName === '(garbage collector)') return 'gc';
  if (
    /^node:(_http|http|net|stream|internal\/(http|streams|stream_base|net|timers|js_stream|process\/task_queues))/.test(
      self.url,
    ) ||
    self.url.startsWith('node:internal/streams')
  )
    return 'http machinery';
  if (self.functionName === '(program)' || self.url === '') return 'other';
  return self.url.startsWith('node:') ? 'http machinery' : 'other';
}

type CallFrame = ProfileNode['callFrame'];

/** The source maps beside the bundled program's files (scripts/bundle-cli.mjs writes them), by URL; null: none. */
const sourceMaps = new Map<string, { map: SourceMap; dir: string } | null>();

/**
 * Where a frame's code was written, relative to the project root, with its 0-based line: through
 * the source map beside a bundled file (the CLI's chunks map back to `src/...ts` and `cli/...ts`),
 * else the file itself.
 */
function sourceOf(frame: CallFrame, root = ROOT): { path: string; line: number } | undefined {
  if (!frame.url.startsWith('file://')) return undefined;
  const file = fileURLToPath(frame.url);
  let known = sourceMaps.get(frame.url);
  if (known === undefined) {
    known = existsSync(`${file}.map`)
      ? { map: new SourceMap(JSON.parse(readFileSync(`${file}.map`, 'utf8')) as SourceMapPayload), dir: dirname(file) }
      : null;
    sourceMaps.set(frame.url, known);
  }
  if (known !== null) {
    const entry = known.map.findEntry(frame.lineNumber, frame.columnNumber) as {
      originalSource?: string;
      originalLine?: number;
    };
    if (entry.originalSource !== undefined)
      return { path: relative(root, resolvePath(known.dir, entry.originalSource)), line: entry.originalLine ?? 0 };
  }
  return { path: relative(root, file), line: frame.lineNumber };
}

/**
 * The path of a frame's code in the project checked out at `root` (through the source maps), or
 * undefined for code not the project's.
 */
export function projectPathOf(frame: CallFrame, root = ROOT): string | undefined {
  const path = sourceOf(frame, root)?.path;
  return path === undefined || path.startsWith('node_modules/') || path.startsWith('..') ? undefined : path;
}

/** Busy µs per stage of `profile` (idle left out), and the busy total. */
export function stagesOf(profile: CpuProfile): { busyUs: number; us: Record<Stage, number> } {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const stageOfNode = new Map<number, Stage>();
  const resolve = (id: number): Stage => {
    const known = stageOfNode.get(id);
    if (known !== undefined) return known;
    const self = byId.get(id)!.callFrame;
    // The innermost frame with a URL decides: this project's code (and V8 builtins it calls
    // directly, such as JSON.parse) is its stage; Node's own code (and what it calls, such as a
    // socket's writev) is Node's, whoever called it.
    let project: string | undefined;
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const frame = byId.get(at)!.callFrame;
      if (frame.url === '') continue;
      project = projectPathOf(frame);
      if (project === undefined && /@opentelemetry/.test(frame.url)) project = 'node_modules/@opentelemetry';
      if (project === undefined && frame.url.startsWith('node:')) return cache(id, stageOf(undefined, frame));
      break;
    }
    return cache(id, stageOf(project, self));
  };
  const cache = (id: number, stage: Stage): Stage => {
    stageOfNode.set(id, stage);
    return stage;
  };
  // Start-up (loading modules, opening files) is no call's cost: counting starts at the first
  // sample inside the forwarding of an exchange.
  const forwarding = (id: number): boolean => {
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at))
      if (/intercept\/forward-exchange\./.test(projectPathOf(byId.get(at)!.callFrame) ?? '')) return true;
    return false;
  };
  const us = Object.fromEntries(STAGES.map((s) => [s, 0])) as Record<Stage, number>;
  let busyUs = 0;
  let started = false;
  profile.samples.forEach((id, i) => {
    const delta = profile.timeDeltas[i + 1] ?? 0;
    started ||= forwarding(id);
    if (!started || byId.get(id)?.callFrame.functionName === '(idle)') return;
    us[resolve(id)] += delta;
    busyUs += delta;
  });
  return { busyUs, us };
}

export function readProfile(file: string): CpuProfile {
  return JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
}

function where(frame: CallFrame): string {
  if (frame.url === '') return '';
  const source = sourceOf(frame);
  return source === undefined ? `${frame.url}:${frame.lineNumber + 1}` : `${source.path}:${source.line + 1}`;
}

function summarize(file: string, top: number): void {
  const profile = readProfile(file);
  // Self time in µs by function (name + place): sample i lasts until sample i+1.
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<string, { name: string; at: string; us: number }>();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const us = profile.timeDeltas[i + 1] ?? 0;
    const frame = nodes.get(id)?.callFrame;
    if (!frame) return;
    const at = where(frame);
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

function summarizeStages(file: string): void {
  const { busyUs, us } = stagesOf(readProfile(file));
  console.log(`${file}: ${(busyUs / 1000).toFixed(0)} ms busy`);
  console.log(
    textTable([
      ['stage', 'ms', 'of busy'],
      ...STAGES.map((s) => [s, (us[s] / 1000).toFixed(1), `${((100 * us[s]) / Math.max(busyUs, 1)).toFixed(1)}%`]),
    ]),
  );
}

/**
 * The functions of this project by inclusive time (their own and everything they call, Node's
 * code included), from the first exchange forwarded on, as shares of that busy time: where a
 * stage's cost comes from when its self time is spread thin.
 */
function summarizeInclusive(file: string, top: number): void {
  const profile = readProfile(file);
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const stack = (id: number): CallFrame[] => {
    const frames: CallFrame[] = [];
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) frames.push(byId.get(at)!.callFrame);
    return frames;
  };
  const inclusive = new Map<string, number>();
  let busy = 0;
  let started = false;
  profile.samples.forEach((id, i) => {
    const delta = profile.timeDeltas[i + 1] ?? 0;
    const frames = stack(id);
    started ||= frames.some((f) => /intercept\/forward-exchange\./.test(projectPathOf(f) ?? ''));
    if (!started || frames[0]?.functionName === '(idle)') return;
    busy += delta;
    const counted = new Set<string>();
    for (const frame of frames) {
      if (projectPathOf(frame) === undefined) continue;
      const key = `${frame.functionName || '(anonymous)'} ${where(frame)}`;
      if (counted.has(key)) continue;
      counted.add(key);
      inclusive.set(key, (inclusive.get(key) ?? 0) + delta);
    }
  });
  const rows = [...inclusive].sort((a, b) => b[1] - a[1]).slice(0, top);
  console.log(`${file}: ${(busy / 1000).toFixed(0)} ms busy from the first exchange forwarded`);
  console.log(
    textTable([
      ['ms', 'of busy', 'function (inclusive)'],
      ...rows.map(([key, us]) => [(us / 1000).toFixed(1), `${((100 * us) / Math.max(busy, 1)).toFixed(1)}%`, key]),
    ]),
  );
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const top = Number(arg('top', '15'));
  const files = process.argv.slice(2).filter((a, i, all) => !a.startsWith('--') && all[i - 1] !== '--top');
  if (files.length === 0 || !Number.isInteger(top) || top < 1)
    throw new Error('usage: profile-summary.ts FILE.cpuprofile... [--top N] [--stages | --inclusive]');
  for (const file of files) {
    if (process.argv.includes('--stages')) summarizeStages(file);
    else if (process.argv.includes('--inclusive')) summarizeInclusive(file, top);
    else summarize(file, top);
  }
}

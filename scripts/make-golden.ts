/**
 * Regenerates the golden corpus: for every scenario, a deterministic reference peer and
 * `a2a-replay record` in front of it, the scenario driven through the recorder (which writes the
 * golden receipts), then a strict replay that must derive the same receipts byte for byte and
 * writes the scenario's trace file. Nothing in golden/ or traces/ is edited by hand.
 *
 *   npm run build && npx tsx scripts/make-golden.ts [scenario-name ...]
 *   npx tsx scripts/make-golden.ts --index     # golden/README.md only, from the files as they are
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { A2aTestClient } from './golden/a2a-client.js';
import { SCENARIOS } from './golden/scenarios.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CLI = `${ROOT}dist/cli/main.js`;
const KEY = `${ROOT}golden/test-key.json`;

interface Server {
  url: string;
  child: ChildProcess;
  stderr: () => string;
}

function startServer(args: string[]): Promise<Server> {
  const child = spawn(process.execPath, [CLI, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.once('line', (line) => {
      const m = /^listening on (http:\/\/\S+)$/.exec(line);
      if (m) resolve({ url: m[1] as string, child, stderr: () => stderr });
      else reject(new Error(`unexpected first line from ${args[0]}: ${line}`));
    });
    child.once('exit', (code) => reject(new Error(`${args[0]} exited ${code}: ${stderr}`)));
  });
}

function stop(server: Server): Promise<number | null> {
  return new Promise((resolve) => {
    if (server.child.exitCode !== null) return resolve(server.child.exitCode);
    server.child.once('exit', (code) => resolve(code));
    server.child.kill('SIGTERM');
  });
}

function run(args: string[]): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.on('close', (code) => resolve({ code, out }));
  });
}

async function main(): Promise<void> {
  if (!existsSync(CLI)) throw new Error('run `npm run build` first');
  await mkdir(`${ROOT}golden`, { recursive: true });
  if (!existsSync(KEY)) {
    const made = await run(['keygen', '--out', KEY, '--kid', 'golden-test']);
    if (made.code !== 0) throw new Error(`keygen failed: ${made.out}`);
  }
  const only = process.argv.slice(2);
  if (only.length === 1 && only[0] === '--index') return writeIndex();
  const unknown = only.filter((name) => !SCENARIOS.some((s) => s.name === name));
  if (unknown.length > 0) throw new Error(`no scenario named ${unknown.join(', ')}`);
  const chosen = only.length > 0 ? SCENARIOS.filter((s) => only.includes(s.name)) : SCENARIOS;
  await mkdir(`${ROOT}traces`, { recursive: true });
  for (const scenario of chosen) {
    const dir = `${ROOT}golden/${scenario.name}`;
    await rm(dir, { recursive: true, force: true });
    await mkdir(dir, { recursive: true });
    const peer = await startServer([
      'peer',
      '--deterministic',
      ...(scenario.legacy ? ['--legacy-pause'] : []),
      ...(scenario.bypassAskAfterMs === undefined ? [] : ['--bypass-ask-after', String(scenario.bypassAskAfterMs)]),
    ]);
    const recorder = await startServer([
      'record',
      '--upstream',
      peer.url,
      '--out',
      `${dir}/recording.jsonl`,
      '--key',
      KEY,
    ]);
    let failure: Error | undefined;
    const client = new A2aTestClient(recorder.url, 'operator', scenario.binding ?? 'JSONRPC', scenario.dialect);
    try {
      await scenario.run(client);
    } catch (error) {
      failure = error instanceof Error ? error : new Error(`${scenario.name} failed`, { cause: error });
    } finally {
      client.close();
    }
    const code = await stop(recorder);
    await stop(peer);
    if (failure !== undefined) throw failure;
    if (code !== 0) throw new Error(`${scenario.name}: recorder exited ${code}: ${recorder.stderr()}`);
    // The recorder wrote the golden receipts; a strict replay must derive the same bytes. It also
    // writes the scenario's trace file.
    const traced = await run(['run', `${dir}/recording.jsonl`, '--key', KEY, '--strict', '--traces', `${ROOT}traces`]);
    if (traced.code !== 0) throw new Error(`${scenario.name}: strict replay failed (${traced.code}):\n${traced.out}`);
    process.stdout.write(`${scenario.name}: recorded\n`);
  }
  await writeIndex();
}

/** One line per receipt: who paused how, and how it ended. */
interface ReceiptSummaryFields {
  type?: string;
  initiatedBy?: string;
  via?: string;
  mode?: string | null;
  cause?: string;
  outcome?: string;
  errorCode?: number | null;
  state?: string;
  principal?: string | null;
}

function summarize(line: ReceiptSummaryFields): string | undefined {
  if (line.type === 'SuspensionReceipt') {
    const who = (line.initiatedBy ?? '').replace('PAUSE_INITIATOR_', '').toLowerCase();
    return `Suspension(${who}, ${line.via ?? ''}${line.mode ? `, ${line.mode}` : ''})`;
  }
  if (line.type === 'ResumptionReceipt') {
    const code = typeof line.errorCode === 'number' ? ` ${line.errorCode}` : '';
    return `Resumption(${line.cause ?? ''} → ${line.outcome ?? ''}${code})`;
  }
  if (line.type === 'InterruptionReceipt') return `Interruption(${(line.state ?? '').replace('TASK_STATE_', '')})`;
  if (line.type === 'ContinuationReceipt')
    return `Continuation(${line.cause ?? ''}, ${line.principal ?? 'no principal'})`;
  return undefined;
}

async function writeIndex(): Promise<void> {
  const rows: string[] = [];
  for (const scenario of SCENARIOS) {
    const file = `${ROOT}golden/${scenario.name}/recording.receipts.jsonl`;
    const receipts = existsSync(file)
      ? (await readFile(file, 'utf8'))
          .split('\n')
          .filter(Boolean)
          .map((l) => summarize(JSON.parse(l) as ReceiptSummaryFields))
          .filter((s): s is string => s !== undefined)
      : [];
    rows.push(
      `| \`${scenario.name}\` | ${scenario.proves} | ${scenario.rule} | ${receipts.join('<br>') || '(none)'} |`,
    );
  }
  const text = `# Golden corpus

Each folder holds a session recorded through \`a2a-replay record\` against the reference peer in
deterministic mode (\`recording.jsonl\`) and the receipts derived from it
(\`recording.receipts.jsonl\`), signed with the test-only key \`test-key.json\`. The trace of each
scenario is \`traces/<scenario>.otlp.json\`. Scenarios named \`rest-*\` are the same sessions with the
client speaking HTTP+JSON (docs/design.md §15), and those named \`grpc-*\` with the client speaking
gRPC (§16); their receipts say what their JSON-RPC twins' say, in \`binding\` \`HTTP+JSON\` or \`GRPC\`
(entry numbers, times, spans and signatures are each recording's own). Scenarios named \`v03-*\` are
the same sessions with the client speaking A2A v0.3 over JSON-RPC, and \`v03-rest-*\` over v0.3
HTTP+JSON under \`/rest/v1/\` (docs/design.md §4 "Two dialects", §14.10); their receipts say what
their v1.0 originals' say. \`mixed-dialect-pause-v03-resume-v10\` pauses a task in v0.3 and resumes
it in v1.0: one pause, the receipts of \`caller-pause-finish-step\`.
Nothing here is edited by hand: regenerate everything, or only the scenarios named, with

    npm run build && npx tsx scripts/make-golden.ts [scenario ...]

Run the corpus against any peer that implements the paused-state RFC:

    npx a2a-replay run golden/*/recording.jsonl --key golden/test-key.json --peer-cmd 'your-peer --port $PORT'

| scenario | what it proves | RFC rule it pins | receipts |
|---|---|---|---|
${rows.join('\n')}
`;
  await writeFile(`${ROOT}golden/README.md`, text);
}

await main();

/**
 * `run` says the likely cause first. A session recorded through `startRecorder` (what `record`
 * starts; it keeps the upstream's agent card in the recording header) is replayed, as `run --peer`
 * replays it (`replayRecordings`, test/helpers/run-report.ts), against peer variants in front of
 * a real reference peer (`startPeer`): one that answers -32601 to the pause methods, one without
 * a `/control` channel, and the `@a2a-js/sdk` peer serving JSON-RPC at another path. The report's
 * first line after the verdict names the cause, in text and in `--json`. A golden interruption
 * scenario replayed against the peer variant that walks past its gate names the bypass.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/canonical/canonical-json.js';
import { generateReceiptKey } from '../../src/receipts/keys.js';
import { type RunningPeer, startPeer } from '../../src/public/peer.js';
import { startRecorder } from '../../src/public/record.js';
import { startSdkPausePeer } from '../fixtures/sdk-pause-peer.js';
import { ROOT } from '../helpers/cli.js';
import { type PeerVariant, answerJson, startPeerVariant } from '../helpers/peer-variant.js';
import { replayReport } from '../helpers/run-report.js';
import { callerPauseSession } from './session.js';

let dir = '';
let recording = '';
let keyFile = '';
let peer: RunningPeer | undefined;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'run-causes-'));
  recording = join(dir, 'session.jsonl');
  keyFile = join(dir, 'key.json');
  await writeFile(keyFile, canonicalJson(generateReceiptKey({ kid: 'causes' }).keyFile()), { mode: 0o600 });
  const recorded = await startPeer({ deterministic: true });
  const recorder = await startRecorder({ upstream: recorded.url, out: recording, key: keyFile, warn: () => undefined });
  try {
    await callerPauseSession(recorder.url);
  } finally {
    await recorder.close();
    await recorded.close();
  }
  peer = await startPeer({ deterministic: true });
});
afterAll(async () => {
  await peer?.close();
  await rm(dir, { recursive: true, force: true });
});

/** A peer variant: forwards to the reference peer, except what `refuse` answers itself. */
function variant(
  refuse: (path: string, method: string | undefined, res: ServerResponse) => boolean,
): Promise<PeerVariant> {
  return startPeerVariant(peer!.url, refuse);
}

const answer = answerJson;

/** The first line after the verdict. */
const firstDetail = (stdout: string): string => stdout.split('\n')[1] ?? '';

describe('run names the likely cause first', () => {
  it('keeps the upstream agent card in the recording header', async () => {
    const header = JSON.parse((await readFile(recording, 'utf8')).split('\n')[0] as string) as {
      agentCard?: { capabilities?: { extensions?: { uri: string }[] } };
    };
    expect(header.agentCard?.capabilities?.extensions?.map((e) => e.uri)).toContain(
      'https://a2a-replay.dev/extensions/paused-state/v1',
    );
  });

  it('a peer without the pause methods: the pause extension is missing', async () => {
    const live = await variant((_path, method, res) =>
      method === 'PauseTask' || method === 'ResumeTask'
        ? answer(res, 200, { jsonrpc: '2.0', id: 1, error: { code: -32601, message: 'Method not found' } })
        : false,
    );
    try {
      const r = await replayReport([recording], { peer: live.url, key: keyFile, timeoutMs: 2000 });
      expect(r.code).toBe(1);
      expect(firstDetail(r.stdout)).toBe(
        '  likely cause: pause extension missing: the live peer answers -32601 (method not found) to PauseTask: ' +
          'it does not implement the pause extension',
      );
      const json = await replayReport([recording], { peer: live.url, json: true, timeoutMs: 2000 });
      const summary = JSON.parse(json.stdout) as { results: { causes: string[] }[] };
      expect(summary.results[0]?.causes[0]).toMatch(/^pause extension missing: /);
    } finally {
      await live.close();
    }
  });

  it('a peer without /control: the clock cannot be advanced', async () => {
    const live = await variant((path, _method, res) =>
      path.startsWith('/control') ? answer(res, 404, { error: 'not found' }) : false,
    );
    try {
      const r = await replayReport([recording], { peer: live.url, key: keyFile, timeoutMs: 2000 });
      expect(r.code).toBe(1);
      expect(firstDetail(r.stdout)).toMatch(
        /^ {2}likely cause: no \/control channel: the live peer answers HTTP 404 to /,
      );
    } finally {
      await live.close();
    }
  });

  it('a peer serving JSON-RPC at another path: the path is named from the agent cards', async () => {
    const sdk = await startSdkPausePeer();
    try {
      const r = await replayReport([recording], { peer: sdk.url, timeoutMs: 1000 });
      expect(r.code).toBe(1);
      expect(firstDetail(r.stdout)).toBe(
        '  likely cause: path mismatch: the recording was made against JSONRPC at /, ' +
          'the live peer serves it at /a2a/jsonrpc',
      );
    } finally {
      await sdk.close();
    }
  });
});

it('never names as the cause an answer the recording shows too', async () => {
  const out = join(dir, 'refused-version.jsonl');
  const recorded = await startPeer({ deterministic: true });
  const recorder = await startRecorder({ upstream: recorded.url, out, key: keyFile, warn: () => undefined });
  try {
    // The recorded client once sent a version the peer refuses: -32009 at record time.
    const refused = await fetch(recorder.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '9.9' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'nothing' } }),
    });
    expect(((await refused.json()) as { error: { code: number } }).error.code).toBe(-32009);
    await callerPauseSession(recorder.url);
  } finally {
    await recorder.close();
    await recorded.close();
  }
  // Another step length: the session drifts, for a reason that is not the version header. An
  // answer the other steps never give is waited for 1 s, not run's 5 s: the drift is the same.
  const r = await replayReport([out], { key: keyFile, stepMs: 700, json: true, timeoutMs: 1000 });
  expect(r.code).toBe(1);
  const summary = JSON.parse(r.stdout) as { results: { causes: string[]; drift: unknown[] }[] };
  expect(summary.results[0]?.drift.length).toBeGreaterThan(0);
  expect(summary.results[0]?.causes.join('\n')).not.toContain('version refused');
});

/** The likely cause of a gate walked past, where the golden log (its line 3) shows the answer continued it. */
const BYPASS_CAUSE = new RegExp(
  '^ {2}likely cause: gate bypassed: the live peer moved task task-\\S+ on from TASK_STATE_INPUT_REQUIRED ' +
    'with no client message naming it \\(seq \\d+\\): the gate was passed without a continuation, where the ' +
    "recording's answer continued it \\(\\S+input-asked-answered/recording\\.receipts\\.jsonl:3\\)$",
);

describe('run names a gate the live peer walked past', () => {
  it('replays input-asked-answered on a peer bypassing ask: gates to drift, passed without continuation', async () => {
    const golden = join(ROOT, 'golden', 'input-asked-answered');
    // Serving v1.0 only, as the peer that recorded the golden did: the settings differ in the bypass alone.
    const bypassing = await startPeer({ deterministic: true, a2aVersion: '1.0', bypassAskAfterMs: 60_000 });
    let r;
    try {
      r = await replayReport([join(golden, 'recording.jsonl')], { peer: bypassing.url });
    } finally {
      await bypassing.close();
    }
    expect(r.code, r.stdout).toBe(1);
    const causes = r.stdout.split('\n').filter((l) => l.startsWith('  likely cause: '));
    expect(causes).toContain('  likely cause: peer settings: bypassAskAfterMs recorded none, live 60000');
    expect(
      causes.some((l) => BYPASS_CAUSE.test(l)),
      causes.join('\n'),
    ).toBe(true);
    // The continuation the recording's answer made is missing from the replay, named by its golden line.
    expect(r.stdout).toMatch(/receipts\[1\] \(task-\S+ interruption 1 continuation 1, line 3\): expected \{/);
  });
});

/**
 * What `lost`, `verify`, `audit` and `mock` conclude, as the library calls each command makes
 * (cli/commands/<cmd>.ts), in the test's process: the same verdicts, printed texts and exit codes
 * without a CLI process (`run`'s are test/helpers/run-report.ts's). Each opened log set is closed
 * before the call returns, and the mock is the caller's to close.
 */
import { EXIT_CODES } from '../../src/public/core.js';
import { readRecording } from '../../src/public/intercept.js';
import { type MockSource, REPLAY_MAX_BODY_DEPTH, type RunningMock, startMockServer } from '../../src/public/mock.js';
import {
  type Keyring,
  auditLogSet,
  auditRefusal,
  loadKeyring,
  lostOutcome,
  lostPauses,
  lostPausesJson,
  openLogSet,
  verificationLines,
  verifyLogSet,
} from '../../src/public/receipts.js';

/** A key file loaded as `--key FILE` loads it. */
export async function keyringOf(file: string): Promise<Keyring> {
  return (await loadKeyring({ keys: [file], env: {} })).keyring;
}

/** `lost FILE --json` of one recording (no key): its exit code (0 clean, 2 not understood, else 1) and JSON. */
export async function lostCall(file: string): Promise<{ code: number; json: Record<string, unknown> }> {
  const set = await openLogSet([file]);
  try {
    const found = await lostPauses({ ...set, keyring: undefined, head: undefined });
    const outcome = lostOutcome(found);
    const code =
      outcome === 'clean' ? EXIT_CODES.ok : outcome === 'not-understood' ? EXIT_CODES.usage : EXIT_CODES.drift;
    return { code, json: JSON.parse(JSON.stringify(lostPausesJson(found))) as Record<string, unknown> };
  } finally {
    await set.close();
  }
}

/** `verify LOG --key FILE --recording REC`: its exit code (0 ok, 1 not) and printed lines. */
export async function verifyCall(
  log: string,
  key: string,
  recording: string,
): Promise<{ code: number; lines: string[] }> {
  const set = await openLogSet([log], { keys: [key], jobs: 1 });
  try {
    const verified = await verifyLogSet(set, { recording });
    return { code: verified.ok ? EXIT_CODES.ok : EXIT_CODES.drift, lines: verificationLines(verified) };
  } finally {
    await set.close();
  }
}

/** `audit LOG --key FILE --kind K --json`: its exit code and the rows it prints, each with its kind. */
export async function auditCall(
  log: string,
  key: string,
  kind: 'pause' | 'interruption',
): Promise<{ code: number; json: object[] }> {
  const set = await openLogSet([log], { keys: [key] });
  try {
    const audit = await auditLogSet(set, { kind });
    if (auditRefusal(audit) !== null) return { code: EXIT_CODES.drift, json: [] };
    const rows = audit.entries.map((e) => (e.kind === 'pause' ? { kind: 'pause', ...e.row } : e.row));
    return { code: EXIT_CODES.ok, json: JSON.parse(JSON.stringify(rows)) as object[] };
  } finally {
    await set.close();
  }
}

/** `mock FILE...`: each file read as `mock` reads it, served on a free loopback port. */
export async function startMock(files: readonly string[]): Promise<RunningMock> {
  const sources: MockSource[] = [];
  for (const file of files)
    sources.push({ source: file, recording: await readRecording(file, { maxBodyDepth: REPLAY_MAX_BODY_DEPTH }) });
  return startMockServer(sources, { host: '127.0.0.1', port: 0, noise: {}, ignore: [] });
}

/**
 * Stops the mock and says what its stop summary would list: the recorded exchanges never requested
 * (what `mock --expect-all` exits 1 for) and the requests no recorded exchange matched.
 */
export async function stopMock(mock: RunningMock): Promise<{ unrequested: string[]; unmatched: string[] }> {
  await mock.close();
  const report = mock.report();
  return {
    unrequested: report.recordings.flatMap((r) =>
      r.unrequested.map((e) => `${e.recording} seq ${e.seq} (xid ${e.xid}) ${e.method}`),
    ),
    unmatched: report.unmatched.map((u) => `${u.method} ${u.path}`),
  };
}

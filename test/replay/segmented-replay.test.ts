import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadKeyFile } from '../../src/receipts/key-file.js';
import { Keyring } from '../../src/receipts/keys.js';
import type { RecordingEntry } from '../../src/recording/format.js';
import { readRecording } from '../../src/recording/recording-reader.js';
import { driveRecording, driveRecordingStream } from '../../src/replay/driver.js';
import { runRecording } from '../../src/replay/run-recording.js';
import { replayPeerOpener } from '../../src/replay/replay-peer.js';
import { segmentsOf } from '../../src/replay/segments.js';
import { TOOL_NAME } from '../../src/version.js';
import { entry, result, rpc } from './fixtures.js';

const ROOT = join(import.meta.dirname, '../..');
const GOLDEN = readdirSync(join(ROOT, 'golden'), { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name)
  .sort();

/** The embedded reference peer `run` starts, set up as the recording says the recorded one was. */
const embeddedPeer = replayPeerOpener({});

describe('segmentsOf', () => {
  const get = (seq: number, xid: string): RecordingEntry => entry(seq, xid, 'request', rpc('GetTask', { id: 't' }));
  const answer = (seq: number, xid: string): RecordingEntry => entry(seq, xid, 'response', result({ id: 't' }));

  it('cuts after the window only where no exchange is open', async () => {
    const entries = [get(1, 'a'), get(2, 'b'), answer(3, 'a'), answer(4, 'b'), get(5, 'c'), answer(6, 'c')];
    const segments: number[][] = [];
    for await (const s of segmentsOf(entries, 1)) segments.push(s.map((e) => e.seq));
    expect(segments).toEqual([
      [1, 2, 3, 4],
      [5, 6],
    ]);
  });

  it('keeps a stream open across the window in one segment, up to its end', async () => {
    const stream = (seq: number, kind: RecordingEntry['kind']): RecordingEntry => {
      const e = entry(seq, 's', kind, kind === 'request' ? rpc('SubscribeToTask', { id: 't' }) : undefined);
      return kind === 'response' ? { ...e, http: { ...e.http, headers: { 'content-type': 'text/event-stream' } } } : e;
    };
    const entries = [stream(1, 'request'), stream(2, 'response'), get(3, 'g'), answer(4, 'g')];
    entries.push(stream(5, 'event'), stream(6, 'end'), get(7, 'h'), answer(8, 'h'));
    const segments: number[][] = [];
    for await (const s of segmentsOf(entries, 2)) segments.push(s.map((e) => e.seq));
    expect(segments).toEqual([
      [1, 2, 3, 4, 5, 6],
      [7, 8],
    ]);
  });

  it('refuses entries out of seq order, naming both seqs', async () => {
    const read = async (): Promise<void> => {
      for await (const _ of segmentsOf([get(2, 'a'), answer(1, 'a')])) void _;
    };
    await expect(read()).rejects.toThrow(/entry seq 1 \(xid a\) comes after seq 2/);
  });
});

describe('a replay in segments', () => {
  it('hands over each segment as it settles, and replays the entries the whole recording does', async () => {
    const file = join(ROOT, 'golden/poll-caller-pause-resume/recording.jsonl');
    const { header, entries } = await readRecording(file);
    const whole = await (async () => {
      const peer = await embeddedPeer(entries, header);
      try {
        return await driveRecording(entries, { peerUrl: peer.url });
      } finally {
        await peer.close();
      }
    })();
    const peer = await embeddedPeer(entries, header);
    const handed: RecordingEntry[][] = [];
    try {
      const drive = await driveRecordingStream(entries, {
        peerUrl: peer.url,
        segmentEntries: 2,
        onSegment: (replayed) => void handed.push([...replayed]),
      });
      expect(drive.drift).toEqual([]);
      expect(drive.replayed).toEqual([]);
      expect(drive.entries).toBe(entries.length);
    } finally {
      await peer.close();
    }
    expect(handed.length).toBe(entries.length / 2);
    expect(handed.flat()).toEqual(whole.replayed);
  });

  it.each(GOLDEN)(
    '%s replays to its golden receipts, byte for byte, in segments of two entries',
    async (name) => {
      const { key } = await loadKeyFile(join(ROOT, 'golden/test-key.json'));
      const outcome = await runRecording(join(ROOT, 'golden', name, 'recording.jsonl'), {
        openPeer: embeddedPeer,
        keyring: new Keyring([key]),
        strict: true,
        tool: TOOL_NAME,
        segmentEntries: 2,
      });
      expect({ outcome: outcome.outcome, drift: outcome.drift, receipts: outcome.receipts?.differences }).toEqual({
        outcome: 'match',
        drift: [],
        receipts: [],
      });
    },
    60_000,
  );
});

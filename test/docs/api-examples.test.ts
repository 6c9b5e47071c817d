/**
 * The examples of docs/api.md, run as they are written there (relative imports stand in for the
 * package name): a stock SDK client recorded in process, a receipt log verified and audited from
 * code, and a recording replayed against the reference peer.
 */
import { join } from 'node:path';
import { Role } from '@a2a-js/sdk';
import {
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
} from '@a2a-js/sdk/client';
import { expect, it } from 'vitest';
import {
  CounterIdSource,
  Keyring,
  ManualClock,
  RecordingWriter,
  createRecordingFetch,
  loadKeyFile,
  readRecording,
  runRecording,
  startPeer,
  verifyReceiptLog,
} from '../../src/index.js';
import { ExchangeRecorder, MemoryLineSink } from '../../src/public/intercept.js';
import { auditReceiptLog } from '../../src/public/receipts.js';
import { TOOL_NAME } from '../../src/public/replay.js';
import { ROOT } from '../helpers/cli.js';

it('records a stock SDK client in process through createRecordingFetch', async () => {
  const peer = await startPeer({ stepMs: 5 });
  try {
    const sink = new MemoryLineSink();
    const writer = new RecordingWriter({
      sink,
      clock: new ManualClock(0),
      ids: new CounterIdSource(1),
      target: peer.url,
    });
    const fetchImpl = createRecordingFetch(fetch, {
      recorder: new ExchangeRecorder({ writer, ids: new CounterIdSource(2) }),
    });
    const factory = new ClientFactory(
      ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
        transports: [new JsonRpcTransportFactory({ fetchImpl })],
        cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
      }),
    );
    const client = await factory.createFromUrl(peer.url);
    const task = await client.sendMessage({
      tenant: '',
      message: {
        messageId: 'm-1',
        contextId: '',
        taskId: '',
        role: Role.ROLE_USER,
        parts: [{ content: { $case: 'text', value: 'work:1' }, metadata: undefined, filename: '', mediaType: '' }],
        metadata: undefined,
        extensions: [],
        referenceTaskIds: [],
      },
      configuration: undefined,
      metadata: undefined,
    });
    await writer.close();

    const methods = sink
      .lines()
      .slice(1)
      .map((line) => JSON.parse(line) as { kind: string; body?: { method?: string } })
      .filter((entry) => entry.kind === 'request')
      .map((entry) => entry.body?.method ?? 'GET');
    expect(methods).toEqual(['GET', 'SendMessage']);
    expect(task).toHaveProperty('id');
  } finally {
    await peer.close();
  }
});

it('verifies and audits a receipt log from code', async () => {
  const { key } = await loadKeyFile(join(ROOT, 'golden/test-key.json'));
  const keyring = new Keyring([key]);
  const log = join(ROOT, 'golden/wrong-token-then-right/recording.receipts.jsonl');

  const result = await verifyReceiptLog(log, { keyring });
  expect(result.ok).toBe(true);

  const { rows } = await auditReceiptLog(log, { keyring });
  expect(rows).toHaveLength(1);
  expect(rows[0]).toMatchObject({ initiatedBy: 'PAUSE_INITIATOR_CLIENT', outcome: 'resumed' });
});

it('replays a recording against a fresh reference peer and finds no drift', async () => {
  const { key } = await loadKeyFile(join(ROOT, 'golden/test-key.json'));
  const file = join(ROOT, 'golden/wrong-token-then-right/recording.jsonl');
  const result = await runRecording(file, {
    openPeer: () => startPeer({ deterministic: true }),
    keyring: new Keyring([key]),
    tool: TOOL_NAME,
  });
  expect(result.outcome).toBe('match');
  expect((await readRecording(file)).entries.length).toBeGreaterThan(0);
});

/**
 * TLS at the recorder (`startRecorder` in this process, docs/design.md §5, §16), with a throwaway
 * certificate made at test time: a gRPC upstream at `https://HOST:PORT` (the stock SDK's gRPC
 * server over TLS) and an `https://` HTTP upstream are reached over TLS trusting the CA
 * `upstreamCa` names; a certificate the recorder does not trust is a gRPC UNAVAILABLE or an
 * HTTP 502 naming why, and an error entry in the recording, never an empty one. With `tlsCert`
 * and `tlsKey` the recorder serves TLS, gRPC (ALPN h2) and JSON-RPC (http/1.1) on one port, its
 * card naming it with https://; a key file is never echoed. A file that cannot serve is refused
 * naming its option; `record` (a process) gives that as a usage error naming the flags.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { type Server, createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ClientFactory, DefaultAgentCardResolver } from '@a2a-js/sdk/client';
import { GrpcTransportFactory } from '@a2a-js/sdk/client/grpc';
import { credentials, status } from '@grpc/grpc-js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RecorderOptionError, type RecorderOptions } from '../../src/public/record.js';
import type { RecordingEntry } from '../../src/recording/format.js';
import { readRecording } from '../../src/recording/recording-reader.js';
import { type TestCertificate, makeTestCertificate } from '../helpers/test-certificate.js';
import { trustingFetch } from '../helpers/trusting-fetch.js';
import { startRecordProcess } from '../helpers/cli-process.js';
import { type TestRecorder, startTestRecorder } from '../helpers/in-process.js';
import { sdkSession, startSdkEchoServer } from '../intercept/sdk-echo-server.js';

let dir = '';
let cert: TestCertificate;
const recorders: TestRecorder[] = [];
const closers: (() => Promise<void>)[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'record-tls-'));
  cert = makeTestCertificate(dir, 'upstream');
});

afterEach(async () => {
  for (const close of closers.splice(0)) await close();
  for (const r of recorders.splice(0)) await r.close();
  await rm(dir, { recursive: true, force: true });
});

/** A recorder without a key, with `options`. */
async function record(options: RecorderOptions): Promise<TestRecorder> {
  const proc = await startTestRecorder(options);
  recorders.push(proc);
  return proc;
}

/** Closes the recorder (every line written, as `record` exits 0) and reads its recording. */
async function entriesOf(proc: TestRecorder, out: string): Promise<RecordingEntry[]> {
  expect((await proc.close()).complete, proc.warnings.join('\n')).toBe(true);
  return (await readRecording(out)).entries;
}

/** The SDK echo server, its gRPC port serving TLS with the test certificate. */
async function tlsGrpcUpstream() {
  const upstream = await startSdkEchoServer({ grpc: true, grpcTls: { cert: cert.cert, key: cert.key } });
  closers.push(() => upstream.close());
  return upstream;
}

/** An https server with the test certificate: the card, and a JSON-RPC answer naming the method. */
async function httpsUpstream(): Promise<string> {
  const server: Server = createServer({ cert: cert.cert, key: cert.key }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      res.setHeader('content-type', 'application/json');
      if (req.method === 'GET') {
        res.end(JSON.stringify({ name: 'tls-agent', supportedInterfaces: [] }));
        return;
      }
      const call = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: number; method: string };
      res.end(JSON.stringify({ jsonrpc: '2.0', id: call.id, result: { echoed: call.method } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  closers.push(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const rpc = JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'GetTask', params: { id: 't' } });

describe('TLS to the upstream', () => {
  it('carries the stock SDK gRPC client to a gRPC upstream at https://HOST:PORT trusting upstreamCa', async () => {
    const upstream = await tlsGrpcUpstream();
    const trusting = new GrpcTransportFactory({ grpcChannelCredentials: credentials.createSsl(cert.cert) });
    const direct = await sdkSession(await new ClientFactory({ transports: [trusting] }).createFromUrl(upstream.url));
    const out = join(dir, 'grpc-tls.jsonl');
    const grpcUpstream = `https://${upstream.grpcUrl}`;
    const proc = await record({ upstream: upstream.url, out, grpcUpstream, upstreamCa: cert.certFile });
    const sdk = await new ClientFactory({ transports: [new GrpcTransportFactory()] }).createFromUrl(proc.url);
    expect(await sdkSession(sdk)).toEqual(direct);
    const entries = await entriesOf(proc, out);
    const calls = entries.filter((e) => e.grpc !== undefined && e.kind === 'request').map((e) => e.http.path);
    expect(calls).toHaveLength(5);
    expect(entries.filter((e) => e.kind === 'error')).toEqual([]);
    expect(entries.find((e) => e.kind === 'response' && e.grpc !== undefined)).toMatchObject({
      grpc: { status: 0 },
      body: { task: { status: { state: 'TASK_STATE_COMPLETED' } } },
    });
  });

  it('answers UNAVAILABLE naming the untrusted certificate and records the error', async () => {
    const upstream = await tlsGrpcUpstream();
    const out = join(dir, 'untrusted.jsonl');
    const proc = await record({ upstream: upstream.url, out, grpcUpstream: `https://${upstream.grpcUrl}` });
    const sdk = await new ClientFactory({ transports: [new GrpcTransportFactory()] }).createFromUrl(proc.url);
    const failed = await sdk.getTask({ tenant: '', id: 'any', historyLength: undefined }).then(
      () => undefined,
      (error: unknown) => error as { code?: number; message: string },
    );
    expect(failed?.message).toMatch(/certificate is not accepted \(self-signed certificate/);
    expect(failed?.message).toContain('--upstream-ca');
    const entries = (await entriesOf(proc, out)).filter((e) => e.grpc !== undefined);
    expect(entries).toMatchObject([
      { kind: 'request', http: { path: '/lf.a2a.v1.A2AService/GetTask' } },
      {
        kind: 'error',
        grpc: { status: status.UNAVAILABLE },
        error: expect.stringContaining(`gRPC upstream https://${upstream.grpcUrl}: TLS: its certificate`) as unknown,
      },
    ]);
    expect(proc.warnings.join('\n')).toContain('DEPTH_ZERO_SELF_SIGNED_CERT');
  });

  it('forwards to an https:// upstream trusting upstreamCa, its card in the header', async () => {
    const upstream = await httpsUpstream();
    const out = join(dir, 'https.jsonl');
    const proc = await record({ upstream, out, upstreamCa: cert.certFile });
    const res = await fetch(proc.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: rpc });
    expect(await res.json()).toEqual({ jsonrpc: '2.0', id: 3, result: { echoed: 'GetTask' } });
    expect(proc.warnings.join('\n')).not.toContain('no agent card');
    await proc.close();
    const recording = await readRecording(out);
    expect(recording.header.agentCard).toMatchObject({ name: 'tls-agent' });
    expect(recording.entries.map((e) => e.kind)).toEqual(['request', 'response']);
  });

  it('answers 502 naming the untrusted certificate of an https:// upstream, and records it', async () => {
    const upstream = await httpsUpstream();
    const out = join(dir, 'https-untrusted.jsonl');
    const proc = await record({ upstream, out });
    const res = await fetch(proc.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: rpc });
    expect(res.status).toBe(502);
    const answer = (await res.json()) as { error: { message: string } };
    expect(answer.error.message).toMatch(/TLS: its certificate is not accepted .*--upstream-ca/);
    const entries = await entriesOf(proc, out);
    expect(entries).toMatchObject([
      { kind: 'request' },
      { kind: 'error', error: expect.stringContaining('TLS: its certificate is not accepted') as unknown },
    ]);
  });

  it('refuses an upstreamCa file that holds no certificate, naming the option', async () => {
    const out = join(dir, 'bad-ca.jsonl');
    const refused = record({ upstream: 'http://127.0.0.1:1', out, upstreamCa: cert.keyFile });
    await expect(refused).rejects.toBeInstanceOf(RecorderOptionError);
    await expect(refused).rejects.toMatchObject({
      options: ['upstreamCa'],
      detail: expect.stringMatching(/holds no PEM certificate/) as unknown,
    });
  });
});

describe('the recorder serving TLS', () => {
  it('serves TLS, ALPN h2 and http/1.1 on one port: the SDK gRPC client and a JSON-RPC fetch recorded', async () => {
    const served = makeTestCertificate(dir, 'recorder');
    const upstream = await startSdkEchoServer({ grpc: true });
    closers.push(() => upstream.close());
    const out = join(dir, 'served.jsonl');
    const proc = await record({
      upstream: upstream.url,
      out,
      grpcUpstream: upstream.grpcUrl,
      tlsCert: served.certFile,
      tlsKey: served.keyFile,
    });
    expect(proc.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const fetchTrusting = trustingFetch(served.cert);

    // The card it serves names it with https:// for every http interface, its own HOST:PORT for gRPC.
    const card = (await (await fetchTrusting(`${proc.url}/.well-known/agent-card.json`)).json()) as {
      supportedInterfaces: { url: string; protocolBinding: string }[];
    };
    const own = new URL(proc.url).host;
    expect(card.supportedInterfaces).toMatchObject([
      { protocolBinding: 'JSONRPC', url: `${proc.url}/a2a/jsonrpc` },
      { protocolBinding: 'GRPC', url: own },
    ]);

    const sdk = await new ClientFactory({
      transports: [new GrpcTransportFactory({ grpcChannelCredentials: credentials.createSsl(served.cert) })],
      cardResolver: new DefaultAgentCardResolver({ fetchImpl: fetchTrusting }),
    }).createFromUrl(proc.url);
    const direct = await sdkSession(
      await new ClientFactory({ transports: [new GrpcTransportFactory()] }).createFromUrl(upstream.url),
    );
    expect(await sdkSession(sdk)).toEqual(direct);

    const answer = await fetchTrusting(`${proc.url}/a2a/jsonrpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'GetTask', params: { id: 'no-such-task' } }),
    });
    expect(((await answer.json()) as { error: { code: number } }).error.code).toBe(-32001);

    const entries = await entriesOf(proc, out);
    const grpcCalls = entries.filter((e) => e.grpc !== undefined && e.kind === 'request');
    expect(grpcCalls).toHaveLength(5);
    expect(entries).toContainEqual(
      expect.objectContaining({ kind: 'request', http: expect.objectContaining({ path: '/a2a/jsonrpc' }) as unknown }),
    );
    expect(entries.filter((e) => e.kind === 'error')).toEqual([]);
    expect(proc.warnings.join('\n')).not.toContain(served.key.toString('utf8').split('\n')[1] ?? 'no key line');
  });

  it('refuses a --tls-key that is not a key without echoing what the file holds', async () => {
    const served = makeTestCertificate(dir, 'recorder');
    const badKey = join(dir, 'bad.key.pem');
    await writeFile(badKey, '-----BEGIN PRIVATE KEY-----\nSECRETKEYMATERIAL0123456789\n-----END PRIVATE KEY-----\n');
    const out = join(dir, 'bad-key.jsonl');
    // `record` itself: a usage error (exit 2) naming both flags, in its words.
    const failed = startRecordProcess(
      ['--upstream', 'http://127.0.0.1:1', '--out', out, '--tls-cert', served.certFile, '--tls-key', badKey],
      { A2A_REPLAY_KEY_FILE: '' },
    );
    const error = await failed.then(
      () => new Error('expected the recorder to refuse the key'),
      (e: unknown) => e as Error,
    );
    expect(error.message).toMatch(/exited with 2: .*--tls-cert, --tls-key: .*bad\.key\.pem/);
    expect(error.message).not.toContain('SECRETKEYMATERIAL');
  });

  it('asks for tlsCert and tlsKey together', async () => {
    const served = makeTestCertificate(dir, 'recorder');
    const out = join(dir, 'half.jsonl');
    const refused = record({ upstream: 'http://127.0.0.1:1', out, tlsKey: served.keyFile });
    await expect(refused).rejects.toBeInstanceOf(RecorderOptionError);
    await expect(refused).rejects.toMatchObject({
      options: ['tlsKey'],
      detail: expect.stringMatching(/give `tlsCert` and `tlsKey` together/) as unknown,
    });
  });
});

/**
 * The reference peer loads gRPC when the first h2c connection comes, not when it starts
 * (docs/design.md §2, "Start-up"): a peer reached only over JSON-RPC never pays for grpc-js and
 * the generated codecs, and the first gRPC call, sent at once on a fresh connection while the
 * adapter loads, is answered whole. A fresh node process, so that nothing else loaded them first.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';

const SCRIPT = `
import { createRequire } from 'node:module';
import { connect } from 'node:http2';
import { startPeer } from ${JSON.stringify(pathToFileURL(join(ROOT, 'dist/src/public/peer.js')).href)};
const loaded = () => Object.keys(createRequire(import.meta.url).cache).some((f) => f.includes('@grpc/grpc-js'));
const peer = await startPeer({ deterministic: true });
const said = [];
const card = await fetch(peer.url + '/.well-known/agent-card.json');
said.push('card ' + card.status + ', grpc loaded: ' + loaded());
// GetTask of a task that does not exist, framed by hand: a 5-byte gRPC prefix and an empty message.
const session = connect('http://' + peer.grpcUrl);
const stream = session.request({
  ':method': 'POST',
  ':path': '/lf.a2a.v1.A2AService/GetTask',
  'content-type': 'application/grpc',
  te: 'trailers',
  'a2a-version': '1.0',
});
stream.end(Buffer.from([0, 0, 0, 0, 0]));
const status = await new Promise((resolve, reject) => {
  const said = (h) => h['grpc-status'] + ' ' + decodeURIComponent(h['grpc-message'] ?? '');
  stream.on('trailers', (t) => resolve(said(t)));
  stream.on('response', (h) => { if (h['grpc-status'] !== undefined) resolve(said(h)); });
  stream.on('error', reject);
  stream.resume();
});
session.close();
said.push('grpc-status ' + status + ', grpc loaded: ' + loaded());
await peer.close();
console.log(said.join('\\n'));
`;

it('loads gRPC at the first h2c connection, and answers the call that opened it', () => {
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', SCRIPT], { encoding: 'utf8', timeout: 60_000 });
  expect(run.stderr).toBe('');
  expect(run.stdout.trim().split('\n')).toEqual([
    'card 200, grpc loaded: false',
    // INVALID_ARGUMENT (no task id) or NOT_FOUND: the peer's own answer, read through grpc-js.
    expect.stringMatching(/^grpc-status (3|5) .+, grpc loaded: true$/),
  ]);
});

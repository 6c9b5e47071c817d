/**
 * The A2A v0.3 dialect read into the observer's one vocabulary (docs/design.md §14.10): v0.3
 * JSON-RPC polls, cancels and resubscriptions, v0.3 ProtoJSON (HTTP+JSON) answers, file parts, and
 * requests that are no dialect at all, each giving the facts or the finding its v1.0 twin gives.
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/canonical/canonical-json.js';
import { hashCanonical } from '../../src/canonical/canonical-json.js';
import { readObservedRequest, recordedVersion } from '../../src/observe/dialect-view.js';
import type { ObserverOutput } from '../../src/observe/suspension.js';
import { v03GrpcParams, v03Result } from '../../src/observe/v03-dialect.js';
import type { EntryGrpc, RecordingEntry } from '../../src/recording/format.js';
import { CTX, Entries, TASK, findings, observeAll } from './entries.js';

const interruptions = (out: readonly ObserverOutput[]) =>
  out.flatMap((o) => (o.type === 'interruption' ? [o.draft] : []));
const continuations = (out: readonly ObserverOutput[]) =>
  out.flatMap((o) => (o.type === 'continuation' ? [o.draft] : []));

const v03Task = (state: string, message?: JsonObject): JsonObject => ({
  kind: 'task',
  id: TASK,
  contextId: CTX,
  status: { state, timestamp: '2026-04-30T12:35:00.000Z', ...(message === undefined ? {} : { message }) },
});

const agentSays = (parts: JsonObject[]): JsonObject => ({ kind: 'message', messageId: 'p', role: 'agent', parts });

/** A REST request entry: verb, path under a base, optional body, no A2A-Version header. */
function rest(e: Entries, xid: string, verb: string, path: string, body?: JsonObject): RecordingEntry {
  return e.raw({ xid, kind: 'request', http: { method: verb, path }, ...(body === undefined ? {} : { body }) });
}

describe('the v0.3 JSON-RPC reader', () => {
  it('reads an input-required seen by tasks/get and continued by message/send with a file part', () => {
    const e = new Entries();
    e.request('g1', 'tasks/get', { id: TASK });
    const file = { kind: 'file', file: { uri: 'https://example.com/contract.pdf', mimeType: 'application/pdf' } };
    e.result('g1', v03Task('input-required', agentSays([{ kind: 'text', text: 'Sign this?' }, file])));
    const approval = { kind: 'data', data: { approved: true } };
    e.request(
      's1',
      'message/send',
      { message: { kind: 'message', messageId: 'a', role: 'user', taskId: TASK, contextId: CTX, parts: [approval] } },
      { principal: 'jwt:sub=alice' },
    );
    e.result('s1', v03Task('completed'));
    const out = observeAll(e.list);
    expect(findings(out)).toEqual([]);
    expect(interruptions(out)).toMatchObject([
      {
        taskId: TASK,
        state: 'TASK_STATE_INPUT_REQUIRED',
        promptHash: hashCanonical([
          { text: 'Sign this?' },
          { url: 'https://example.com/contract.pdf', mediaType: 'application/pdf' },
        ]),
      },
    ]);
    expect(continuations(out)).toMatchObject([
      { taskId: TASK, principal: 'jwt:sub=alice', inputHash: hashCanonical([{ data: { approved: true } }]) },
    ]);
  });

  it("reads the pause extension's v0.3 state paused as TASK_STATE_PAUSED, as the reference peer names it", () => {
    const task = v03Result('GetTask', v03Task('paused'), 'rpc') as { status: { state: string } };
    expect(task.status.state).toBe('TASK_STATE_PAUSED');
  });

  it('reads a tasks/pause and tasks/resume answered in kebab states as a pause and its resumption', () => {
    const e = new Entries();
    e.request('p1', 'tasks/pause', { taskId: TASK, mode: 'interrupt_immediate' }, { principal: 'jwt:sub=bob' });
    const pause = {
      initiatedBy: 'PAUSE_INITIATOR_CLIENT',
      pausedAt: '2026-04-30T12:35:00.000Z',
      resumable: true,
      resumeMode: 'RESUME_MODE_CLIENT_MESSAGE',
      resumeToken: 'rt-1',
    };
    e.result('p1', { taskId: TASK, state: 'paused', pause });
    e.request('r1', 'tasks/resume', { taskId: TASK, resumeToken: 'rt-1' }, { principal: 'jwt:sub=bob' });
    e.result('r1', {
      taskId: TASK,
      state: 'working',
      previousState: 'paused',
      cause: 'explicit_resume',
      resumedAt: '2026-04-30T12:36:00.000Z',
    });
    const out = observeAll(e.list);
    expect(findings(out)).toEqual([]);
    expect(out.map((o) => o.type).filter((t) => t === 'suspension' || t === 'resumption')).toEqual([
      'suspension',
      'resumption',
    ]);
  });

  it('reads an auth-required stream of tasks/resubscribe ended by a tasks/cancel', () => {
    const e = new Entries();
    e.request('r1', 'tasks/resubscribe', { id: TASK });
    e.sseHead('r1');
    e.event('r1', {
      kind: 'status-update',
      taskId: TASK,
      contextId: CTX,
      final: true,
      status: { state: 'auth-required' },
    });
    e.end('r1');
    e.request('c1', 'tasks/cancel', { id: TASK }, { principal: 'jwt:sub=bob' });
    e.result('c1', v03Task('canceled'));
    const out = observeAll(e.list);
    expect(findings(out)).toEqual([]);
    expect(interruptions(out)).toMatchObject([{ taskId: TASK, state: 'TASK_STATE_AUTH_REQUIRED', promptHash: null }]);
    expect(continuations(out)).toMatchObject([{ taskId: TASK, cause: 'canceled', principal: 'jwt:sub=bob' }]);
  });
});

/** A gRPC entry of the v0.3 service (package a2a.v1): `kind`, its v0.3 `method`, its ProtoJSON body. */
function grpcV03(
  e: Entries,
  xid: string,
  kind: RecordingEntry['kind'],
  method: string,
  body?: JsonObject,
  grpc: EntryGrpc = {},
) {
  return e.raw({
    xid,
    kind,
    http: { method: 'POST', path: `/a2a.v1.A2AService/${method}`, ...(kind === 'request' ? {} : { status: 200 }) },
    ...(body === undefined ? {} : { body }),
    grpc,
  });
}

describe('the v0.3 gRPC reader', () => {
  it('reads a TaskSubscription stream ending at input-required and a SendMessage continuation with content', () => {
    const e = new Entries();
    grpcV03(e, 'r1', 'request', 'TaskSubscription', { name: `tasks/${TASK}` });
    const confirm = { request: { callId: 'call-7', name: 'deploy' }, status: 'awaiting_approval' };
    const working = {
      state: 'TASK_STATE_WORKING',
      message: { messageId: 'w', role: 'ROLE_AGENT', content: [{ data: { data: confirm } }] },
    };
    grpcV03(e, 'r1', 'event', 'TaskSubscription', { statusUpdate: { taskId: TASK, contextId: CTX, status: working } });
    const asked = { state: 'TASK_STATE_INPUT_REQUIRED' };
    grpcV03(e, 'r1', 'event', 'TaskSubscription', {
      statusUpdate: { taskId: TASK, contextId: CTX, status: asked, final: true },
    });
    grpcV03(e, 'r1', 'end', 'TaskSubscription', undefined, { status: 0 });
    const approval = { data: { data: { callId: 'call-7', outcome: 'approved' } } };
    const send = { message: { messageId: 'a', role: 'ROLE_USER', taskId: TASK, content: [approval] } };
    e.raw({
      xid: 's1',
      kind: 'request',
      http: { method: 'POST', path: '/a2a.v1.A2AService/SendMessage' },
      body: send,
      grpc: {},
      principal: 'jwt:sub=alice',
    });
    grpcV03(
      e,
      's1',
      'response',
      'SendMessage',
      { task: { id: TASK, contextId: CTX, status: { state: 'TASK_STATE_COMPLETED' } } },
      {
        status: 0,
      },
    );
    const out = observeAll(e.list);
    expect(findings(out)).toEqual([]);
    expect(interruptions(out)).toMatchObject([
      {
        taskId: TASK,
        state: 'TASK_STATE_INPUT_REQUIRED',
        binding: 'GRPC',
        promptHash: hashCanonical([{ data: confirm }]),
      },
    ]);
    expect(continuations(out)).toMatchObject([
      {
        taskId: TASK,
        cause: 'message',
        principal: 'jwt:sub=alice',
        inputHash: hashCanonical([{ data: { callId: 'call-7', outcome: 'approved' } }]),
      },
    ]);
  });

  it('reads GetTask by resource name and a CancelTask answered TASK_STATE_CANCELLED', () => {
    const e = new Entries();
    grpcV03(e, 'g1', 'request', 'GetTask', { name: `tasks/${TASK}` });
    const status = { state: 'TASK_STATE_AUTH_REQUIRED' };
    grpcV03(e, 'g1', 'response', 'GetTask', { id: TASK, contextId: CTX, status }, { status: 0 });
    e.raw({
      xid: 'c1',
      kind: 'request',
      http: { method: 'POST', path: '/a2a.v1.A2AService/CancelTask' },
      body: { name: `tasks/${TASK}` },
      grpc: {},
      principal: 'jwt:sub=bob',
    });
    const canceled = { id: TASK, contextId: CTX, status: { state: 'TASK_STATE_CANCELLED' } };
    grpcV03(e, 'c1', 'response', 'CancelTask', canceled, { status: 0 });
    const out = observeAll(e.list);
    expect(findings(out)).toEqual([]);
    expect(interruptions(out)).toMatchObject([{ taskId: TASK, state: 'TASK_STATE_AUTH_REQUIRED', binding: 'GRPC' }]);
    expect(continuations(out)).toMatchObject([{ taskId: TASK, cause: 'canceled', principal: 'jwt:sub=bob' }]);
  });

  it('reads push config requests by their resource names', () => {
    expect(
      v03GrpcParams('GetTaskPushNotificationConfig', { name: `tasks/${TASK}/pushNotificationConfigs/c1` }),
    ).toEqual({ taskId: TASK, id: 'c1' });
    expect(v03GrpcParams('ListTaskPushNotificationConfigs', { parent: `tasks/${TASK}` })).toEqual({ taskId: TASK });
    expect(
      v03GrpcParams('CreateTaskPushNotificationConfig', {
        parent: `tasks/${TASK}`,
        configId: 'c1',
        config: { name: `tasks/${TASK}/pushNotificationConfigs/c1`, pushNotificationConfig: { url: 'https://h/x' } },
      }),
    ).toEqual({ taskId: TASK, id: 'c1', url: 'https://h/x' });
    // Decoded from the wire, a configuration without `blocking` (proto3's false) does not block.
    const message = { messageId: 'm', role: 'ROLE_USER', content: [{ text: 'go' }] };
    expect(v03GrpcParams('SendMessage', { message, configuration: { acceptedOutputModes: [] } })).toMatchObject({
      message: { parts: [{ text: 'go' }] },
      configuration: { returnImmediately: true },
    });
    expect(v03GrpcParams('SendMessage', { message })).not.toHaveProperty('configuration');
    // A name that is no task resource is left for the v1.0 parser to name.
    expect(v03GrpcParams('GetTask', { name: 'jobs/1' })).toEqual({ name: 'jobs/1' });
  });
});

describe('the v0.3 HTTP+JSON reader', () => {
  it('reads ProtoJSON of the v0.3 proto under any base path: content, status.update, a DataPart in data.data', () => {
    const e = new Entries();
    const message = { messageId: 'm', role: 'ROLE_USER', content: [{ text: 'deploy' }] };
    rest(e, 's1', 'POST', '/agents/x/v1/message:send', { message });
    const prompt = { messageId: 'p', role: 'ROLE_AGENT', content: [{ data: { data: { question: 'deploy?' } } }] };
    e.raw({
      xid: 's1',
      kind: 'response',
      http: { method: 'POST', path: '/agents/x/v1/message:send', status: 201 },
      body: { task: { id: TASK, contextId: CTX, status: { state: 'TASK_STATE_INPUT_REQUIRED', update: prompt } } },
    });
    const out = observeAll(e.list);
    // Nobody answers: the only finding is the interruption lost at the end.
    expect(findings(out).map((f) => f.code)).toEqual(['lost-interruption']);
    expect(interruptions(out)).toMatchObject([
      { taskId: TASK, binding: 'HTTP+JSON', promptHash: hashCanonical([{ data: { question: 'deploy?' } }]) },
    ]);
  });

  it('reads the v0.3 error body {code, message}: a task gone while interrupted is lost_after_restart', () => {
    const e = new Entries();
    rest(e, 'g1', 'GET', `/v1/tasks/${TASK}`);
    e.raw({
      xid: 'g1',
      kind: 'response',
      http: { method: 'GET', path: `/v1/tasks/${TASK}`, status: 200 },
      body: { id: TASK, contextId: CTX, status: { state: 'TASK_STATE_INPUT_REQUIRED' } },
    });
    rest(e, 'g2', 'GET', `/v1/tasks/${TASK}`);
    const gone = e.raw({
      xid: 'g2',
      kind: 'response',
      http: { method: 'GET', path: `/v1/tasks/${TASK}`, status: 404 },
      body: { code: -32001, message: 'Task not found' },
    });
    const out = observeAll(e.list);
    expect(out.flatMap((o) => (o.type === 'interruption-lost' ? [{ reason: o.reason, seq: o.seq }] : []))).toEqual([
      { reason: 'lost_after_restart', seq: gone.seq },
    ]);
  });

  it('reads a stream event named msg and a TASK_STATE_CANCELLED task', () => {
    expect(
      v03Result('SendStreamingMessage', { msg: { messageId: 'm', role: 'ROLE_AGENT', content: [] } }, 'proto'),
    ).toEqual({ message: { messageId: 'm', role: 'ROLE_AGENT', parts: [] } });
    expect(v03Result('GetTask', { id: TASK, status: { state: 'TASK_STATE_CANCELLED' } }, 'proto')).toEqual({
      id: TASK,
      status: { state: 'TASK_STATE_CANCELED' },
    });
  });
});

describe('deciding the dialect', () => {
  const post = (body: JsonObject, headers: Record<string, string> = {}, path = '/'): RecordingEntry =>
    new Entries().raw({ xid: 'x', kind: 'request', http: { method: 'POST', path, headers }, body });

  it('takes the JSON-RPC method name, the A2A-Version header or query parameter, and the gRPC package', () => {
    const rpc = (method: string): JsonObject => ({ jsonrpc: '2.0', id: 1, method, params: { id: TASK } });
    expect(readObservedRequest(post(rpc('tasks/get')))).toMatchObject({ method: 'GetTask', version: '0.3' });
    expect(readObservedRequest(post(rpc('GetTask'), { 'a2a-version': '1.0' }))).toMatchObject({ version: '1.0' });
    expect(recordedVersion(post(rpc('GetTask'), { 'a2a-version': '1.0' }))).toBeUndefined();
    expect(readObservedRequest(post(rpc('GetTask'), {}, '/?A2A-Version=3.1'))).toMatchObject({
      kind: 'not-understood',
      version: '3.1',
    });
    expect(readObservedRequest(post(rpc('tasks/list')))).toMatchObject({
      kind: 'not-understood',
      why: 'JSON-RPC method "tasks/list" is no method of A2A 0.3 or 1.0',
    });
    const grpc = new Entries().raw({
      xid: 'g',
      kind: 'request',
      http: { method: 'POST', path: '/a2a.v1.A2AService/GetTask' },
      body: { name: `tasks/${TASK}` },
      grpc: {},
    });
    expect(readObservedRequest(grpc)).toMatchObject({
      kind: 'call',
      binding: 'GRPC',
      method: 'GetTask',
      params: { id: TASK },
      version: '0.3',
    });
    expect(recordedVersion(grpc)).toBe('0.3');
    const v10 = new Entries().raw({
      xid: 'h',
      kind: 'request',
      http: { method: 'POST', path: '/lf.a2a.v1.A2AService/GetTask' },
      body: { id: TASK },
      grpc: {},
    });
    expect(readObservedRequest(v10)).toMatchObject({ method: 'GetTask', version: '1.0' });
  });

  it('reads an HTTP+JSON request that names no version by its body, and as 0.3 without one', () => {
    const send = (message: JsonObject): RecordingEntry => post({ message }, {}, '/v1/message:send');
    expect(readObservedRequest(send({ messageId: 'm', role: 'ROLE_USER', parts: [] }))).toMatchObject({
      version: '1.0',
    });
    expect(readObservedRequest(send({ messageId: 'm', role: 'ROLE_USER', content: [] }))).toMatchObject({
      version: '0.3',
      params: { message: { parts: [] } },
    });
    const get = new Entries().raw({ xid: 'x', kind: 'request', http: { method: 'GET', path: `/v1/tasks/${TASK}` } });
    expect(readObservedRequest(get)).toMatchObject({ method: 'GetTask', version: '0.3' });
  });
});

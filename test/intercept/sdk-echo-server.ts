/**
 * A stock `@a2a-js/sdk` server (DefaultRequestHandler + express) with a small deterministic
 * executor: fixed timestamps, so two runs differ only in the ids the SDK mints. With `rest`, it
 * also serves the SDK's own HTTP+JSON binding (`restHandler`) at `/a2a/rest` and lists it; with
 * `grpc`, the SDK's gRPC service (`grpcService`) on a port of its own, listed as a GRPC interface;
 * with `grpcTls` too, that port serves TLS with the certificate and key given.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { A2A_PROTOCOL_VERSION, AGENT_CARD_PATH, type AgentCard, type Message, Role, TaskState } from '@a2a-js/sdk';
import {
  AgentEvent,
  type AgentExecutor,
  DefaultRequestHandler,
  type ExecutionEventBus,
  InMemoryTaskStore,
  type RequestContext,
} from '@a2a-js/sdk/server';
import { UserBuilder, agentCardHandler, jsonRpcHandler, restHandler } from '@a2a-js/sdk/server/express';
import type { Client } from '@a2a-js/sdk/client';
import { A2AService, grpcService } from '@a2a-js/sdk/server/grpc';
import { Server as GrpcServer, ServerCredentials } from '@grpc/grpc-js';
import express from 'express';

const AT = '2026-01-01T00:00:00.000Z';

export const textPart = (text: string) => ({
  content: { $case: 'text' as const, value: text },
  metadata: undefined,
  filename: '',
  mediaType: 'text/plain',
});

/** A user message of one text part, with every other field the SDK types ask for left empty. */
export const userTextMessage = (text: string, messageId: string): Message => ({
  messageId,
  contextId: '',
  taskId: '',
  role: Role.ROLE_USER,
  parts: [textPart(text)],
  metadata: undefined,
  extensions: [],
  referenceTaskIds: [],
});

class EchoExecutor implements AgentExecutor {
  async execute(ctx: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const { taskId, contextId } = ctx;
    const first = ctx.userMessage.parts[0]?.content;
    const text = first?.$case === 'text' ? first.value : '';
    bus.publish(
      AgentEvent.task(
        ctx.task ?? {
          id: taskId,
          contextId,
          artifacts: [],
          history: [ctx.userMessage],
          metadata: undefined,
          status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: AT },
        },
      ),
    );
    bus.publish(
      AgentEvent.statusUpdate({
        taskId,
        contextId,
        metadata: undefined,
        status: { state: TaskState.TASK_STATE_WORKING, message: undefined, timestamp: AT },
      }),
    );
    for (let i = 0; i < 3; i++) {
      bus.publish(
        AgentEvent.artifactUpdate({
          taskId,
          contextId,
          append: i > 0,
          lastChunk: i === 2,
          metadata: undefined,
          artifact: {
            artifactId: 'a1',
            name: 'echo',
            description: '',
            parts: [textPart(`echo ${i}: ${text}`)],
            metadata: undefined,
            extensions: [],
          },
        }),
      );
    }
    bus.publish(
      AgentEvent.statusUpdate({
        taskId,
        contextId,
        metadata: undefined,
        status: { state: TaskState.TASK_STATE_COMPLETED, message: undefined, timestamp: AT },
      }),
    );
  }

  async cancelTask(): Promise<void> {}
}

function serverCredentials(tls: { cert: Buffer; key: Buffer } | undefined): ServerCredentials {
  if (tls === undefined) return ServerCredentials.createInsecure();
  return ServerCredentials.createSsl(null, [{ cert_chain: tls.cert, private_key: tls.key }], false);
}

export async function startSdkEchoServer(
  options: { rest?: boolean; grpc?: boolean; grpcTls?: { cert: Buffer; key: Buffer } } = {},
): Promise<{ url: string; grpcUrl: string; close(): Promise<void> }> {
  const app = express();
  const server: Server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const grpc = options.grpc ? new GrpcServer() : undefined;
  const grpcPort = grpc
    ? await new Promise<number>((resolve, reject) =>
        grpc.bindAsync('127.0.0.1:0', serverCredentials(options.grpcTls), (error, port) =>
          error ? reject(error) : resolve(port),
        ),
      )
    : 0;
  const grpcUrl = `127.0.0.1:${grpcPort}`;
  const card: AgentCard = {
    name: 'Echo',
    description: 'echo agent',
    version: '0.0.1',
    supportedInterfaces: [
      { url: `${url}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: A2A_PROTOCOL_VERSION },
      ...(options.rest
        ? [{ url: `${url}/a2a/rest`, protocolBinding: 'HTTP+JSON', tenant: '', protocolVersion: A2A_PROTOCOL_VERSION }]
        : []),
      ...(grpc ? [{ url: grpcUrl, protocolBinding: 'GRPC', tenant: '', protocolVersion: A2A_PROTOCOL_VERSION }] : []),
    ],
    provider: undefined,
    capabilities: { streaming: true, pushNotifications: false, extensions: [], extendedAgentCard: false },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [
      {
        id: 'echo',
        name: 'echo',
        description: 'echo',
        tags: ['echo'],
        examples: [],
        inputModes: [],
        outputModes: [],
        securityRequirements: [],
      },
    ],
    signatures: [],
  };
  const requestHandler = new DefaultRequestHandler(card, new InMemoryTaskStore(), new EchoExecutor());
  app.use(`/${AGENT_CARD_PATH}`, agentCardHandler({ agentCardProvider: requestHandler }));
  app.use('/a2a/jsonrpc', jsonRpcHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication }));
  if (options.rest) app.use('/a2a/rest', restHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication }));
  grpc?.addService(A2AService, grpcService({ requestHandler, userBuilder: UserBuilder.noAuthentication }));
  return {
    url,
    grpcUrl,
    close: async () => {
      grpc?.forceShutdown();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A session exercising unary calls, a stream and two error answers; ids replaced by their order. */
export async function sdkSession(client: Client): Promise<unknown> {
  const out: unknown[] = [];
  const sent = await client.sendMessage({
    tenant: '',
    message: userTextMessage('hello', 'm-1'),
    configuration: undefined,
    metadata: undefined,
  });
  out.push(sent);
  const id = (sent as { id: string }).id;
  out.push(await client.getTask({ tenant: '', id, historyLength: undefined }));
  const events: unknown[] = [];
  for await (const event of client.sendMessageStream({
    tenant: '',
    message: userTextMessage('stream', 'm-2'),
    configuration: undefined,
    metadata: undefined,
  })) {
    events.push(event);
  }
  out.push(events);
  out.push(
    await client
      .getTask({ tenant: '', id: 'no-such-task', historyLength: undefined })
      .catch((e: Error) => `${e.name}: ${e.message}`),
  );
  out.push(
    await client.cancelTask({ tenant: '', id, metadata: undefined }).catch((e: Error) => `${e.name}: ${e.message}`),
  );
  const ids = new Map<string, string>();
  return JSON.parse(
    JSON.stringify(out).replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, (uuid) => {
      if (!ids.has(uuid)) ids.set(uuid, `id-${ids.size + 1}`);
      return ids.get(uuid) as string;
    }),
  ) as unknown;
}

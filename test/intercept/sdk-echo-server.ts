/**
 * A stock `@a2a-js/sdk` server (DefaultRequestHandler + express) with a small deterministic
 * executor: fixed timestamps, so two runs differ only in the ids the SDK mints. With `rest`, it
 * also serves the SDK's own HTTP+JSON binding (`restHandler`) at `/a2a/rest` and lists it.
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

export async function startSdkEchoServer(
  options: { rest?: boolean } = {},
): Promise<{ url: string; close(): Promise<void> }> {
  const app = express();
  const server: Server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const card: AgentCard = {
    name: 'Echo',
    description: 'echo agent',
    version: '0.0.1',
    supportedInterfaces: [
      { url: `${url}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: A2A_PROTOCOL_VERSION },
      ...(options.rest
        ? [{ url: `${url}/a2a/rest`, protocolBinding: 'HTTP+JSON', tenant: '', protocolVersion: A2A_PROTOCOL_VERSION }]
        : []),
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
  return {
    url,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

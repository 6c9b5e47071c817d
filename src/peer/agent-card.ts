/**
 * @module peer/agent-card
 * The reference peer's agent card (A2A v1.0 §8, served at `/.well-known/agent-card.json`):
 * one JSON-RPC interface at the bound URL, streaming, and the pause extension declared both as
 * the RFC's flat capability fields and in `capabilities.extensions` (DESIGN §3). A
 * `--legacy-pause` peer advertises pausing the Harn way instead (`capabilities._meta.harn.pause`).
 */
import type { JsonObject } from '../canonical/canonical-json.js';
import { A2A_PROTOCOL_VERSION, type AgentCard, PAUSE_EXTENSION_URI, RESUME_CAUSES } from '../protocol/types.js';
import { VERSION } from '../version.js';

export function buildAgentCard(url: string, options: { legacy: boolean }): AgentCard & JsonObject {
  const base = {
    name: 'a2a-replay reference peer',
    description:
      'A scripted A2A v1.0 agent implementing the paused-state RFC (PauseTask, ResumeTask, AwaitTaskResumption). ' +
      'The first text part of a message is a script: work:N, await:EVENT[:MINUTES[:fail|resume]], sleep-until:TIME, input, fail.',
    supportedInterfaces: [{ url, protocolBinding: 'JSONRPC', protocolVersion: A2A_PROTOCOL_VERSION }],
    version: VERSION,
    defaultInputModes: ['text/plain', 'application/json'],
    defaultOutputModes: ['text/plain'],
    skills: [
      {
        id: 'scripted',
        name: 'Scripted work',
        description: 'Runs the directives of the message text; any other text means work:3.',
        tags: ['test', 'pause', 'resume'],
        examples: ['work:2 await:ci.done:30:fail work:1', 'sleep-until:2026-01-01T09:00:00Z work:1', 'work:1 input work:1'],
      },
    ],
  };
  if (options.legacy) {
    return {
      ...base,
      capabilities: { streaming: true, pushNotifications: false, _meta: { harn: { pause: true } } },
    } as unknown as AgentCard & JsonObject;
  }
  return {
    ...base,
    capabilities: {
      streaming: true,
      pushNotifications: false,
      supportsPause: true,
      supportsAwaitResumption: true,
      resumeCauses: [...RESUME_CAUSES],
      extensions: [
        {
          uri: PAUSE_EXTENSION_URI,
          description: 'TASK_STATE_PAUSED with TaskStatus.pause, and the PauseTask / ResumeTask / AwaitTaskResumption methods',
          required: false,
          params: {
            methods: ['PauseTask', 'ResumeTask', 'AwaitTaskResumption'],
            pauseModes: ['interrupt_immediate', 'finish_step', 'wait_for_completion'],
            resumeCauses: [...RESUME_CAUSES],
          },
        },
      ],
    },
  } as AgentCard & JsonObject;
}

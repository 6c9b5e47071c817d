/**
 * @module peer/agent-card
 * The reference peer's agent card (A2A v1.0 §8, served at `/.well-known/agent-card.json`):
 * three interfaces (JSON-RPC at the bound URL, HTTP+JSON at its `/rest`, docs/design.md §15, and gRPC
 * on the same port, §16),
 * streaming, and the pause extension declared both as the RFC's flat capability fields and in
 * `capabilities.extensions` (docs/design.md §3). A `--legacy-pause` peer advertises pausing the
 * Harn way instead (`capabilities._meta.harn.pause`).
 *
 * Either way the card also declares the reference-peer extension, whose params are the settings
 * that shape a deterministic session (mode, seed, step length, legacy reporting, a bypassed gate's
 * delay when the peer is that variant). A recording that
 * captured this card carries them, so `a2a-replay run` starts its embedded peer the same way.
 */
import type { JsonObject } from '../canonical/canonical-json.js';
import { A2A_PROTOCOL_VERSION, type AgentCard, PAUSE_EXTENSION_URI, RESUME_CAUSES } from '../protocol/types.js';
import { isRecord } from '../protocol/read.js';
import { VERSION } from '../version.js';

/** Declares the settings a replay needs to start an identical reference peer. */
export const REFERENCE_PEER_EXTENSION_URI = 'https://a2a-replay.dev/extensions/reference-peer/v1';

/** What a replay must match to reproduce a session of the reference peer. */
export interface ReferencePeerSettings {
  deterministic: boolean;
  seed: number;
  stepMs: number;
  legacyPause: boolean;
  /**
   * The `peer --bypass-ask-after` variant's clock ms (docs/design.md §4); absent on a peer that
   * walks past no gate, so the card of every other peer is what it was.
   */
  bypassAskAfterMs?: number;
}

function settingsExtension(settings: ReferencePeerSettings): JsonObject {
  return {
    uri: REFERENCE_PEER_EXTENSION_URI,
    description: 'Settings of this a2a-replay reference peer, so a replay can start an identical one',
    required: false,
    params: { ...settings },
  };
}

/** The reference-peer settings declared by an agent card, if it is one of ours. */
export function referencePeerSettingsOf(card: unknown): ReferencePeerSettings | undefined {
  if (!isRecord(card) || !isRecord(card.capabilities) || !Array.isArray(card.capabilities.extensions)) return undefined;
  for (const ext of card.capabilities.extensions as unknown[]) {
    if (!isRecord(ext) || ext.uri !== REFERENCE_PEER_EXTENSION_URI || !isRecord(ext.params)) continue;
    const { deterministic, seed, stepMs, legacyPause, bypassAskAfterMs } = ext.params;
    const bypass =
      bypassAskAfterMs === undefined || (Number.isSafeInteger(bypassAskAfterMs) && (bypassAskAfterMs as number) > 0);
    if (
      typeof deterministic === 'boolean' &&
      typeof legacyPause === 'boolean' &&
      Number.isSafeInteger(seed) &&
      Number.isSafeInteger(stepMs) &&
      (stepMs as number) > 0 &&
      bypass
    ) {
      return {
        deterministic,
        seed: seed as number,
        stepMs: stepMs as number,
        legacyPause,
        ...(bypassAskAfterMs === undefined ? {} : { bypassAskAfterMs: bypassAskAfterMs as number }),
      };
    }
  }
  return undefined;
}

/** The peer's interface URLs, one per binding. */
export interface PeerInterfaces {
  jsonRpc: string;
  rest: string;
  /** A grpc-js target, `HOST:PORT`. */
  grpc: string;
}

export function buildAgentCard(urls: PeerInterfaces, settings: ReferencePeerSettings): AgentCard & JsonObject {
  const base = {
    name: 'a2a-replay reference peer',
    description:
      'A scripted A2A v1.0 agent implementing the paused-state RFC (PauseTask, ResumeTask, AwaitTaskResumption). ' +
      'The first text part of a message is a script: work:N, await:EVENT[:MINUTES[:fail|resume]], ' +
      'sleep-until:TIME, input, auth, fail.',
    supportedInterfaces: [
      { url: urls.jsonRpc, protocolBinding: 'JSONRPC', protocolVersion: A2A_PROTOCOL_VERSION },
      { url: urls.rest, protocolBinding: 'HTTP+JSON', protocolVersion: A2A_PROTOCOL_VERSION },
      { url: urls.grpc, protocolBinding: 'GRPC', protocolVersion: A2A_PROTOCOL_VERSION },
    ],
    version: VERSION,
    defaultInputModes: ['text/plain', 'application/json'],
    defaultOutputModes: ['text/plain'],
    skills: [
      {
        id: 'scripted',
        name: 'Scripted work',
        description: 'Runs the directives of the message text; any other text means work:3.',
        tags: ['test', 'pause', 'resume'],
        examples: [
          'work:2 await:ci.done:30:fail work:1',
          'sleep-until:2026-01-01T09:00:00Z work:1',
          'work:1 input work:1',
          'work:1 auth work:1',
        ],
      },
    ],
  };
  if (settings.legacyPause) {
    return {
      ...base,
      capabilities: {
        streaming: true,
        pushNotifications: false,
        extensions: [settingsExtension(settings)],
        _meta: { harn: { pause: true } },
      },
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
          description:
            'TASK_STATE_PAUSED with TaskStatus.pause, and the PauseTask / ResumeTask / AwaitTaskResumption methods',
          required: false,
          params: {
            methods: ['PauseTask', 'ResumeTask', 'AwaitTaskResumption'],
            pauseModes: ['interrupt_immediate', 'finish_step', 'wait_for_completion'],
            resumeCauses: [...RESUME_CAUSES],
          },
        },
        settingsExtension(settings),
      ],
    },
  } as AgentCard & JsonObject;
}

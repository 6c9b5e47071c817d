/**
 * @module peer/agent-card
 * The reference peer's agent card (A2A v1.0 §8, served at `/.well-known/agent-card.json`):
 * three interfaces (JSON-RPC at the bound URL, HTTP+JSON at its `/rest`, docs/design.md §15, and gRPC
 * on the same port, §16), and, on a peer that serves A2A v0.3 too, the v0.3 card's own fields
 * (`protocolVersion: "0.3.0"`, `url`, `preferredTransport`, `additionalInterfaces`),
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
import {
  A2A_PROTOCOL_VERSION,
  type AgentCard,
  type AgentInterface,
  PAUSE_EXTENSION_URI,
  RESUME_CAUSES,
} from '../protocol/types.js';
import { isRecord } from '../protocol/read.js';
import { VERSION } from '../version.js';
import { V03_PROTOCOL_VERSION } from './v03-dialect.js';

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
  /**
   * The dialects the peer serves besides v1.0 (`peer --a2a-version`, docs/design.md §4): absent on
   * a peer that serves v1.0 only, so its card is what it was and a replay of an older recording
   * starts a v1.0-only peer.
   */
  a2aVersion?: '0.3' | 'both';
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
    const { deterministic, seed, stepMs, legacyPause, bypassAskAfterMs, a2aVersion } = ext.params;
    const bypass =
      bypassAskAfterMs === undefined || (Number.isSafeInteger(bypassAskAfterMs) && (bypassAskAfterMs as number) > 0);
    if (
      typeof deterministic === 'boolean' &&
      typeof legacyPause === 'boolean' &&
      Number.isSafeInteger(seed) &&
      Number.isSafeInteger(stepMs) &&
      (stepMs as number) > 0 &&
      bypass &&
      (a2aVersion === undefined || a2aVersion === '0.3' || a2aVersion === 'both')
    ) {
      return {
        deterministic,
        seed: seed as number,
        stepMs: stepMs as number,
        legacyPause,
        ...(bypassAskAfterMs === undefined ? {} : { bypassAskAfterMs: bypassAskAfterMs as number }),
        ...(a2aVersion === undefined ? {} : { a2aVersion }),
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

/**
 * The interfaces a card lists (`supportedInterfaces`, A2A v1.0 §8): v1.0 on each binding unless the
 * peer serves v0.3 only, then v0.3's JSON-RPC, HTTP+JSON and gRPC interfaces when it serves v0.3.
 */
function interfacesOf(urls: PeerInterfaces, a2aVersion: ReferencePeerSettings['a2aVersion']): AgentInterface[] {
  const v10 = [
    { url: urls.jsonRpc, protocolBinding: 'JSONRPC', protocolVersion: A2A_PROTOCOL_VERSION },
    { url: urls.rest, protocolBinding: 'HTTP+JSON', protocolVersion: A2A_PROTOCOL_VERSION },
    { url: urls.grpc, protocolBinding: 'GRPC', protocolVersion: A2A_PROTOCOL_VERSION },
  ];
  if (a2aVersion === undefined) return v10;
  const v03 = [
    { url: urls.jsonRpc, protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
    { url: urls.rest, protocolBinding: 'HTTP+JSON', protocolVersion: '0.3' },
    { url: urls.grpc, protocolBinding: 'GRPC', protocolVersion: '0.3' },
  ];
  return a2aVersion === 'both' ? [...v10, ...v03] : v03;
}

/**
 * What a v0.3 client reads of a card (its `protocolVersion`, `url`, `preferredTransport`,
 * `additionalInterfaces`), on the card of a peer that serves v0.3.
 */
function v03CardFields(urls: PeerInterfaces, a2aVersion: ReferencePeerSettings['a2aVersion']): JsonObject {
  if (a2aVersion === undefined) return {};
  return {
    protocolVersion: V03_PROTOCOL_VERSION,
    url: urls.jsonRpc,
    preferredTransport: 'JSONRPC',
    additionalInterfaces: [
      { url: urls.jsonRpc, transport: 'JSONRPC' },
      { url: urls.rest, transport: 'HTTP+JSON' },
      { url: urls.grpc, transport: 'GRPC' },
    ],
  };
}

export function buildAgentCard(urls: PeerInterfaces, settings: ReferencePeerSettings): AgentCard & JsonObject {
  const base = {
    name: 'a2a-replay reference peer',
    description:
      'A scripted A2A v1.0 agent implementing the paused-state RFC (PauseTask, ResumeTask, AwaitTaskResumption). ' +
      'The first text part of a message is a script: work:N, await:EVENT[:MINUTES[:fail|resume]], ' +
      'sleep-until:TIME, input, auth, fail.',
    ...v03CardFields(urls, settings.a2aVersion),
    supportedInterfaces: interfacesOf(urls, settings.a2aVersion),
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
            ...(settings.a2aVersion === undefined
              ? {}
              : { v03Methods: ['tasks/pause', 'tasks/resume', 'tasks/awaitResumption'] }),
            pauseModes: ['interrupt_immediate', 'finish_step', 'wait_for_completion'],
            resumeCauses: [...RESUME_CAUSES],
          },
        },
        settingsExtension(settings),
      ],
    },
  } as unknown as AgentCard & JsonObject;
}

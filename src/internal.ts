/**
 * @module a2a-replay/internal
 * The internal barrel: every export by name, for `cli/`, tests and benchmarks. Not part of the
 * package's public surface (that is `src/index.ts` and the subpath modules in `src/public/`).
 */

// ---- core ----
export { A2aReplayError, type A2aReplayErrorCode, EXIT_CODES, describeError, errorMessage } from './errors.js';
export { type Clock, ManualClock, ShiftedClock, isoAt, systemClock } from './clock.js';
export { CounterIdSource, type IdSource, randomIdSource } from './ids.js';
export { TOOL_NAME, VERSION } from './version.js';

// ---- canonical ----
export {
  CanonicalizationError,
  type JsonObject,
  type JsonValue,
  canonicalJson,
  hashCanonical,
  sha256Prefixed,
} from './canonical/canonical-json.js';
export { findDuplicateKey, lineColumnAt, locateJsonError, parseJsonText } from './canonical/parse-json.js';

// ---- protocol ----
export {
  A2A_PROTOCOL_VERSION,
  A2A_VERSION_HEADER,
  AGENT_CARD_PATH,
  type AgentCapabilities,
  type AgentCard,
  type AgentExtension,
  type AgentInterface,
  type AgentSkill,
  type Artifact,
  type AwaitTaskResumptionParams,
  type CancelTaskParams,
  DEFAULT_PAUSE_MODE,
  type GetTaskParams,
  type ListTasksParams,
  type ListTasksResult,
  type Message,
  ON_TIMEOUT_ACTIONS,
  type OnTimeout,
  PAUSE_EXTENSION_URI,
  PAUSE_INITIATORS,
  PAUSE_MODES,
  type Part,
  type PauseInitiator,
  type PauseMode,
  type PauseTaskParams,
  type PauseTaskResult,
  RESUME_CAUSES,
  RESUME_MODES,
  ROLES,
  type ResumeCause,
  type ResumeConditions,
  type ResumeEventMetadata,
  type ResumeMode,
  type ResumeTaskParams,
  type ResumeTaskResult,
  type Role,
  type SendMessageConfiguration,
  type SendMessageParams,
  type SendMessageResult,
  type StreamEvent,
  type StreamResponse,
  type SubscribeToTaskParams,
  TASK_STATES,
  TERMINAL_STATES,
  type Task,
  type TaskArtifactUpdateEvent,
  type TaskPause,
  type TaskState,
  type TaskStatus,
  type TaskStatusUpdateEvent,
} from './protocol/types.js';
export {
  ERROR_DOMAIN,
  ERROR_INFO_TYPE,
  type ErrorInfo,
  JSON_RPC_ERRORS,
  type JsonRpcErrorCode,
  type JsonRpcErrorName,
  type JsonRpcErrorObject,
  errorInfoReason,
  errorNameForCode,
  jsonRpcError,
} from './protocol/errors.js';
export {
  CONTROL_METHODS,
  CONTROL_PATH,
  CORE_METHODS,
  type ControlMethod,
  type CoreMethod,
  PAUSE_METHODS,
  type PauseMethod,
  STREAMING_METHODS,
} from './protocol/methods.js';
export {
  type JsonRpcFailure,
  type JsonRpcId,
  type JsonRpcMessage,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type JsonRpcResponse,
  type JsonRpcSuccess,
  errorResponse,
  parseJsonRpcMessage,
  parseJsonRpcRequest,
  parseJsonRpcResponse,
  successResponse,
} from './protocol/json-rpc.js';
export {
  type AdvanceClockParams,
  type FireEventParams,
  type KnownMethod,
  type MethodCall,
  isKnownMethod,
  parseMethodCall,
} from './protocol/params.js';
export {
  parsePauseTaskResult,
  parseResumeMetadata,
  parseResumeTaskResult,
  parseSendMessageResult,
  parseStreamResponse,
  parseTask,
} from './protocol/parse-objects.js';
export { type FieldIssue, type ParseResult, formatIssue } from './protocol/read.js';
export {
  BOUNDS,
  type IntegerBound,
  MAX_CLOCK_MS,
  MAX_INSTANT,
  MIN_INSTANT,
  checkCallRanges,
  instantOf,
} from './protocol/bounds.js';
export {
  TRANSITIONS,
  type Transition,
  type TransitionSource,
  type TransitionVerdict,
  checkTransition,
  isAllowedTransition,
  isTerminal,
} from './protocol/state-machine.js';
export {
  type HarnPauseEnvelope,
  type HarnPausedEnvelope,
  type HarnResumedEnvelope,
  legacyMetadata,
  legacyToPause,
  parseLegacyEnvelope,
  pauseToLegacy,
  resumeToLegacy,
} from './protocol/legacy.js';
export {
  BINDINGS,
  type Binding,
  REST_ERROR_STATUS,
  type RestErrorBody,
  type RestMatch,
  type RestRequest,
  matchRestRoute,
  matchRestTail,
  readRestError,
  restError,
  restParams,
  restRequestOf,
} from './protocol/rest-binding.js';

// ---- recording ----
export {
  ENTRY_KINDS,
  type EntryHttp,
  type EntryKind,
  RECORDING_VERSION,
  REPLAY_MAX_BODY_DEPTH,
  type RecordingEntry,
  type RecordingHeader,
  type RecordingLine,
} from './recording/format.js';
export { type LineSink, MemoryLineSink, fileLineSink } from './recording/line-sink.js';
export {
  DEFAULT_PRINCIPAL_SOURCE,
  type PrincipalSource,
  jwtSubject,
  parsePrincipalSource,
  principalOf,
} from './recording/principal.js';
export {
  type Recording,
  type RecordingLineRead,
  type ReadRecordingOptions,
  type TornTail,
  readRecording,
  readRecordingFile,
  readRecordingStream,
} from './recording/recording-reader.js';
export {
  type EntryDraft,
  type EntryWriter,
  RecordingWriter,
  type RecordingWriterOptions,
  serializeLine,
} from './recording/recording-writer.js';
export { entryLine } from './recording/entry-line.js';
export {
  DEFAULT_REDACTED_HEADERS,
  SECRET_HEADER_WORDS,
  SECRET_NAME_WORDS,
  SECRET_QUERY_NAMES,
  SECRET_QUERY_WORDS,
  isSecretHeader,
  isSecretQueryName,
  redactHeaders,
  redactPath,
  redactUrl,
  redactValue,
  sha256Prefix,
  shortSha256,
} from './recording/redaction.js';

// ---- receipts ----
export {
  CHECKPOINT_PAYLOAD_TYPE,
  type Checkpoint,
  type CheckpointSignature,
  RECEIPT_FORMAT,
  RECEIPT_PAYLOAD_TYPE,
  RECEIPT_VERSION,
  RECEIPT_VERSIONS,
  type Receipt,
  type ReceiptLogVersion,
  type RecordingBinding,
  type ReceiptLogHeader,
  type ReceiptLogLine,
  type ReceiptSignature,
  type ResumeOutcome,
  type ResumeReceiptCause,
  type ResumptionDraft,
  type ResumptionReceipt,
  type SpanRef,
  type SuspensionDraft,
  type SuspensionReceipt,
  type SuspensionVia,
} from './receipts/types.js';
export {
  RECEIPT_CONDITIONS_MAX_BYTES,
  RECEIPT_TEXT_MAX,
  type ResumptionFacts,
  type SuspensionFacts,
  buildResumptionDraft,
  buildSuspensionDraft,
  conditionsHashOf,
  cutText,
  inputHashOf,
  resumeTokenHashOf,
} from './receipts/drafts.js';
export {
  HMAC_SECRET_BYTES,
  KEY_FILE_TYPE,
  KEY_FILE_VERSION,
  type KeyFile,
  Keyring,
  PUBLIC_KEY_FILE_TYPE,
  type PublicKeyFile,
  type RandomBytes,
  ReceiptKey,
  decodeBase64url,
  generateReceiptKey,
  kidForPublicKey,
  readKeyFile,
} from './receipts/keys.js';
export { pae } from './receipts/pae.js';
export {
  type SignatureCheck,
  type Unsigned,
  checkCheckpointSignature,
  checkReceiptSignature,
  checkpointSigningInput,
  receiptSigningInput,
  canonicalWithSig,
  signCheckpoint,
  signReceipt,
} from './receipts/signing.js';
export {
  DEFAULT_CHECKPOINT_EVERY,
  ReceiptChain,
  type ReceiptChainOptions,
  type SealedLine,
  type SealedReceipt,
  sealLine,
} from './receipts/chain.js';
export {
  type LineBlock,
  LineSplitter,
  MAX_LINE_BYTES,
  type RawLine,
  readLogLines,
  splitBlock,
  readLogChunks,
  splitLogBytes,
} from './receipts/log-reader.js';
export { readReceiptLogLine } from './receipts/read-line.js';
export { readRecordingBinding } from './receipts/recording-binding.js';
export { WORKERS_FROM_BYTES, defaultVerifyJobs } from './receipts/verify-jobs.js';
export {
  ReceiptLogVerifier,
  VERIFY_FAILURE_REASONS,
  type VerifiedLine,
  type VerifyFailure,
  type VerifyFailureReason,
  type VerifyOptions,
  type VerifyResult,
  verifyReceiptLog,
  verifyReceiptLogBytes,
} from './receipts/verify.js';
export {
  type AppendResult,
  DEFAULT_FSYNC_EVERY,
  FSYNC_POLICIES,
  type FsyncPolicy,
  ReceiptLogWriter,
  type ReceiptLogWriterOptions,
} from './receipts/log-writer.js';
export {
  KEY_FILE_ENV,
  type LoadedKey,
  loadCheckpointFile,
  loadKeyFile,
  loadKeyring,
  writeSecretFile,
} from './receipts/key-file.js';
export {
  AUDIT_FLAGS,
  AuditCollector,
  type AuditCollectorOptions,
  type AuditFlag,
  type AuditFilter,
  type AuditOutcome,
  type AuditResult,
  type AuditRow,
  auditReceiptLog,
} from './receipts/audit.js';

// ---- tracing ----
export {
  LOST_PAUSE_REASONS,
  type LostPauseReason,
  type SpanAttributeValue,
  type SpanAttributes,
  type SpanEvent,
  type SpanSink,
  deriveSpanId,
  deriveTraceId,
  parseTraceparent,
} from './tracing/span-events.js';
export {
  ATTR_CONTEXT_ID,
  ATTR_GEN_AI_CONVERSATION_ID,
  ATTR_LINK_KIND,
  ATTR_LINK_PIPELINE_SPAN_ID,
  ATTR_LINK_PIPELINE_TRACE_ID,
  ATTR_LINK_SUSPENSION_SPAN_ID,
  ATTR_LINK_SUSPENSION_TRACE_ID,
  ATTR_LOST_REASON,
  ATTR_PAUSE_CONDITIONS_HASH,
  ATTR_PAUSE_INITIATED_BY,
  ATTR_PAUSE_MODE,
  ATTR_PAUSE_PAUSED_AT,
  ATTR_PAUSE_PAUSED_UNTIL,
  ATTR_PAUSE_REASON,
  ATTR_PAUSE_VIA,
  ATTR_PRINCIPAL,
  ATTR_RECEIPT_HASH,
  ATTR_RECORDING_ENTRY_SEQ,
  ATTR_RESUME_CAUSE,
  ATTR_RESUME_HAD_INPUT,
  ATTR_RESUME_OUTCOME,
  ATTR_TASK_ID,
  LINK_KINDS,
  SPAN_NAMES,
  type SpanName,
} from './tracing/attributes.js';
export { EventIdGenerator } from './tracing/event-id-generator.js';
export { SpanBridge, type SpanBridgeOptions, compareHrTime, isoToHrTime } from './tracing/span-bridge.js';
export {
  LostPauseCollector,
  type LostPauseListing,
  OpenSuspensions,
  lostPausesInReceiptLog,
} from './tracing/lost-pauses.js';

// ---- observe ----
export { type RequestView, readRequestParts } from './observe/call-view.js';
export { FINDING_CODES, type FindingCode, type ObserverFinding } from './observe/findings.js';
export { entryIncompleteness } from './observe/entry-reads.js';
export {
  type ObserverOptions,
  type ObserverOutput,
  type OpenSuspension,
  type ObserverStats,
  PauseObserver,
} from './observe/pause-observer.js';
export {
  ObservationPipeline,
  type ObservationPipelineOptions,
  type PipelineSinkName,
  type ReceiptSink,
} from './observe/pipeline.js';

// ---- peer ----
export { DETERMINISTIC_EPOCH, type PeerOptions, type RunningPeer, startPeer } from './peer/start-peer.js';
export { REST_PATH } from './peer/rest-adapter.js';
export {
  REFERENCE_PEER_EXTENSION_URI,
  type ReferencePeerSettings,
  referencePeerSettingsOf,
} from './peer/agent-card.js';
// peer limits and its own ground truth (the transitions log)
export { DEFAULT_MAX_TASKS } from './peer/task-store.js';
export { DEFAULT_HTTP_LIMITS, type HttpLimits } from './http/limits.js';
export { fetchAgentCard } from './http/agent-card-fetch.js';
export { cardCauses, trafficCauses } from './replay/likely-cause.js';
export { isLoopbackHost } from './http/loopback.js';
export {
  OUTPUT_FILE_MODE,
  type OutputFileOptions,
  type WholeFileOptions,
  openOutputFile,
  refuseSymlink,
  writeOutputFile,
  writeOutputFileSync,
} from './output-file.js';
export { printable } from './printable.js';
export {
  type TargetReading,
  basePathOf,
  originForm,
  readTarget,
  refusedTargetMessage,
  underBase,
} from './http/request-target.js';
export {
  type EvictedLine,
  PEER_TRANSITIONS_TYPE,
  PEER_TRANSITIONS_VERSION,
  type PauseAttemptMethod,
  type PausedDetail,
  type PeerTransitionLine,
  type PeerTransitionsHeader,
  type RejectedLine,
  type TransitionCause,
  type TransitionLine,
} from './peer/transition-log.js';
export { type PeerTransitions, parsePeerTransitions, readPeerTransitions } from './peer/read-transitions.js';

// ---- intercept ----
export { foreignInterfaceUrls, rewriteAgentCard, rewriteUrl } from './intercept/agent-card-rewrite.js';
export {
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_MAX_OBSERVED_BYTES,
  Exchange,
  ExchangeRecorder,
  type ExchangeRecorderOptions,
  type HeadOptions,
  RESPONSE_CUT_MESSAGE,
  type RequestFacts,
} from './intercept/exchange-recorder.js';
export {
  type HeaderInput,
  endToEndRawHeaders,
  hopByHopNames,
  mediaType,
  recordedHeaders,
} from './intercept/http-headers.js';
export { type RecordingFetchOptions, createRecordingFetch } from './intercept/recording-fetch.js';
export {
  type RecordingMiddleware,
  type RecordingMiddlewareOptions,
  createRecordingMiddleware,
  withRecording,
} from './intercept/recording-middleware.js';
export {
  CONTROL_REFUSED_MESSAGE,
  type RecordingProxy,
  type RecordingProxyOptions,
  isControlTarget,
  startRecordingProxy,
} from './intercept/recording-proxy.js';
export { type SseEvent, SseParser } from './intercept/sse-parser.js';

// ---- replay ----
export {
  type RecordedPeerSetup,
  recordedAgentCard,
  recordedPeerSettings,
  recordedPeerSetup,
} from './replay/recorded-peer.js';
export {
  DEFAULT_WAIT_MS,
  type DriveOptions,
  type DriveResult,
  type TaskTimeline,
  driveRecording,
} from './replay/driver.js';
export {
  type ReceiptDiff,
  type ReceiptDiffOptions,
  type ReceiptDifference,
  OTHER_SESSION_FIELDS,
  UNSIGNED_VOLATILE_FIELDS,
  VOLATILE_FIELDS,
  diffReceiptLogs,
} from './replay/diff.js';
export { type EntryRef, type EntryShape, type ExchangeDrift, describeShape, shapeOf } from './replay/drift.js';
export { type LaneKey, type PlannedExchange, type ReplayPlan, planReplay } from './replay/lanes.js';
export { type LiveAnswer, ReplayLedger } from './replay/ledger.js';
export {
  type ContentDifference,
  DEFAULT_VOLATILE,
  IgnoreSet,
  type NoiseRules,
  contentDifferences,
  describeContent,
  parsePointerPattern,
} from './replay/content.js';
export { CONFIG_FILE, type ReplayConfig, readReplayConfig } from './replay/config.js';
export { ID_FIELDS, type IdConflict, IdMap } from './replay/substitution.js';
export { type Shard, parseShard, selectShard } from './replay/shard.js';
export {
  type DeriveOptions,
  type DerivedLog,
  UNSIGNED_KID,
  checkpointIntervalOf,
  deriveReceiptLog,
  unsignedKeyring,
} from './replay/derive-receipts.js';
export {
  DEFAULT_READY_MS,
  type PeerProcess,
  type PeerProcessOptions,
  probePeer,
  startPeerProcess,
  stopAllPeerProcesses,
} from './replay/peer-process.js';
export {
  type RecordingOutcome,
  type RecordingResult,
  type RunSummary,
  exitCodeOf,
  summaryExitCode,
} from './replay/result.js';
export {
  type LivePeer,
  type RunRecordingOptions,
  goldenPathFor,
  readGoldenLines,
  runRecording,
} from './replay/run-recording.js';
export { type RunCorpusOptions, runCorpus } from './replay/run-corpus.js';
export {
  type TextReportOptions,
  describeDifference,
  describeDrift,
  renderRecordingText,
  renderSummaryLine,
  renderText,
} from './replay/reporters/text.js';
export { renderJson } from './replay/reporters/json.js';
export { escapeXml, renderJunit } from './replay/reporters/junit.js';

// report: the HTML report (docs/design.md §12)
export {
  type DriftLine,
  type Lane,
  type LanePause,
  type LaneState,
  type Report,
  type ReportRow,
  type ReportSection,
  escapeHtml,
  htmlReportChunks,
  renderHtmlReport,
} from './report/html-report.js';
export {
  type ReportInput,
  type ReportPart,
  ReportInputError,
  fileSections,
  joinedSection,
  pairReportInputs,
  receiptLogSection,
  recordingSection,
  replaySection,
} from './report/build-report.js';

// mock: the peer side of recordings (docs/design.md §13)
export {
  type IncomingRequest,
  type RequestComparison,
  REQUEST_VOLATILE,
  compareRequest,
  distance,
  pathOnly,
} from './mock/match.js';
export { type MockOutput, OutputQueue, sseFrame } from './mock/mock-output.js';
export { type DueAnswer, MockScript, type ServedExchange, type TaskView, isCardExchange } from './mock/mock-script.js';
export { pauseFallback } from './mock/pause-fallback.js';
export {
  type ExchangeRef,
  MOCK_ERROR_DOMAIN,
  MockEngine,
  type MockOptions,
  type MockReport,
  type MockSource,
  NO_RECORDED_EXCHANGE,
  type UnmatchedRequest,
} from './mock/mock-engine.js';
export { type MockServerOptions, type RunningMock, startMockServer } from './mock/mock-server.js';
export { DEFAULT_MOCK_URL, type MockFetch, type MockFetchOptions, createMockFetch } from './mock/mock-fetch.js';

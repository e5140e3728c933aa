/**
 * Every message between the control plane and a runtime worker (a child process hosting one pi runtime; see
 * adapters/runtime-protocol/runtime-protocol.ts for the protocol, whose types are these schemas' static types).
 * Both sides check every message they receive against these schemas (runtime-protocol.validate.ts), with
 * failures worded in the "path" style (path-failure.ts): "prompt.images[0].mimeType must be a string (got
 * undefined)".
 *
 * What the control plane sends is exact (unknown fields are rejected, so a typo surfaces where it is made);
 * what a worker sends is open (a field a newer worker adds passes) but every declared field is checked. A
 * session event is pi's own object forwarded as is: only its `type` is checked.
 *
 * The few `x-error`s keep the hand-written validators' words where the generic wording says something else: a
 * nested object told without what it got ("open.new.child must be an object"), a field whose rule has its own
 * sentence ("open.new.sessionId must be 1-128 letters, digits, - or _").
 */
import { Type, type Static } from "typebox";
import type { RuntimeNotice as RuntimeNoticeType } from "../runtime/runtime-types.ts";
import { MODEL_AUTH_KINDS } from "../runtime/ultrafast.ts";
import { CAPTURE_FIELD_BYTES } from "../traces/trace-capture.ts";
import type { CaptureWrite } from "../traces/trace-records.ts";
import { OBSERVATION_TYPES, TRACE_LEVELS, TRACE_STATUSES } from "../traces/trace-types.ts";
import { failsWith, literals, type SameType } from "./schema-kit.ts";
import { SubagentMarkerData } from "./subagent-marker-data.ts";

export const THINKING_LEVELS = ["off", "minimal", "low", "medium", "high", "xhigh"] as const;
export const SESSION_KINDS = ["session", "research"] as const;
export const FAULT_KINDS = ["protocol", "uncaughtException", "unhandledRejection", "runtime"] as const;

/** How the hand-written checks told a nested object that is not one: without what it got. */
const MUST_BE_OBJECT = { type: "must be an object" };

/** A string with more than white space in it ("" and " " fail: "must not be empty"). */
const NonBlank = failsWith(Type.String({ pattern: "\\S" }), { pattern: "must not be empty" });
const StringArray = Type.Array(failsWith(Type.String(), "must be a string"));
const NullableString = Type.Union([Type.String(), Type.Null()]);
const NullableNumber = Type.Union([Type.Number(), Type.Null()]);

// ---------------------------------------------------------------------------------------------------------
// Faux turns: the scripted replies of the faux provider (a LEYLINE_FAUX_RESPONSES file, `faux_turn_reply`).

export const FauxToolCallSpec = Type.Object(
  { name: failsWith(Type.String({ pattern: "\\S" }), "must be a non-empty string"), arguments: Type.Record(Type.String(), Type.Unknown()) },
  { additionalProperties: false },
);

export const FauxTurn = failsWith(
  Type.Object(
    {
      match: Type.Optional(
        failsWith(Type.String({ minLength: 1 }), { minLength: "must not be empty (omit it to consume the turn in order)" }),
      ),
      text: Type.Optional(Type.String()),
      thinking: Type.Optional(Type.String()),
      toolCalls: Type.Optional(Type.Array(FauxToolCallSpec)),
    },
    {
      additionalProperties: false,
      anyOf: [{ required: ["text"] }, { required: ["thinking"] }, { required: ["toolCalls"], properties: { toolCalls: { minItems: 1 } } }],
    },
  ),
  { anyOf: "needs at least one of text, thinking, toolCalls" },
);

// ---------------------------------------------------------------------------------------------------------
// Control plane → worker.

export const ImageInput = failsWith(
  Type.Object(
    { type: Type.Literal("image"), data: Type.String({ description: "base64" }), mimeType: NonBlank },
    { additionalProperties: false },
  ),
  MUST_BE_OBJECT,
);

/** Worker configuration carried by `open` (the worker hosts one runtime for its whole life). */
export const WorkerOpenOptions = failsWith(
  Type.Object(
    {
      agentDir: Type.Optional(Type.String({ description: "pi's agent dir; default: the worker's getAgentDir() (PI_CODING_AGENT_DIR)." })),
      apiUrl: Type.Optional(Type.String({ description: "The API base URL, exported as LEYLINE_API_URL before extensions load." })),
      visionDir: Type.Optional(
        Type.String({ description: "Leyline's vision attachments folder, exported as LEYLINE_VISION_DIR before extensions load." }),
      ),
      extensionPaths: Type.Optional(StringArray),
      tools: Type.Optional(StringArray),
      heartbeatMs: Type.Optional(Type.Number({ description: "Heartbeat interval in ms; 0 disables. Default 5000." })),
      faux: Type.Optional(
        failsWith(
          Type.Object(
            { tokensPerSecond: Type.Optional(Type.Number()), tokenSize: Type.Optional(Type.Number()) },
            { additionalProperties: false },
          ),
          MUST_BE_OBJECT,
        ),
      ),
    },
    { additionalProperties: false },
  ),
  MUST_BE_OBJECT,
);

/** A new child session (subagent run): a tool allowlist or the tools to exclude, never both. */
export const ChildSessionOptions = failsWith(
  Type.Object(
    {
      parentSession: Type.Optional(NonBlank),
      marker: SubagentMarkerData,
      systemPrompt: Type.Optional(Type.String()),
      model: Type.Optional(failsWith(Type.Object({ provider: NonBlank, id: NonBlank }, { additionalProperties: false }), MUST_BE_OBJECT)),
      thinkingLevel: Type.Optional(literals(THINKING_LEVELS)),
      tools: Type.Optional(StringArray),
      excludeTools: Type.Optional(StringArray),
    },
    { additionalProperties: false, not: { required: ["tools", "excludeTools"] } },
  ),
  { ...MUST_BE_OBJECT, not: "cannot have both tools and excludeTools" },
);

/** The `new` target of `open`. */
export const NewSessionTarget = failsWith(
  Type.Object(
    {
      cwd: NonBlank,
      // It becomes part of the file name: letters, digits, - and _ only (pi's ids are UUIDs).
      sessionId: Type.Optional(failsWith(Type.String({ pattern: "^[A-Za-z0-9_-]{1,128}$" }), "must be 1-128 letters, digits, - or _")),
      kind: Type.Optional(literals(SESSION_KINDS)),
      child: Type.Optional(ChildSessionOptions),
      /** A start-screen preview: an in-memory session, and nothing is created on disk (no folder, no session dir). */
      preview: Type.Optional(Type.Literal(true)),
    },
    { additionalProperties: false },
  ),
  MUST_BE_OBJECT,
);

const MessageId = NonBlank;

/** What every control message carries: its type and an id (checked before the type's own fields). */
export const ControlEnvelope = Type.Object({ type: Type.String(), id: MessageId });

const Text = Type.String();
const Images = Type.Optional(Type.Array(ImageInput));
const exact = { additionalProperties: false } as const;

/** Each request as it travels: `{ id, type, ...payload }` (no payload field may be called id or type). */
export const RuntimeRequests = {
  open: failsWith(
    Type.Object(
      {
        id: MessageId,
        type: Type.Literal("open"),
        sessionFile: Type.Optional(NonBlank),
        new: Type.Optional(NewSessionTarget),
        options: Type.Optional(WorkerOpenOptions),
      },
      { ...exact, oneOf: [{ required: ["sessionFile"] }, { required: ["new"] }] },
    ),
    { oneOf: "needs exactly one of sessionFile or new" },
  ),
  prompt: Type.Object(
    {
      id: MessageId,
      type: Type.Literal("prompt"),
      text: Text,
      images: Images,
      streamingBehavior: Type.Optional(literals(["steer", "followUp"])),
      awaitCompletion: Type.Optional(Type.Boolean()),
    },
    exact,
  ),
  steer: Type.Object({ id: MessageId, type: Type.Literal("steer"), text: Text, images: Images }, exact),
  followUp: Type.Object({ id: MessageId, type: Type.Literal("followUp"), text: Text, images: Images }, exact),
  abort: Type.Object({ id: MessageId, type: Type.Literal("abort") }, exact),
  clearQueue: Type.Object({ id: MessageId, type: Type.Literal("clearQueue") }, exact),
  compact: Type.Object({ id: MessageId, type: Type.Literal("compact"), customInstructions: Type.Optional(Type.String()) }, exact),
  setModel: Type.Object({ id: MessageId, type: Type.Literal("setModel"), provider: NonBlank, modelId: NonBlank }, exact),
  setThinkingLevel: Type.Object({ id: MessageId, type: Type.Literal("setThinkingLevel"), level: literals(THINKING_LEVELS) }, exact),
  bash: Type.Object(
    { id: MessageId, type: Type.Literal("bash"), command: NonBlank, excludeFromContext: Type.Optional(Type.Boolean()) },
    exact,
  ),
  reload: Type.Object({ id: MessageId, type: Type.Literal("reload") }, exact),
  navigateTree: Type.Object(
    {
      id: MessageId,
      type: Type.Literal("navigateTree"),
      targetId: NonBlank,
      summarize: Type.Optional(Type.Boolean()),
      customInstructions: Type.Optional(Type.String()),
      replaceInstructions: Type.Optional(Type.Boolean()),
      label: Type.Optional(Type.String()),
    },
    exact,
  ),
  fork: Type.Object(
    { id: MessageId, type: Type.Literal("fork"), entryId: NonBlank, position: Type.Optional(literals(["before", "at"])) },
    exact,
  ),
  newSession: Type.Object({ id: MessageId, type: Type.Literal("newSession") }, exact),
  switchSession: Type.Object({ id: MessageId, type: Type.Literal("switchSession"), sessionFile: NonBlank }, exact),
  setSessionName: Type.Object({ id: MessageId, type: Type.Literal("setSessionName"), name: Type.String() }, exact),
  setLabel: Type.Object({ id: MessageId, type: Type.Literal("setLabel"), entryId: NonBlank, label: Type.String() }, exact),
  extensionUiReply: Type.Object(
    {
      id: MessageId,
      type: Type.Literal("extensionUiReply"),
      requestId: NonBlank,
      confirmed: Type.Optional(Type.Boolean()),
      value: Type.Optional(Type.String()),
      cancelled: Type.Optional(Type.Boolean()),
    },
    exact,
  ),
  snapshot: Type.Object({ id: MessageId, type: Type.Literal("snapshot") }, exact),
  /**
   * Imports pi and answers once it is loaded, opening nothing and writing nothing: a spare worker
   * (adapters/runtime-host/runtime-host.ts `spareWorker`) takes the import's seconds before it is needed.
   */
  preload: Type.Object({ id: MessageId, type: Type.Literal("preload") }, exact),
  dispose: Type.Object({ id: MessageId, type: Type.Literal("dispose") }, exact),
};

export const FauxTurnReply = Type.Object(
  { type: Type.Literal("faux_turn_reply"), id: MessageId, turn: Type.Union([FauxTurn, Type.Null()]) },
  exact,
);

// ---------------------------------------------------------------------------------------------------------
// Worker → control plane.

export const RuntimeModelInfo = failsWith(
  Type.Object({
    provider: Type.String(),
    id: Type.String(),
    name: Type.String(),
    api: Type.String(),
    reasoning: Type.Boolean(),
    input: StringArray,
    contextWindow: Type.Number(),
    maxTokens: Type.Number(),
    availableThinkingLevels: StringArray,
    /** From pi's model registry (`isUsingOAuth`, `hasConfiguredAuth`); absent means not known. */
    authKind: Type.Optional(literals(MODEL_AUTH_KINDS)),
  }),
  MUST_BE_OBJECT,
);

export const RuntimeSlashCommand = Type.Object({
  name: Type.String(),
  description: Type.Optional(Type.String()),
  source: literals(["extension", "prompt", "skill"]),
});

const ModelRef = failsWith(Type.Object({ provider: Type.String(), id: Type.String() }, exact), MUST_BE_OBJECT);
const NOTICE_KIND = 'must be "model-fallback" or "file-upgraded" (got {type})';

/** What the runtime did on its own (model fallback, file upgrade): domain/runtime/runtime-types.ts RuntimeNotice. */
export const RuntimeNotice = failsWith(
  Type.Union([
    Type.Object(
      {
        kind: failsWith(Type.Literal("model-fallback"), NOTICE_KIND),
        message: Type.String(),
        requested: ModelRef,
        used: Type.Union([ModelRef, Type.Null()]),
      },
      exact,
    ),
    Type.Object(
      {
        kind: failsWith(Type.Literal("file-upgraded"), NOTICE_KIND),
        message: Type.String(),
        fromVersion: Type.Number(),
        backupPath: Type.String(),
      },
      exact,
    ),
  ]),
  MUST_BE_OBJECT,
);

/** Runtime state as the worker sees it; `revision` increases with every snapshot one worker produces. */
export const RuntimeSnapshot = Type.Object(
  {
    revision: Type.Number(),
    sessionId: Type.String(),
    sessionFile: NullableString,
    cwd: Type.String(),
    sessionName: NullableString,
    kind: Type.Union([literals(SESSION_KINDS), Type.Null()]),
    model: Type.Union([RuntimeModelInfo, Type.Null()]),
    availableModels: failsWith(Type.Array(RuntimeModelInfo), { type: "must be an array" }),
    thinkingLevel: Type.String(),
    availableThinkingLevels: StringArray,
    isStreaming: Type.Boolean(),
    isCompacting: Type.Boolean(),
    isBashRunning: Type.Boolean(),
    pendingToolCalls: StringArray,
    queuedMessages: failsWith(Type.Object({ steering: StringArray, followUp: StringArray }), MUST_BE_OBJECT),
    steeringMode: Type.String(),
    followUpMode: Type.String(),
    activeToolNames: StringArray,
    contextUsage: Type.Union([Type.Object({ tokens: NullableNumber, contextWindow: Type.Number(), percent: NullableNumber }), Type.Null()]),
    slashCommands: failsWith(Type.Array(RuntimeSlashCommand), { type: "must be an array" }),
    diagnostics: Type.Array(Type.Object({ type: Type.String(), message: Type.String() })),
    modelFallbackMessage: NullableString,
    /** Absent from older workers. */
    notices: Type.Optional(Type.Array(RuntimeNotice)),
    /**
     * Present only while pi's leaf is not the file's last entry (it moved without writing: /tree navigation): the
     * leaf (null: before the first entry) and the file's last entry it holds against (a later write ends it).
     */
    leaf: Type.Optional(Type.Object({ leafId: NullableString, lastEntryId: NullableString }, exact)),
  },
  { title: "RuntimeSnapshot" },
);

const NullableTimeout = NullableNumber;
const METHOD = "is not a known extension UI method (got {json})";
const method = <M extends string>(name: M) => failsWith(Type.Literal(name), METHOD);

/** Extension UI requests forwarded from the worker. Dialogs carry a `requestId` answered by `extensionUiReply`. */
export const ExtensionUiRequest = failsWith(
  Type.Union([
    Type.Object({
      method: method("confirm"),
      requestId: NonBlank,
      title: Type.String(),
      message: Type.String(),
      timeoutMs: NullableTimeout,
    }),
    Type.Object({ method: method("select"), requestId: NonBlank, title: Type.String(), options: StringArray, timeoutMs: NullableTimeout }),
    Type.Object({
      method: method("input"),
      requestId: NonBlank,
      title: Type.String(),
      placeholder: NullableString,
      timeoutMs: NullableTimeout,
    }),
    Type.Object({
      method: method("editor"),
      requestId: NonBlank,
      title: Type.String(),
      prefill: NullableString,
      timeoutMs: NullableTimeout,
    }),
    /** A dialog ended without a reply (timeout, abort signal, runtime replaced or disposed). */
    Type.Object({ method: method("dismiss"), requestId: NonBlank, reason: literals(["timeout", "aborted", "replaced", "disposed"]) }),
    Type.Object({ method: method("notify"), message: Type.String(), level: literals(["info", "warning", "error"]) }),
    Type.Object({ method: method("setStatus"), key: Type.String(), text: NullableString }),
    Type.Object({
      method: method("setWidget"),
      key: Type.String(),
      lines: Type.Union([StringArray, Type.Null()]),
      placement: Type.Union([literals(["aboveEditor", "belowEditor"]), Type.Null()]),
    }),
    Type.Object({ method: method("setTitle"), title: Type.String() }),
  ]),
  MUST_BE_OBJECT,
);

const OK_IS_BOOLEAN = "must be a boolean (got {type})";

// Trace capture writes (domain/traces/trace-records.ts), checked whole: a worker's message cannot store values the
// reads cannot answer (times outside the Date range, unknown statuses, unbounded texts).
const EpochMs = Type.Number({ minimum: 0, maximum: 8.64e15 });
const TraceText = Type.Union([Type.String({ maxLength: CAPTURE_FIELD_BYTES }), Type.Null()]);
const ShortText = (maxLength: number) => Type.Union([Type.String({ maxLength }), Type.Null()]);
const Count = Type.Number({ minimum: 0 });
const CaptureUsage = Type.Object(
  { inputTokens: Count, outputTokens: Count, totalTokens: Count, cost: Count },
  { additionalProperties: false },
);
const CaptureObservation = Type.Object(
  {
    id: Type.String({ minLength: 1, maxLength: 400 }),
    parentId: ShortText(400),
    type: literals(OBSERVATION_TYPES),
    name: Type.String({ maxLength: 1000 }),
    startMs: EpochMs,
    endMs: Type.Union([EpochMs, Type.Null()]),
    level: literals(TRACE_LEVELS),
    status: literals(TRACE_STATUSES),
    statusMessage: ShortText(CAPTURE_FIELD_BYTES),
    model: ShortText(1000),
    input: TraceText,
    output: TraceText,
    usage: CaptureUsage,
    toolCallId: ShortText(400),
    entryId: ShortText(400),
    metadata: Type.Record(Type.String(), Type.Unknown()),
  },
  { additionalProperties: false },
);
const CapturePatch = Type.Object(
  {
    startMs: Type.Optional(EpochMs),
    endMs: Type.Optional(Type.Union([EpochMs, Type.Null()])),
    status: Type.Optional(literals(TRACE_STATUSES)),
    level: Type.Optional(literals(TRACE_LEVELS)),
    statusMessage: Type.Optional(ShortText(CAPTURE_FIELD_BYTES)),
    name: Type.Optional(Type.String({ maxLength: 1000 })),
    input: Type.Optional(TraceText),
    output: Type.Optional(TraceText),
    model: Type.Optional(Type.String({ maxLength: 1000 })),
    userEntryId: Type.Optional(ShortText(400)),
    startEntryId: Type.Optional(ShortText(400)),
    endEntryId: Type.Optional(ShortText(400)),
    metadata: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  },
  { additionalProperties: false },
);
const CaptureWriteSchema = failsWith(
  Type.Object(
    {
      traceId: Type.String({ pattern: "^[a-zA-Z0-9_.:-]{1,160}$" }),
      trace: Type.Optional(CapturePatch),
      observations: Type.Optional(Type.Array(CaptureObservation, { maxItems: 256 })),
    },
    { additionalProperties: false },
  ),
  MUST_BE_OBJECT,
);
const _captureWrite: SameType<Static<typeof CaptureWriteSchema>, CaptureWrite> = true;
void _captureWrite;

export const WorkerMessages = {
  ready: Type.Object({ type: Type.Literal("ready"), protocolVersion: Type.Number(), pid: Type.Number() }),
  reply: Type.Union([
    Type.Object({
      type: Type.Literal("reply"),
      id: MessageId,
      ok: failsWith(Type.Literal(true), OK_IS_BOOLEAN),
      result: Type.Optional(Type.Unknown()),
    }),
    Type.Object({ type: Type.Literal("reply"), id: MessageId, ok: failsWith(Type.Literal(false), OK_IS_BOOLEAN), error: Type.String() }),
  ]),
  /**
   * A session event as live-event-encoder.ts sends it: pi's `AgentSessionEvent`s without the copies of content
   * the transcript carries, and domain/live/live-stream.ts's `stream_delta`, `stream_snapshot` and
   * `bash_execution_start`/`_end` (pi's `message_update` and `tool_execution_update` never travel).
   */
  event: Type.Object({
    type: Type.Literal("event"),
    event: failsWith(Type.Unsafe<{ type: string } & Record<string, unknown>>(Type.Object({ type: Type.String() })), MUST_BE_OBJECT),
  }),
  snapshot: Type.Object({ type: Type.Literal("snapshot"), snapshot: RuntimeSnapshot }),
  extension_ui: Type.Object({ type: Type.Literal("extension_ui"), request: ExtensionUiRequest }),
  extension_error: Type.Object({
    type: Type.Literal("extension_error"),
    error: failsWith(
      Type.Object({ extensionPath: Type.String(), event: Type.String(), error: Type.String(), stack: Type.Optional(Type.String()) }),
      MUST_BE_OBJECT,
    ),
  }),
  /** Trace capture: the writes the worker's capture fold made of one session event (domain/traces/trace-capture.ts). */
  trace: Type.Object({ type: Type.Literal("trace"), writes: Type.Array(CaptureWriteSchema, { maxItems: 64 }) }),
  heartbeat: Type.Object({ type: Type.Literal("heartbeat"), seq: Type.Number(), at: Type.Number(), isStreaming: Type.Boolean() }),
  fault: Type.Object({ type: Type.Literal("fault"), kind: literals(FAULT_KINDS), message: Type.String(), fatal: Type.Boolean() }),
  faux_turn_request: Type.Object({ type: Type.Literal("faux_turn_request"), id: MessageId, latestUserText: Type.String() }),
};

const _notice: SameType<Static<typeof RuntimeNotice>, RuntimeNoticeType> = true;
void _notice;

/**
 * The events socket (WS /api/pi/events, domain/live/live-messages.ts describes the protocol): every message in
 * both directions as a schema.
 *
 * Server → client: `{ type, data?, seq, epoch? }`; `SERVER_MESSAGES` maps each type to its `data` schema (null:
 * no data). Client → server: the heartbeat reply and a focus change (`ClientMessage`, at most 1 KiB each).
 * The server parses what clients send with `parseClientMessage`; the test suite checks every message the
 * server sends with `serverMessageFailure` (the socket test fixtures), as it checks HTTP answers.
 */
import { Type, type Static, type TSchema } from "typebox";
import {
  PONG_TEXT,
  type HelloData as HelloDataType,
  type SessionLoadingData as SessionLoadingDataType,
  type SessionUnavailableData as SessionUnavailableDataType,
} from "../live/live-messages.ts";
import type {
  SessionIndexStatus as SessionIndexStatusType,
  SessionListDelta as SessionListDeltaType,
  SessionListSnapshot as SessionListSnapshotType,
} from "../live/session-list.ts";
import { contractChecker, type ContractChecker } from "./contract-check.ts";
import { ActiveSnapshot, SessionSummary } from "./http-common.ts";
import { domainObject, literals, type SameType } from "./schema-kit.ts";

export const HelloData = Type.Object({ stream: Type.String(), resumed: Type.Boolean(), latestSeq: Type.Integer({ minimum: 0 }) });
export const SessionLoadingData = Type.Object({ sessionId: Type.String(), loadedBytes: Type.Number(), totalBytes: Type.Number() });
export const SessionUnavailableData = Type.Object({
  sessionId: Type.String(),
  reason: literals(["not-found", "unsaved", "gone", "error"]),
  message: Type.String(),
});

export const SessionIndexStatus = Type.Object({
  filesOnDisk: Type.Integer(),
  indexed: Type.Integer(),
  invalid: Type.Integer(),
  invalidPaths: Type.Unsafe<readonly string[]>(Type.Array(Type.String())),
  ready: Type.Boolean(),
  verified: Type.Boolean(),
});
const SessionRow = Type.Object({ ...SessionSummary.properties, runtimeOnly: Type.Optional(Type.Literal(true)) });
export const SessionListSnapshot = Type.Object({ revision: Type.Integer(), sessions: Type.Array(SessionRow), status: SessionIndexStatus });
export const SessionListDelta = Type.Object({
  revision: Type.Integer(),
  upserted: Type.Array(SessionRow),
  removed: Type.Array(Type.String()),
  status: SessionIndexStatus,
});

const _hello: SameType<Static<typeof HelloData>, HelloDataType> = true;
const _loading: SameType<Static<typeof SessionLoadingData>, SessionLoadingDataType> = true;
const _unavailable: SameType<Static<typeof SessionUnavailableData>, SessionUnavailableDataType> = true;
const _status: SameType<Static<typeof SessionIndexStatus>, SessionIndexStatusType> = true;
const _list: SameType<Static<typeof SessionListSnapshot>, SessionListSnapshotType> = true;
const _listDelta: SameType<Static<typeof SessionListDelta>, SessionListDeltaType> = true;
void [_hello, _loading, _unavailable, _status, _list, _listDelta];

/** A transcript entry in its wire form (domain/transcript/transcript-wire.ts). */
const WireEntry = Type.Object({ id: Type.String(), type: Type.String() }, { additionalProperties: true });
const DetailSession = Type.Object({ id: Type.String(), cwd: Type.String(), sessionFile: Type.String() }, { additionalProperties: true });
const LeafId = Type.Optional(Type.Union([Type.String(), Type.Null()]));

export const SessionSnapshotData = Type.Object({
  sessionId: Type.String(),
  revision: Type.Integer(),
  path: Type.String(),
  session: Type.Optional(DetailSession),
  leafId: LeafId,
  offset: Type.Integer({ minimum: 0 }),
  total: Type.Integer({ minimum: 0 }),
  entries: Type.Array(WireEntry),
  done: Type.Boolean(),
});

export const SessionDeltaData = Type.Object({
  sessionId: Type.String(),
  base: Type.Integer(),
  revision: Type.Integer(),
  session: Type.Optional(DetailSession),
  leafId: LeafId,
  transcript: Type.Optional(
    Type.Object({
      replaced: Type.Optional(Type.Array(Type.Tuple([Type.Integer({ minimum: 0 }), WireEntry]))),
      truncate: Type.Optional(Type.Integer({ minimum: 0 })),
      appended: Type.Optional(Type.Array(WireEntry)),
    }),
  ),
});

/** A pi session event as the runtime publishes it (pi's own shape; `stream_delta` is Leyline's). */
const RuntimeEvent = domainObject<{ type: string } & Record<string, unknown>>(
  "RuntimeEvent",
  { type: Type.String() },
  "A pi session event (agent_start, message_end, tool_execution_start, …) or Leyline's stream_delta / stream_snapshot.",
);

/** Server → client: each type and the schema of its `data` (null: the message has none). */
export const SERVER_MESSAGES = {
  hello: HelloData,
  ping: null,
  runtime_roster: Type.Object({ sessionIds: Type.Array(Type.String()) }),
  runtime_removed: Type.Object({ id: Type.String() }),
  active_session: ActiveSnapshot,
  extension_ui: Type.Object({ activeSessionId: Type.String(), state: Type.Object({}, { additionalProperties: true }) }),
  extension_error: Type.Object({
    activeSessionId: Type.String(),
    error: Type.Object({ extensionPath: Type.String(), event: Type.String(), error: Type.String(), stack: Type.Optional(Type.String()) }),
  }),
  runtime_event: Type.Object({ activeSessionId: Type.String(), event: RuntimeEvent, handoffId: Type.Optional(Type.String()) }),
  session_list: SessionListSnapshot,
  session_list_delta: SessionListDelta,
  session_loading: SessionLoadingData,
  session_snapshot: SessionSnapshotData,
  session_delta: SessionDeltaData,
  session_unavailable: SessionUnavailableData,
  trace_updated: Type.Object({ traceId: Type.String(), sessionId: Type.String(), revision: Type.Number(), activeSessionId: Type.String() }),
  trace_config: Type.Object({ enabled: Type.Boolean(), error: Type.Optional(Type.String()) }),
} as const satisfies Record<string, TSchema | null>;

export type ServerMessageType = keyof typeof SERVER_MESSAGES;

const Envelope = Type.Object({
  type: literals(Object.keys(SERVER_MESSAGES) as ServerMessageType[]),
  seq: Type.Integer({ minimum: 0 }),
  epoch: Type.Optional(Type.String()),
  data: Type.Optional(Type.Unknown()),
});

/** Client → server. */
export const ClientMessage = Type.Union([
  Type.Object({ type: Type.Literal("pong") }),
  Type.Object({ type: Type.Literal("focus"), sessionId: Type.String() }),
]);
export type ClientMessage = Static<typeof ClientMessage>;

let clientChecker: ContractChecker<typeof ClientMessage> | null = null;

/** A client's message, or null when it is none (unknown messages are ignored, as the spec says). */
export function parseClientMessage(text: string): ClientMessage | null {
  // The heartbeat reply is compared as text before anything is parsed.
  if (text === PONG_TEXT) return { type: "pong" };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  clientChecker ??= contractChecker(ClientMessage, "message");
  return clientChecker.is(value) ? value : null;
}

let envelopeChecker: ContractChecker<typeof Envelope> | null = null;
const dataCheckers = new Map<ServerMessageType, ContractChecker<TSchema>>();

/** Why a message the server sent breaks the contract (its envelope or its data), or null when it holds. */
export function serverMessageFailure(message: unknown): string | null {
  envelopeChecker ??= contractChecker(Envelope, "message");
  const envelope = envelopeChecker.failure(message);
  if (envelope !== null) return envelope.message;
  const { type, data } = message as Static<typeof Envelope>;
  const schema: TSchema | null = SERVER_MESSAGES[type];
  if (schema === null) return data === undefined ? null : `${type} carries no data`;
  let checker = dataCheckers.get(type);
  if (checker === undefined) dataCheckers.set(type, (checker = contractChecker(schema, `${type}.data`)));
  return checker.failure(data)?.message ?? null;
}

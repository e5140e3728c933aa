/**
 * The trace routes (spec "Trace routes", "Trace errors"): capture configuration, the list, one trace with paged
 * observations and scores, and the bookmark. Query values stay strings here: their rules and the spec's messages
 * ("page must be a positive integer", "Invalid trace status", …) are domain/traces/trace-read.ts; any other
 * malformed request (a repeated parameter, a body that is not an object, unknown body fields) answers 400
 * "Invalid trace request" (api/traces.routes.ts).
 */
import { Type, type Static } from "typebox";
import {
  OBSERVATION_TYPES,
  TRACE_LEVELS,
  TRACE_STATUSES,
  type Trace as TraceType,
  type TraceConfig as TraceConfigType,
  type TraceList as TraceListType,
} from "../traces/trace-types.ts";
import { defineRoute } from "./http-route.ts";
import { failsWith, literals, type SameType } from "./schema-kit.ts";

const tags = ["traces"];

const NullableString = Type.Union([Type.String(), Type.Null()]);

const ReadTruncation = Type.Object(
  {
    fields: Type.Optional(Type.Array(Type.String())),
    fieldBytes: Type.Optional(Type.Record(Type.String(), Type.Number())),
    observations: Type.Optional(Type.Boolean()),
    scores: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

const Usage = Type.Object(
  { inputTokens: Type.Number(), outputTokens: Type.Number(), totalTokens: Type.Number(), cost: Type.Number() },
  { additionalProperties: false },
);

const SummaryMetadataFields = {
  cwd: NullableString,
  sessionName: NullableString,
  sessionFile: NullableString,
  branchId: NullableString,
  startEntryId: NullableString,
  endEntryId: NullableString,
  userEntryId: NullableString,
  parentSessionFile: NullableString,
  parent: Type.Object({ traceId: NullableString, sessionId: NullableString, toolCallId: NullableString }, { additionalProperties: false }),
};

const SummaryFields = {
  id: Type.String(),
  source: Type.Literal("pi"),
  status: literals(TRACE_STATUSES),
  revision: Type.Number(),
  name: Type.String(),
  timestamp: Type.String({ description: "ISO 8601 start." }),
  environment: Type.String(),
  userId: Type.String(),
  sessionId: Type.String(),
  latency: Type.Number({ description: "Seconds." }),
  totalTokens: Type.Number(),
  inputTokens: Type.Number(),
  outputTokens: Type.Number(),
  cost: Type.Number(),
  level: Type.String(),
  tags: Type.Array(Type.String()),
  bookmarked: Type.Boolean(),
  model: Type.String(),
  version: Type.String(),
  readTruncation: Type.Optional(ReadTruncation),
};

export const TraceSummary = Type.Object(
  { ...SummaryFields, metadata: Type.Object(SummaryMetadataFields, { additionalProperties: false }) },
  { title: "TraceSummary", additionalProperties: false },
);

const Observation = Type.Object(
  {
    id: Type.String(),
    parentId: NullableString,
    name: Type.String(),
    type: literals(OBSERVATION_TYPES),
    startTime: Type.Number({ description: "Seconds from the trace start." }),
    duration: Type.Union([Type.Number(), Type.Null()], { description: "Seconds; null while running." }),
    level: literals(TRACE_LEVELS),
    status: literals(TRACE_STATUSES),
    model: NullableString,
    input: NullableString,
    output: NullableString,
    inputTokens: Type.Number(),
    outputTokens: Type.Number(),
    cost: Type.Number(),
    metadata: Type.Record(Type.String(), Type.Unknown()),
    readTruncation: Type.Optional(ReadTruncation),
  },
  { title: "TraceObservation", additionalProperties: false },
);

const Score = Type.Object(
  {
    id: Type.String(),
    traceName: Type.String(),
    name: Type.String(),
    value: Type.Union([Type.Number(), Type.String(), Type.Null()]),
    comment: NullableString,
    source: Type.String(),
    timestamp: Type.String(),
    dataType: literals(["NUMERIC", "BOOLEAN", "CATEGORICAL"]),
    readTruncation: Type.Optional(ReadTruncation),
  },
  { title: "TraceScore", additionalProperties: false },
);

const CollectionPage = Type.Object(
  {
    total: Type.Number(),
    offset: Type.Number(),
    limit: Type.Number(),
    nextOffset: Type.Union([Type.Number(), Type.Null()]),
    truncated: Type.Boolean(),
  },
  { additionalProperties: false },
);

const Child = Type.Object(
  {
    traceId: Type.String(),
    sessionId: Type.String(),
    toolCallId: NullableString,
    name: Type.String(),
    status: literals(TRACE_STATUSES),
    usage: Usage,
  },
  { additionalProperties: false },
);

export const Trace = Type.Object(
  {
    ...SummaryFields,
    input: NullableString,
    output: NullableString,
    metadata: Type.Object(
      {
        ...SummaryMetadataFields,
        usage: Type.Object({ own: Usage, descendants: Usage, total: Usage }, { additionalProperties: false }),
        children: Type.Array(Child),
      },
      {
        additionalProperties: true,
        description: "The summary's metadata, usage (own, descendants counted once, total), child runs, capture fields.",
      },
    ),
    observations: Type.Array(Observation),
    scores: Type.Array(Score),
    pagination: Type.Object({ observations: CollectionPage, scores: CollectionPage }, { additionalProperties: false }),
  },
  { title: "Trace", additionalProperties: false },
);

export const TraceList = Type.Object(
  { traces: Type.Array(TraceSummary), total: Type.Number(), page: Type.Number(), limit: Type.Number() },
  { title: "TraceList", additionalProperties: false },
);

export const TraceConfig = Type.Object(
  { enabled: Type.Boolean(), error: Type.Optional(Type.String()) },
  { title: "TraceConfig", additionalProperties: false },
);

const _list: SameType<Static<typeof TraceList>, TraceListType> = true;
const _config: SameType<Static<typeof TraceConfig>, TraceConfigType> = true;
void [_list, _config];
// The detail's metadata is open (capture fields), so its type is checked one way: every Trace fits the schema.
const _trace: TraceType extends Static<typeof Trace> ? true : false = true;
void _trace;

const QueryString = Type.Optional(Type.String());

export const getTraceConfig = defineRoute("GET", "/api/pi/traces/config", {
  summary: "Whether runs on this backend are captured",
  description: "An absent setting means on. A configuration-read failure answers 200 with enabled: false and the error.",
  tags,
  response: { 200: TraceConfig },
});

export const putTraceConfig = defineRoute("PUT", "/api/pi/traces/config", {
  summary: "Turn capture on or off for new runs",
  description: "Existing traces stay; a capture in progress goes on. Broadcasts trace_config on the events socket.",
  tags,
  body: Type.Object({ enabled: failsWith(Type.Boolean(), "enabled must be a boolean") }, { additionalProperties: false }),
  response: { 200: TraceConfig },
});

export const listTraces = defineRoute("GET", "/api/pi/traces", {
  summary: "Captured runs, newest first, filtered, searched and paged",
  description:
    "q: case-insensitive substring terms (whitespace-separated, each must match id, name, user id, session id, input, output, model, " +
    "session name, cwd or a tag), at most 2,048 characters and 32 terms. page ≥ 1 (default 1), limit ≥ 1 (default 50, clamped to 200).",
  tags,
  querystring: Type.Object({
    sessionId: QueryString,
    cwd: QueryString,
    q: QueryString,
    status: QueryString,
    page: QueryString,
    limit: QueryString,
  }),
  response: { 200: TraceList },
});

const TraceIdParams = Type.Object({ id: Type.String() });

export const getTrace = defineRoute("GET", "/api/pi/traces/:id", {
  summary: "One run: input, output, metadata (usage with descendants, child runs), a page of observations and scores",
  description:
    "Offsets ≥ 0 (default 0), limits ≥ 1 (default 200, clamped to 200). Text fields are clipped to 32 KiB (readTruncation); " +
    "collections share an 8 MiB read budget (up to 2 MiB for scores). Follow pagination.*.nextOffset.",
  tags,
  params: TraceIdParams,
  querystring: Type.Object({
    observationOffset: QueryString,
    observationLimit: QueryString,
    scoreOffset: QueryString,
    scoreLimit: QueryString,
  }),
  response: { 200: Type.Object({ trace: Trace }, { additionalProperties: false }) },
});

export const patchTrace = defineRoute("PATCH", "/api/pi/traces/:id", {
  summary: "Bookmark or unbookmark a run",
  description: "Changes only the bookmark (and the revision); publishes trace_updated. Answers the first observation and score pages.",
  tags,
  params: TraceIdParams,
  body: Type.Object({ bookmarked: failsWith(Type.Boolean(), "bookmarked must be a boolean") }, { additionalProperties: false }),
  response: { 200: Type.Object({ trace: Trace }, { additionalProperties: false }) },
});

export const TRACE_ROUTES = [getTraceConfig, putTraceConfig, listTraces, getTrace, patchTrace] as const;

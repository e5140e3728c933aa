/**
 * The OTLP export of traces: when the standard OpenTelemetry exporter variables are set, every trace Leyline
 * captures also goes out as OpenTelemetry spans (GenAI semantic conventions) to a collector such as Langfuse, Phoenix
 * or Jaeger. The trace service calls `record()` with each commit (the trace and the observations it changed);
 * spans are live: a record's span starts when it is first seen (at the record's own start time) and ends when the
 * record has an end time (a record first seen ended is started and ended at once).
 *
 * Span model: one `invoke_agent <agent>` span per trace; a child run (a subagent) hangs under its parent trace's
 * `execute_tool` span for the tool call that started it when that span is remembered, else under the parent trace's
 * span, else it is a root. A GENERATION is a `chat <model>` span, a TOOL an `execute_tool <name>` span (under the span
 * its `parentId` names, else the trace span), an EVENT a span event on the trace span.
 *
 * Configuration (from the env object given, never from globals): OTEL_EXPORTER_OTLP_TRACES_ENDPOINT (used as is) or
 * OTEL_EXPORTER_OTLP_ENDPOINT (+ "/v1/traces"); OTEL_EXPORTER_OTLP_HEADERS and _TRACES_HEADERS (merged, the specific
 * ones winning); OTEL_EXPORTER_OTLP_(TRACES_)PROTOCOL "http/protobuf" (default) or "http/json" ("grpc" is not
 * supported: http/protobuf with a warning); OTEL_EXPORTER_OTLP_(TRACES_)TIMEOUT; OTEL_SERVICE_NAME (default
 * "leyline") and OTEL_RESOURCE_ATTRIBUTES; OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER without "otlp" turn it off.
 * The OTel exporter itself still reads a few variables from process.env (compression, TLS certificate files, and
 * headers as a fallback under ours); the batch processor reads OTEL_BSP_* and the provider OTEL_TRACES_SAMPLER.
 *
 * Privacy promise: unless OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true, no prompt, model output, tool
 * argument, tool result or tool error text leaves the machine: spans carry names, models, ids, times, token counts,
 * costs, statuses, the session file path and the working directory only (plus the trace's and a model call's error
 * message, which are the agent's and the provider's, clipped to 1 KiB). With the variable set, the texts go out in
 * gen_ai.input.messages / gen_ai.output.messages (JSON) and gen_ai.tool.call.arguments / .result, each at most 16 KiB.
 *
 * Rules it keeps: no global tracer provider, context manager or error handler is registered (contexts are passed
 * explicitly from ROOT_CONTEXT, so an unrelated global span never becomes a parent); record() never throws; memory is
 * bounded (a trace's spans are forgotten when it ends, at most 1,000 traces are live, and only span contexts of the
 * last 1,000 ended traces and tool calls are kept, for parenting child runs); export failures reach `warn` at most
 * once a minute.
 */
import {
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace as traceApi,
  type Attributes,
  type Context,
  type Span,
  type SpanContext,
  type Tracer,
} from "@opentelemetry/api";
import { ExportResultCode, parseKeyPairsIntoRecord, type ExportResult } from "@opentelemetry/core";
import { OTLPTraceExporter as JsonTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { OTLPTraceExporter as ProtobufTraceExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { defaultResource, resourceFromAttributes } from "@opentelemetry/resources";
import { BasicTracerProvider, BatchSpanProcessor, type ReadableSpan, type SpanExporter } from "@opentelemetry/sdk-trace-base";
import { ATTR_ERROR_TYPE, ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION, ERROR_TYPE_VALUE_OTHER } from "@opentelemetry/semantic-conventions";
import { clipUtf8 } from "../../domain/utf8-text.ts";
import type { ObservationRecord, TraceRecord } from "../../domain/traces/trace-records.ts";

/** One commit of the trace service: the trace and the observations changed in it (whole records). */
export interface TraceCommit {
  trace: TraceRecord;
  observations: ObservationRecord[];
}

export type OtlpProtocol = "http/protobuf" | "http/json";

export interface OtlpExport {
  record(commit: TraceCommit): void;
  /** Exports every ended span now; failures go to `warn` (never rejects). */
  flush(): Promise<void>;
  /** Ends the spans still running (marked leyline.export.incomplete), exports everything and stops. */
  shutdown(): Promise<void>;
  readonly endpoint: string;
  readonly protocol: OtlpProtocol;
}

export interface OtlpExportOptions {
  /** Configuration problems and export failures (at most once a minute); console.warn by default. */
  warn?: (message: string) => void;
  /** Leyline's version (resource attribute service.version, instrumentation scope version). */
  version?: string;
}

/**
 * The incubating GenAI attribute names and values this module writes, copied from @opentelemetry/semantic-conventions
 * 1.45.0's "incubating" entry point: its README asks runtime code to copy unstable definitions rather than import
 * them (they may change in a minor version). The keys are the package's export names; a test checks the values.
 */
export const GEN_AI_CONVENTIONS = {
  ATTR_GEN_AI_OPERATION_NAME: "gen_ai.operation.name",
  ATTR_GEN_AI_PROVIDER_NAME: "gen_ai.provider.name",
  ATTR_GEN_AI_AGENT_NAME: "gen_ai.agent.name",
  ATTR_GEN_AI_CONVERSATION_ID: "gen_ai.conversation.id",
  ATTR_GEN_AI_REQUEST_MODEL: "gen_ai.request.model",
  ATTR_GEN_AI_RESPONSE_MODEL: "gen_ai.response.model",
  ATTR_GEN_AI_RESPONSE_FINISH_REASONS: "gen_ai.response.finish_reasons",
  ATTR_GEN_AI_USAGE_INPUT_TOKENS: "gen_ai.usage.input_tokens",
  ATTR_GEN_AI_USAGE_OUTPUT_TOKENS: "gen_ai.usage.output_tokens",
  ATTR_GEN_AI_TOOL_NAME: "gen_ai.tool.name",
  ATTR_GEN_AI_TOOL_CALL_ID: "gen_ai.tool.call.id",
  ATTR_GEN_AI_TOOL_TYPE: "gen_ai.tool.type",
  ATTR_GEN_AI_TOOL_CALL_ARGUMENTS: "gen_ai.tool.call.arguments",
  ATTR_GEN_AI_TOOL_CALL_RESULT: "gen_ai.tool.call.result",
  ATTR_GEN_AI_INPUT_MESSAGES: "gen_ai.input.messages",
  ATTR_GEN_AI_OUTPUT_MESSAGES: "gen_ai.output.messages",
  GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT: "invoke_agent",
  GEN_AI_OPERATION_NAME_VALUE_CHAT: "chat",
  GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL: "execute_tool",
} as const;
const G = GEN_AI_CONVENTIONS;

/** Content attributes are clipped to this many UTF-8 bytes. */
export const CONTENT_LIMIT_BYTES = 16 * 1024;
const STATUS_MESSAGE_LIMIT_BYTES = 1024;
const REMEMBERED_CONTEXTS = 1_000;
const MAX_LIVE_TRACES = 1_000;
const WARN_INTERVAL_MS = 60_000;
const DEFAULT_SERVICE_NAME = "leyline";
const SCOPE_NAME = "leyline.traces";

/** The OTLP export, or null when no endpoint is configured or the SDK or trace export is disabled. */
export function createOtlpExport(env: NodeJS.ProcessEnv, options: OtlpExportOptions = {}): OtlpExport | null {
  const warn = safeWarn(options.warn ?? ((message) => console.warn(message)));
  try {
    const config = readExportConfig(env, warn);
    return config === null ? null : new OtlpTraceExport(config, warn, options.version);
  } catch (error) {
    warn(`OTLP trace export is off: ${errorMessage(error)}`);
    return null;
  }
}

// ── Configuration ────────────────────────────────────────────────────────────────────────────────────────────────

interface ExportConfig {
  endpoint: string;
  protocol: OtlpProtocol;
  headers: Record<string, string>;
  timeoutMillis: number | undefined;
  serviceName: string;
  resourceAttributes: Record<string, string>;
  captureContent: boolean;
}

function readExportConfig(env: NodeJS.ProcessEnv, warn: (message: string) => void): ExportConfig | null {
  if (envString(env, "OTEL_SDK_DISABLED")?.toLowerCase() === "true") return null;
  const endpoint = resolveEndpoint(env, warn);
  if (endpoint === null || !otlpTracesExporterSelected(env, warn)) return null;
  const resourceAttributes = parseKeyPairsIntoRecord(envString(env, "OTEL_RESOURCE_ATTRIBUTES"));
  return {
    endpoint,
    protocol: resolveProtocol(env, endpoint, warn),
    headers: {
      ...parseKeyPairsIntoRecord(envString(env, "OTEL_EXPORTER_OTLP_HEADERS")),
      ...parseKeyPairsIntoRecord(envString(env, "OTEL_EXPORTER_OTLP_TRACES_HEADERS")),
    },
    timeoutMillis: positiveNumber(envString(env, "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT") ?? envString(env, "OTEL_EXPORTER_OTLP_TIMEOUT")),
    serviceName: envString(env, "OTEL_SERVICE_NAME") ?? resourceAttributes[ATTR_SERVICE_NAME] ?? DEFAULT_SERVICE_NAME,
    resourceAttributes,
    captureContent: envString(env, "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT")?.toLowerCase() === "true",
  };
}

/** A variable's trimmed value; unset and blank are the same (as the OTel SDK reads them). */
function envString(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === "" ? undefined : value;
}

function positiveNumber(text: string | undefined): number | undefined {
  const value = text === undefined ? Number.NaN : Number(text);
  return Number.isFinite(value) && value > 0 ? value : undefined;
}

/** A URL as logs may show it: no user, password, query or fragment (they may carry credentials). */
export function redactedUrl(url: URL): string {
  return `${url.protocol}//${url.host}${url.pathname}`;
}

/** The signal-specific endpoint as is, else the base endpoint + "v1/traces"; null when neither is set or valid. */
function resolveEndpoint(env: NodeJS.ProcessEnv, warn: (message: string) => void): string | null {
  const specific = envString(env, "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT");
  const base = envString(env, "OTEL_EXPORTER_OTLP_ENDPOINT");
  const name = specific !== undefined ? "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT" : "OTEL_EXPORTER_OTLP_ENDPOINT";
  const raw = specific ?? (base === undefined ? undefined : `${base.endsWith("/") ? base : `${base}/`}v1/traces`);
  if (raw === undefined) return null;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    warn(`OTLP trace export is off: ${name} is not a URL`);
    return null;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    warn(`OTLP trace export is off: ${name} must be an http:// or https:// URL (${redactedUrl(url)})`);
    return null;
  }
  return url.href;
}

/** OTEL_TRACES_EXPORTER unset, or a list naming "otlp". */
function otlpTracesExporterSelected(env: NodeJS.ProcessEnv, warn: (message: string) => void): boolean {
  const raw = envString(env, "OTEL_TRACES_EXPORTER");
  const names = (raw ?? "")
    .split(",")
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== "");
  if (names.length === 0 || names.includes("otlp")) return true;
  if (names.some((name) => name !== "none"))
    warn(`OTLP trace export is off: OTEL_TRACES_EXPORTER=${raw} (Leyline exports traces over OTLP only)`);
  return false;
}

function resolveProtocol(env: NodeJS.ProcessEnv, endpoint: string, warn: (message: string) => void): OtlpProtocol {
  const raw = envString(env, "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL") ?? envString(env, "OTEL_EXPORTER_OTLP_PROTOCOL");
  const protocol = raw?.toLowerCase();
  if (protocol === undefined || protocol === "http/protobuf") return "http/protobuf";
  if (protocol === "http/json") return "http/json";
  if (protocol === "grpc") {
    warn(
      `OTLP over gRPC is not supported: exporting traces with http/protobuf to ${redactedUrl(new URL(endpoint))} (a gRPC-only port such as 4317 will refuse it; use 4318)`,
    );
  } else {
    warn(`Unknown OTLP protocol "${raw}": exporting traces with http/protobuf to ${redactedUrl(new URL(endpoint))}`);
  }
  return "http/protobuf";
}

// ── The export ───────────────────────────────────────────────────────────────────────────────────────────────────

/** A trace whose span is open, with what its observations need while it runs. */
interface LiveTrace {
  span: Span;
  /** Every observation span's context (ended ones too): a TOOL names its generation by id. */
  contexts: Map<string, SpanContext>;
  /** Observation spans still running. */
  open: Map<string, Span>;
  /** EVENT observations already added to the trace span. */
  events: Set<string>;
  /** The latest capture time (where an evicted or shut-down trace's span ends). */
  updatedMs: number;
}

class OtlpTraceExport implements OtlpExport {
  readonly endpoint: string;
  readonly protocol: OtlpProtocol;
  readonly #captureContent: boolean;
  readonly #provider: BasicTracerProvider;
  readonly #tracer: Tracer;
  /** Open traces by id, least recently updated first. */
  readonly #live = new Map<string, LiveTrace>();
  /** Ended traces' span contexts: a late child run still finds its parent, and a re-commit changes nothing. */
  readonly #endedTraces = new BoundedMap<SpanContext>(REMEMBERED_CONTEXTS);
  /** TOOL span contexts by `${traceId}:${toolCallId}`, the anchors of child runs. */
  readonly #toolContexts = new BoundedMap<SpanContext>(REMEMBERED_CONTEXTS);
  readonly #warnExport: (message: string) => void;
  readonly #warnRecord: (message: string) => void;
  #closed = false;

  constructor(config: ExportConfig, warn: (message: string) => void, version: string | undefined) {
    // Shown in warnings: without credentials (the exporter gets the URL as configured).
    this.endpoint = redactedUrl(new URL(config.endpoint));
    this.protocol = config.protocol;
    this.#captureContent = config.captureContent;
    this.#warnExport = rateLimited(warn, WARN_INTERVAL_MS);
    this.#warnRecord = rateLimited(warn, WARN_INTERVAL_MS);
    const exporter = new ReportingExporter(createExporter(config), (error) =>
      this.#warnExport(`OTLP trace export to ${this.endpoint} failed: ${errorMessage(error)} (repeats within a minute are not reported)`),
    );
    const resource = defaultResource().merge(
      resourceFromAttributes({
        ...config.resourceAttributes,
        [ATTR_SERVICE_NAME]: config.serviceName,
        ...(version === undefined ? {} : { [ATTR_SERVICE_VERSION]: version }),
      }),
    );
    this.#provider = new BasicTracerProvider({ resource, spanProcessors: [new BatchSpanProcessor(exporter)] });
    this.#tracer = this.#provider.getTracer(SCOPE_NAME, version);
  }

  record(commit: TraceCommit): void {
    if (this.#closed) return;
    try {
      this.#apply(commit);
    } catch (error) {
      this.#warnRecord(`OTLP trace export skipped an update of trace ${commit?.trace?.id}: ${errorMessage(error)}`);
    }
  }

  async flush(): Promise<void> {
    try {
      await this.#provider.forceFlush();
    } catch (error) {
      this.#warnExport(`OTLP trace export to ${this.endpoint} failed: ${errorMessage(error)} (repeats within a minute are not reported)`);
    }
  }

  async shutdown(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const live of [...this.#live.values()]) this.#abandon(live, "leyline.export.incomplete");
    this.#live.clear();
    try {
      await this.#provider.shutdown();
    } catch (error) {
      this.#warnExport(`OTLP trace export to ${this.endpoint} failed at shutdown: ${errorMessage(error)}`);
    }
  }

  #apply({ trace, observations }: TraceCommit): void {
    if (this.#endedTraces.has(trace.id)) return;
    const live = this.#live.get(trace.id) ?? this.#startTrace(trace);
    this.#live.delete(trace.id);
    this.#live.set(trace.id, live);
    live.updatedMs = trace.updatedMs;
    for (const record of inParentOrder(observations)) this.#applyObservation(trace, live, record);
    live.span.setAttributes(traceAttributes(trace, this.#captureContent));
    if (trace.endMs !== null) this.#endTrace(trace, live);
  }

  #startTrace(trace: TraceRecord): LiveTrace {
    if (this.#live.size >= MAX_LIVE_TRACES) this.#evictOldestTrace();
    const span = this.#tracer.startSpan(
      traceSpanName(trace),
      { kind: SpanKind.INTERNAL, startTime: trace.startMs, attributes: traceAttributes(trace, this.#captureContent) },
      this.#childRunParent(trace),
    );
    return { span, contexts: new Map(), open: new Map(), events: new Set(), updatedMs: trace.updatedMs };
  }

  /** A child run's parent: its tool call's span, else its parent trace's span, else none (a root). */
  #childRunParent(trace: TraceRecord): Context {
    const { traceId, toolCallId } = trace.parent;
    if (traceId === null) return ROOT_CONTEXT;
    const anchor =
      (toolCallId === null ? undefined : this.#toolContexts.get(`${traceId}:${toolCallId}`)) ??
      this.#live.get(traceId)?.span.spanContext() ??
      this.#endedTraces.get(traceId);
    return anchor === undefined ? ROOT_CONTEXT : traceApi.setSpanContext(ROOT_CONTEXT, anchor);
  }

  #applyObservation(trace: TraceRecord, live: LiveTrace, record: ObservationRecord): void {
    if (record.type === "EVENT") return this.#addEvent(live, record);
    const open = live.open.get(record.id);
    if (open !== undefined) {
      open.updateName(observationSpanName(record));
      open.setAttributes(observationAttributes(record, this.#captureContent));
      if (record.endMs !== null) {
        live.open.delete(record.id);
        endObservationSpan(open, record, this.#captureContent);
      }
      return;
    }
    if (live.contexts.has(record.id)) return; // ended already
    const parent = (record.parentId === null ? undefined : live.contexts.get(record.parentId)) ?? live.span.spanContext();
    const span = this.#tracer.startSpan(
      observationSpanName(record),
      {
        kind: record.type === "GENERATION" ? SpanKind.CLIENT : SpanKind.INTERNAL,
        startTime: record.startMs,
        attributes: observationAttributes(record, this.#captureContent),
      },
      traceApi.setSpanContext(ROOT_CONTEXT, parent),
    );
    live.contexts.set(record.id, span.spanContext());
    if (record.type === "TOOL" && record.toolCallId !== null)
      this.#toolContexts.set(`${trace.id}:${record.toolCallId}`, span.spanContext());
    if (record.endMs === null) live.open.set(record.id, span);
    else endObservationSpan(span, record, this.#captureContent);
  }

  #addEvent(live: LiveTrace, record: ObservationRecord): void {
    if (live.events.has(record.id)) return;
    live.events.add(record.id);
    live.span.addEvent(record.name, eventAttributes(record, this.#captureContent), record.startMs);
  }

  #endTrace(trace: TraceRecord, live: LiveTrace): void {
    const endMs = trace.endMs ?? trace.updatedMs;
    for (const span of live.open.values()) span.end(endMs);
    if (trace.status === "error") {
      live.span.setStatus({ code: SpanStatusCode.ERROR, message: clipStatusMessage(trace.statusMessage) });
      live.span.setAttribute(ATTR_ERROR_TYPE, ERROR_TYPE_VALUE_OTHER);
    }
    live.span.end(endMs);
    this.#forget(trace.id, live);
  }

  /** Ends a trace that never ended here (evicted or shut down) at its latest capture, marked as such. */
  #abandon(live: LiveTrace, marker: string): void {
    for (const span of live.open.values()) span.end(live.updatedMs);
    live.span.setAttribute(marker, true);
    live.span.end(live.updatedMs);
  }

  #evictOldestTrace(): void {
    const oldest = this.#live.entries().next().value;
    if (oldest === undefined) return;
    const [traceId, live] = oldest;
    this.#abandon(live, "leyline.export.evicted");
    this.#forget(traceId, live);
  }

  #forget(traceId: string, live: LiveTrace): void {
    this.#live.delete(traceId);
    this.#endedTraces.set(traceId, live.span.spanContext());
  }
}

/** An exporter that reports failed exports (the batch processor only hands them to the global error handler). */
class ReportingExporter implements SpanExporter {
  readonly #inner: SpanExporter;
  readonly #onFailure: (error: Error | undefined) => void;

  constructor(inner: SpanExporter, onFailure: (error: Error | undefined) => void) {
    this.#inner = inner;
    this.#onFailure = onFailure;
  }

  export(spans: ReadableSpan[], resultCallback: (result: ExportResult) => void): void {
    this.#inner.export(spans, (result) => {
      if (result.code !== ExportResultCode.SUCCESS) this.#onFailure(result.error);
      resultCallback(result);
    });
  }

  shutdown(): Promise<void> {
    return this.#inner.shutdown();
  }

  forceFlush(): Promise<void> {
    return this.#inner.forceFlush?.() ?? Promise.resolve();
  }
}

/** The exporter for the protocol, configured from our env object (url and headers passed explicitly). */
function createExporter(config: ExportConfig): SpanExporter {
  const options = { url: config.endpoint, headers: config.headers, timeoutMillis: config.timeoutMillis };
  return config.protocol === "http/json" ? new JsonTraceExporter(options) : new ProtobufTraceExporter(options);
}

// ── Span names and attributes ────────────────────────────────────────────────────────────────────────────────────

function agentName(trace: TraceRecord): string {
  return trace.agent ?? "pi";
}

function traceSpanName(trace: TraceRecord): string {
  return `${G.GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT} ${agentName(trace)}`;
}

function observationSpanName(record: ObservationRecord): string {
  if (record.type === "GENERATION") return `${G.GEN_AI_OPERATION_NAME_VALUE_CHAT} ${splitModel(record.model).model ?? record.name}`;
  return `${G.GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL} ${record.name}`;
}

/** "provider/id" → its parts (an id may hold more slashes: "openrouter/anthropic/claude"); "" → nothing. */
function splitModel(model: string | null): { provider: string | undefined; model: string | undefined } {
  if (model === null || model === "") return { provider: undefined, model: undefined };
  const slash = model.indexOf("/");
  if (slash <= 0 || slash === model.length - 1) return { provider: undefined, model };
  return { provider: model.slice(0, slash), model: model.slice(slash + 1) };
}

function traceAttributes(trace: TraceRecord, captureContent: boolean): Attributes {
  const { provider, model } = splitModel(trace.model);
  return {
    [G.ATTR_GEN_AI_OPERATION_NAME]: G.GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT,
    [G.ATTR_GEN_AI_AGENT_NAME]: agentName(trace),
    [G.ATTR_GEN_AI_CONVERSATION_ID]: trace.sessionId,
    [G.ATTR_GEN_AI_PROVIDER_NAME]: provider,
    [G.ATTR_GEN_AI_REQUEST_MODEL]: model,
    [G.ATTR_GEN_AI_RESPONSE_MODEL]: model,
    [G.ATTR_GEN_AI_USAGE_INPUT_TOKENS]: trace.usage.inputTokens,
    [G.ATTR_GEN_AI_USAGE_OUTPUT_TOKENS]: trace.usage.outputTokens,
    "leyline.trace.id": trace.id,
    "leyline.session.file": trace.sessionFile ?? undefined,
    "leyline.cwd": trace.cwd ?? undefined,
    "leyline.status": trace.status,
    "leyline.level": trace.level,
    "leyline.cost": trace.usage.cost,
    "leyline.model": trace.model === "" ? undefined : trace.model,
    "leyline.environment": trace.environment,
    "leyline.tags": trace.tags.length === 0 ? undefined : trace.tags,
    "leyline.parent.trace.id": trace.parent.traceId ?? undefined,
    "leyline.parent.session.id": trace.parent.sessionId ?? undefined,
    "leyline.parent.tool_call.id": trace.parent.toolCallId ?? undefined,
    ...(captureContent ? traceContent(trace) : {}),
  };
}

/** Names may quote the prompt (a session named after its first message), so they go out with content only. */
function traceContent(trace: TraceRecord): Attributes {
  return {
    [G.ATTR_GEN_AI_INPUT_MESSAGES]: messagesJson("user", trace.input),
    [G.ATTR_GEN_AI_OUTPUT_MESSAGES]: messagesJson("assistant", trace.output),
    "leyline.trace.name": trace.name,
    "leyline.session.name": trace.sessionName ?? undefined,
  };
}

function observationAttributes(record: ObservationRecord, captureContent: boolean): Attributes {
  const common: Attributes = { "leyline.observation.id": record.id, "leyline.status": record.status, "leyline.level": record.level };
  if (record.type === "GENERATION") return { ...common, ...generationAttributes(record, captureContent) };
  return { ...common, ...toolAttributes(record, captureContent) };
}

function generationAttributes(record: ObservationRecord, captureContent: boolean): Attributes {
  const { provider, model } = splitModel(record.model);
  const stopReason = record.metadata.stopReason;
  return {
    [G.ATTR_GEN_AI_OPERATION_NAME]: G.GEN_AI_OPERATION_NAME_VALUE_CHAT,
    [G.ATTR_GEN_AI_PROVIDER_NAME]: provider,
    [G.ATTR_GEN_AI_REQUEST_MODEL]: model,
    [G.ATTR_GEN_AI_RESPONSE_MODEL]: model,
    [G.ATTR_GEN_AI_USAGE_INPUT_TOKENS]: record.usage.inputTokens,
    [G.ATTR_GEN_AI_USAGE_OUTPUT_TOKENS]: record.usage.outputTokens,
    [G.ATTR_GEN_AI_RESPONSE_FINISH_REASONS]: typeof stopReason === "string" && stopReason !== "" ? [stopReason] : undefined,
    "leyline.cost": record.usage.cost,
    "leyline.model": record.model ?? undefined,
    ...(captureContent
      ? {
          [G.ATTR_GEN_AI_INPUT_MESSAGES]: messagesJson("user", record.input),
          [G.ATTR_GEN_AI_OUTPUT_MESSAGES]: messagesJson("assistant", record.output),
        }
      : {}),
  };
}

function toolAttributes(record: ObservationRecord, captureContent: boolean): Attributes {
  return {
    [G.ATTR_GEN_AI_OPERATION_NAME]: G.GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL,
    [G.ATTR_GEN_AI_TOOL_NAME]: record.name,
    [G.ATTR_GEN_AI_TOOL_CALL_ID]: record.toolCallId ?? undefined,
    [G.ATTR_GEN_AI_TOOL_TYPE]: "function",
    ...(captureContent
      ? {
          [G.ATTR_GEN_AI_TOOL_CALL_ARGUMENTS]: clipContent(record.input),
          [G.ATTR_GEN_AI_TOOL_CALL_RESULT]: clipContent(record.output),
        }
      : {}),
  };
}

function eventAttributes(record: ObservationRecord, captureContent: boolean): Attributes {
  return {
    "leyline.observation.id": record.id,
    "leyline.level": record.level,
    "leyline.status": record.status,
    ...(captureContent
      ? {
          "leyline.status_message": clipContent(record.statusMessage),
          "leyline.input": clipContent(record.input),
          "leyline.output": clipContent(record.output),
        }
      : {}),
  };
}

function endObservationSpan(span: Span, record: ObservationRecord, captureContent: boolean): void {
  if (record.status === "error") {
    // A model call's error is the provider's; a tool's error text is tool output (content).
    const message = record.type === "GENERATION" || captureContent ? clipStatusMessage(record.statusMessage) : undefined;
    span.setStatus({ code: SpanStatusCode.ERROR, message });
    span.setAttribute(ATTR_ERROR_TYPE, ERROR_TYPE_VALUE_OTHER);
  }
  span.end(record.endMs ?? undefined);
}

function clipStatusMessage(message: string | null): string | undefined {
  return message === null ? undefined : clipUtf8(message, STATUS_MESSAGE_LIMIT_BYTES).text;
}

function clipContent(text: string | null): string | undefined {
  return text === null ? undefined : clipUtf8(text, CONTENT_LIMIT_BYTES).text;
}

/** One message as GenAI JSON (`[{role, parts: [{type: "text", content}]}]`), the whole JSON at most 16 KiB. */
function messagesJson(role: "user" | "assistant", text: string | null): string | undefined {
  if (text === null) return undefined;
  const encode = (budget: number) => JSON.stringify([{ role, parts: [{ type: "text", content: clipUtf8(text, budget).text }] }]);
  const fits = (json: string) => Buffer.byteLength(json, "utf8") <= CONTENT_LIMIT_BYTES;
  const whole = encode(CONTENT_LIMIT_BYTES);
  if (fits(whole)) return whole;
  // Escapes grow the JSON past its text: search the largest text budget whose JSON fits (about 14 steps).
  let [low, high] = [0, CONTENT_LIMIT_BYTES];
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (fits(encode(middle))) low = middle;
    else high = middle - 1;
  }
  return encode(low);
}

/** Observations in an order where a parent's span starts before its children's (generations, tools, events). */
function inParentOrder(observations: ObservationRecord[]): ObservationRecord[] {
  const rank = { GENERATION: 0, TOOL: 1, EVENT: 2 } as const;
  return [...observations].sort((a, b) => rank[a.type] - rank[b.type] || a.startMs - b.startMs);
}

// ── Small helpers ────────────────────────────────────────────────────────────────────────────────────────────────

/** A Map that keeps its `limit` most recently set or read entries. */
class BoundedMap<V> {
  readonly #limit: number;
  readonly #entries = new Map<string, V>();

  constructor(limit: number) {
    this.#limit = limit;
  }

  has(key: string): boolean {
    return this.#entries.has(key);
  }

  get(key: string): V | undefined {
    const value = this.#entries.get(key);
    if (value !== undefined) {
      this.#entries.delete(key);
      this.#entries.set(key, value);
    }
    return value;
  }

  set(key: string, value: V): void {
    this.#entries.delete(key);
    this.#entries.set(key, value);
    if (this.#entries.size > this.#limit) {
      const oldest = this.#entries.keys().next().value;
      if (oldest !== undefined) this.#entries.delete(oldest);
    }
  }
}

/** `warn` at most once per interval (later messages in the interval are dropped). */
function rateLimited(warn: (message: string) => void, intervalMs: number): (message: string) => void {
  let last = Number.NEGATIVE_INFINITY;
  return (message) => {
    const now = Date.now();
    if (now - last < intervalMs) return;
    last = now;
    warn(message);
  };
}

/** A warn callback that cannot throw into the caller. */
function safeWarn(warn: (message: string) => void): (message: string) => void {
  return (message) => {
    try {
      warn(message);
    } catch {
      // A failing warning sink must not break trace capture.
    }
  };
}

function errorMessage(error: unknown): string {
  if (Array.isArray(error)) return error.map(errorMessage).join("; ");
  if (error instanceof Error) return error.message;
  return error === undefined ? "unknown error" : String(error);
}

/**
 * The OTLP export against a real local OTLP/HTTP receiver (otlp-receiver.fixture.ts): commits of a lead trace with a
 * model call and a tool call, then a subagent's child trace anchored on that tool call, go out as one span tree with
 * the GenAI attributes; content stays home unless asked for; headers, endpoints and protocols follow the standard
 * variables (env objects passed explicitly, process.env untouched); failures are reported, at most once a minute.
 */
import * as incubating from "@opentelemetry/semantic-conventions/incubating";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type ObservationRecord, observationRecord, type TraceRecord } from "../../domain/traces/trace-records.ts";
import { CONTENT_LIMIT_BYTES, GEN_AI_CONVENTIONS, createOtlpExport, type OtlpExport, type TraceCommit } from "./otlp-export.ts";
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from "./otlp-receiver.fixture.ts";

const T0 = Date.UTC(2026, 0, 15, 9, 30, 0);

function traceRecord(fields: Partial<TraceRecord> & Pick<TraceRecord, "id" | "sessionId">): TraceRecord {
  return {
    sessionFile: `/home/user/.pi/agent/sessions/${fields.sessionId}.jsonl`,
    sessionName: "SECRET SESSION NAME",
    cwd: "/home/user/project",
    parentSessionFile: null,
    parent: { traceId: null, sessionId: null, toolCallId: null },
    agent: null,
    tags: [],
    name: "SECRET TRACE NAME",
    status: "running",
    level: "DEFAULT",
    statusMessage: null,
    startMs: T0,
    endMs: null,
    updatedMs: T0,
    input: "SECRET PROMPT",
    output: null,
    model: "anthropic/claude-sonnet-4-5",
    userEntryId: null,
    startEntryId: null,
    endEntryId: null,
    usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0, cost: 0 },
    bookmarked: false,
    revision: 1,
    environment: "default",
    userId: "user",
    version: "0.1.0",
    metadata: {},
    ...fields,
  };
}

function observation(fields: Partial<ObservationRecord> & Pick<ObservationRecord, "id" | "type" | "name">): ObservationRecord {
  return observationRecord({ startMs: T0, ...fields });
}

function usage(inputTokens: number, outputTokens: number, cost: number) {
  return { inputTokens, outputTokens, totalTokens: inputTokens + outputTokens, cost };
}

const lead = traceRecord({ id: "trace-lead", sessionId: "session-lead" });
const gen1 = observation({
  id: "gen-1",
  type: "GENERATION",
  name: "assistant",
  model: "anthropic/claude-sonnet-4-5",
  startMs: T0 + 10,
  input: "SECRET PROMPT",
});
const gen1Done: ObservationRecord = {
  ...gen1,
  endMs: T0 + 1_000,
  status: "completed",
  output: "SECRET ANSWER",
  usage: usage(120, 30, 0.0021),
  metadata: { stopReason: "toolUse" },
};
const tool1 = observation({
  id: "tool-1",
  type: "TOOL",
  name: "research",
  parentId: "gen-1",
  toolCallId: "call-1",
  startMs: T0 + 1_000,
  input: '{"query":"SECRET ARGS"}',
});
const child = traceRecord({
  id: "trace-child",
  sessionId: "session-child",
  agent: "researcher",
  parent: { traceId: "trace-lead", sessionId: "session-lead", toolCallId: "call-1" },
  model: "openai/gpt-5",
  startMs: T0 + 1_100,
  updatedMs: T0 + 1_100,
  input: "SECRET CHILD PROMPT",
});
const childGen = observation({
  id: "gen-1",
  type: "GENERATION",
  name: "assistant",
  model: "openai/gpt-5",
  startMs: T0 + 1_200,
  endMs: T0 + 2_500,
  status: "completed",
  usage: usage(50, 20, 0.0005),
  input: "SECRET CHILD PROMPT",
  output: "SECRET CHILD ANSWER",
});

/** The lead run with a model call and a tool call, the child run anchored on that tool call, all ended. */
function leadAndChildCommits(): TraceCommit[] {
  return [
    { trace: lead, observations: [gen1] },
    { trace: { ...lead, updatedMs: T0 + 1_000 }, observations: [gen1Done, tool1] },
    { trace: child, observations: [childGen] },
    {
      trace: {
        ...child,
        status: "completed",
        endMs: T0 + 3_000,
        updatedMs: T0 + 3_000,
        usage: usage(50, 20, 0.0005),
        output: "SECRET CHILD OUT",
      },
      observations: [],
    },
    {
      trace: {
        ...lead,
        status: "completed",
        endMs: T0 + 5_000,
        updatedMs: T0 + 5_000,
        usage: usage(300, 80, 0.004),
        output: "SECRET OUTPUT",
      },
      observations: [
        { ...tool1, endMs: T0 + 3_500, status: "completed", output: "SECRET RESULT" },
        observation({ id: "evt-1", type: "EVENT", name: "retry", startMs: T0 + 3_600, level: "WARNING", status: "completed" }),
        observation({
          id: "gen-2",
          type: "GENERATION",
          name: "assistant",
          model: "anthropic/claude-sonnet-4-5",
          startMs: T0 + 3_700,
          endMs: T0 + 4_900,
          status: "completed",
          usage: usage(180, 50, 0.0019),
          metadata: { stopReason: "stop" },
        }),
      ],
    },
  ];
}

let receiver: OtlpReceiver;
const exports: OtlpExport[] = [];

function open(env: NodeJS.ProcessEnv, warn: (message: string) => void = () => {}): OtlpExport {
  const created = createOtlpExport(env, { warn, version: "9.9.9-test" });
  if (created === null) throw new Error("expected an OTLP export");
  exports.push(created);
  return created;
}

function only(spans: ReceivedSpan[], name: string): ReceivedSpan {
  const found = spans.filter((span) => span.name === name);
  expect(found, name).toHaveLength(1);
  return found[0]!;
}

function byObservationId(spans: ReceivedSpan[], traceName: string, id: string): ReceivedSpan {
  const root = only(spans, traceName);
  const found = spans.filter((span) => span.attributes["leyline.observation.id"] === id && span.traceId === root.traceId);
  return found.find((span) => isDescendant(spans, span, root)) ?? expect.unreachable(`no span ${id} under ${traceName}`);
}

function isDescendant(spans: ReceivedSpan[], span: ReceivedSpan, ancestor: ReceivedSpan): boolean {
  let parentId = span.parentSpanId;
  while (parentId !== null) {
    if (parentId === ancestor.spanId) return true;
    const parent = spans.find((candidate) => candidate.spanId === parentId);
    if (parent === undefined || parent.attributes[GEN_AI_CONVENTIONS.ATTR_GEN_AI_OPERATION_NAME] === "invoke_agent") return false;
    parentId = parent.parentSpanId;
  }
  return false;
}

beforeEach(async () => {
  receiver = await startOtlpReceiver();
});

afterEach(async () => {
  await Promise.all(exports.splice(0).map((created) => created.shutdown()));
  await receiver.close();
});

describe("OTLP export over http/json", () => {
  it("exports the lead run and its child run as one span tree with GenAI attributes and the configured headers", async () => {
    const otlp = open({
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      OTEL_EXPORTER_OTLP_HEADERS: "authorization=Bearer%20token-1,x-team=base",
      OTEL_EXPORTER_OTLP_TRACES_HEADERS: "x-team=traces",
    });
    expect(otlp.protocol).toBe("http/json");
    expect(otlp.endpoint).toBe(`${receiver.url}/v1/traces`);
    for (const commit of leadAndChildCommits()) otlp.record(commit);
    await otlp.flush();

    expect(receiver.received.length).toBeGreaterThan(0);
    for (const request of receiver.received) {
      expect(request.method).toBe("POST");
      expect(request.path).toBe("/v1/traces");
      expect(request.contentType).toBe("application/json");
      expect(request.headers["authorization"]).toBe("Bearer token-1");
      expect(request.headers["x-team"]).toBe("traces");
    }
    const spans = receiver.spans();
    expect(spans.map((span) => span.name).sort()).toEqual([
      "chat claude-sonnet-4-5",
      "chat claude-sonnet-4-5",
      "chat gpt-5",
      "execute_tool research",
      "invoke_agent pi",
      "invoke_agent researcher",
    ]);

    const leadSpan = only(spans, "invoke_agent pi");
    expect(leadSpan.parentSpanId).toBeNull();
    expect(leadSpan.startMs).toBe(T0);
    expect(leadSpan.endMs).toBe(T0 + 5_000);
    expect(leadSpan.status.code).toBe(0);
    expect(leadSpan.resource["service.name"]).toBe("leyline");
    expect(leadSpan.resource["service.version"]).toBe("9.9.9-test");
    expect(leadSpan.attributes).toMatchObject({
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.agent.name": "pi",
      "gen_ai.conversation.id": "session-lead",
      "gen_ai.provider.name": "anthropic",
      "gen_ai.request.model": "claude-sonnet-4-5",
      "gen_ai.response.model": "claude-sonnet-4-5",
      "gen_ai.usage.input_tokens": 300,
      "gen_ai.usage.output_tokens": 80,
      "leyline.trace.id": "trace-lead",
      "leyline.session.file": "/home/user/.pi/agent/sessions/session-lead.jsonl",
      "leyline.cwd": "/home/user/project",
      "leyline.status": "completed",
      "leyline.cost": 0.004,
    });
    expect(leadSpan.events).toEqual([
      {
        name: "retry",
        timeMs: T0 + 3_600,
        attributes: { "leyline.observation.id": "evt-1", "leyline.level": "WARNING", "leyline.status": "completed" },
      },
    ]);

    const firstChat = byObservationId(spans, "invoke_agent pi", "gen-1");
    expect(firstChat.name).toBe("chat claude-sonnet-4-5");
    expect(firstChat.traceId).toBe(leadSpan.traceId);
    expect(firstChat.parentSpanId).toBe(leadSpan.spanId);
    expect(firstChat.kind).toBe(3); // SPAN_KIND_CLIENT
    expect([firstChat.startMs, firstChat.endMs]).toEqual([T0 + 10, T0 + 1_000]);
    expect(firstChat.attributes).toMatchObject({
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": "anthropic",
      "gen_ai.request.model": "claude-sonnet-4-5",
      "gen_ai.usage.input_tokens": 120,
      "gen_ai.usage.output_tokens": 30,
      "gen_ai.response.finish_reasons": ["toolUse"],
      "leyline.cost": 0.0021,
    });
    expect(byObservationId(spans, "invoke_agent pi", "gen-2").attributes["gen_ai.usage.input_tokens"]).toBe(180);

    const tool = only(spans, "execute_tool research");
    expect(tool.traceId).toBe(leadSpan.traceId);
    expect(tool.parentSpanId).toBe(firstChat.spanId);
    expect([tool.startMs, tool.endMs]).toEqual([T0 + 1_000, T0 + 3_500]);
    expect(tool.attributes).toMatchObject({
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": "research",
      "gen_ai.tool.call.id": "call-1",
    });

    const childSpan = only(spans, "invoke_agent researcher");
    expect(childSpan.traceId).toBe(leadSpan.traceId);
    expect(childSpan.parentSpanId).toBe(tool.spanId);
    expect(childSpan.attributes).toMatchObject({
      "gen_ai.agent.name": "researcher",
      "gen_ai.conversation.id": "session-child",
      "gen_ai.usage.input_tokens": 50,
      "leyline.parent.trace.id": "trace-lead",
      "leyline.parent.tool_call.id": "call-1",
    });
    const childChat = only(spans, "chat gpt-5");
    expect(childChat.parentSpanId).toBe(childSpan.spanId);
    expect(childChat.attributes).toMatchObject({
      "gen_ai.provider.name": "openai",
      "gen_ai.usage.input_tokens": 50,
      "gen_ai.usage.output_tokens": 20,
    });
    expect(childChat.attributes["gen_ai.response.finish_reasons"]).toBeUndefined();

    const everything = receiver.received.map((request) => request.body.toString("utf8")).join("\n");
    expect(everything).not.toContain("SECRET");
    expect(everything).not.toContain("gen_ai.input.messages");
  });

  it("sends prompt, output and tool texts only with OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true, clipped to 16 KiB", async () => {
    const otlp = open({
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${receiver.url}/v1/traces`,
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "http/json",
      OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: "true",
    });
    const long = `${'é"'.repeat(20_000)}END`;
    const commits = leadAndChildCommits();
    commits.push({
      trace: traceRecord({
        id: "trace-long",
        sessionId: "session-long",
        agent: "writer",
        startMs: T0,
        endMs: T0 + 10,
        status: "completed",
        output: long,
      }),
      observations: [],
    });
    for (const commit of commits) otlp.record(commit);
    await otlp.flush();

    const spans = receiver.spans();
    const leadSpan = only(spans, "invoke_agent pi");
    expect(JSON.parse(String(leadSpan.attributes["gen_ai.input.messages"]))).toEqual([
      { role: "user", parts: [{ type: "text", content: "SECRET PROMPT" }] },
    ]);
    expect(JSON.parse(String(leadSpan.attributes["gen_ai.output.messages"]))).toEqual([
      { role: "assistant", parts: [{ type: "text", content: "SECRET OUTPUT" }] },
    ]);
    expect(leadSpan.attributes["leyline.trace.name"]).toBe("SECRET TRACE NAME");
    const firstChat = byObservationId(spans, "invoke_agent pi", "gen-1");
    expect(JSON.parse(String(firstChat.attributes["gen_ai.output.messages"]))[0].parts[0].content).toBe("SECRET ANSWER");
    const tool = only(spans, "execute_tool research");
    expect(tool.attributes["gen_ai.tool.call.arguments"]).toBe('{"query":"SECRET ARGS"}');
    expect(tool.attributes["gen_ai.tool.call.result"]).toBe("SECRET RESULT");

    const longSpan = only(spans, "invoke_agent writer");
    const output = String(longSpan.attributes["gen_ai.output.messages"]);
    expect(Buffer.byteLength(output, "utf8")).toBeLessThanOrEqual(CONTENT_LIMIT_BYTES);
    expect(Buffer.byteLength(output, "utf8")).toBeGreaterThan(CONTENT_LIMIT_BYTES - 16);
    const content: string = JSON.parse(output)[0].parts[0].content;
    expect(long.startsWith(content)).toBe(true);
    expect(content.length).toBeLessThan(long.length);
  });

  it("starts spans live and ends them once: nothing running is exported, and re-committed ended records add nothing", async () => {
    const otlp = open({ OTEL_EXPORTER_OTLP_ENDPOINT: `${receiver.url}/`, OTEL_EXPORTER_OTLP_PROTOCOL: "http/json" });
    otlp.record({ trace: lead, observations: [gen1] });
    await otlp.flush();
    expect(receiver.spans()).toEqual([]);

    const ended = { ...lead, status: "completed" as const, endMs: T0 + 2_000, updatedMs: T0 + 2_000 };
    otlp.record({ trace: { ...lead, updatedMs: T0 + 1_000 }, observations: [gen1Done] });
    otlp.record({ trace: { ...lead, updatedMs: T0 + 1_000 }, observations: [gen1Done] });
    otlp.record({ trace: ended, observations: [gen1Done] });
    otlp.record({ trace: ended, observations: [gen1Done] });
    await otlp.flush();
    const spans = receiver.spans();
    expect(spans.map((span) => span.name).sort()).toEqual(["chat claude-sonnet-4-5", "invoke_agent pi"]);
    expect(only(spans, "invoke_agent pi").endMs).toBe(T0 + 2_000);
    expect(receiver.received.every((request) => request.path === "/v1/traces")).toBe(true);
  });

  it("parents a child run under its parent trace when the tool call is unknown, and makes an orphan a root", async () => {
    const otlp = open({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_PROTOCOL: "http/json" });
    otlp.record({ trace: lead, observations: [] });
    const stray = { ...child, parent: { ...child.parent, toolCallId: "call-unknown" } };
    otlp.record({ trace: { ...stray, status: "completed", endMs: T0 + 2_000 }, observations: [] });
    const orphan = traceRecord({
      id: "trace-orphan",
      sessionId: "session-orphan",
      agent: "vision",
      parent: { traceId: "trace-gone", sessionId: "session-gone", toolCallId: "call-9" },
      endMs: T0 + 100,
      status: "completed",
    });
    otlp.record({ trace: orphan, observations: [] });
    otlp.record({ trace: { ...lead, status: "completed", endMs: T0 + 3_000 }, observations: [] });
    await otlp.flush();

    const spans = receiver.spans();
    const leadSpan = only(spans, "invoke_agent pi");
    const strayChild = only(spans, "invoke_agent researcher");
    expect(strayChild.traceId).toBe(leadSpan.traceId);
    expect(strayChild.parentSpanId).toBe(leadSpan.spanId);
    const orphanSpan = only(spans, "invoke_agent vision");
    expect(orphanSpan.parentSpanId).toBeNull();
    expect(orphanSpan.traceId).not.toBe(leadSpan.traceId);
  });

  it("marks an errored run and model call ERROR, keeping a tool's error text home by default", async () => {
    const otlp = open({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_PROTOCOL: "http/json" });
    otlp.record({
      trace: { ...lead, status: "error", level: "ERROR", statusMessage: "429 rate limited", endMs: T0 + 2_000 },
      observations: [
        { ...gen1Done, status: "error", statusMessage: "overloaded_error" },
        { ...tool1, endMs: T0 + 1_500, status: "error", statusMessage: "SECRET TOOL FAILURE" },
      ],
    });
    await otlp.flush();
    const spans = receiver.spans();
    expect(only(spans, "invoke_agent pi").status).toEqual({ code: 2, message: "429 rate limited" });
    expect(only(spans, "invoke_agent pi").attributes["error.type"]).toBe("_OTHER");
    expect(only(spans, "chat claude-sonnet-4-5").status).toEqual({ code: 2, message: "overloaded_error" });
    expect(only(spans, "execute_tool research").status.code).toBe(2);
    expect(receiver.received.map((request) => request.body.toString("utf8")).join("")).not.toContain("SECRET TOOL FAILURE");
  });

  it("ends the oldest running trace when more than 1,000 run at once, marked as evicted", async () => {
    const otlp = open({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_PROTOCOL: "http/json" });
    for (let i = 0; i <= 1_000; i++) {
      otlp.record({ trace: traceRecord({ id: `trace-${i}`, sessionId: `session-${i}`, updatedMs: T0 + i }), observations: [] });
    }
    await otlp.flush();
    const spans = receiver.spans();
    expect(spans.map((span) => span.attributes["leyline.trace.id"])).toEqual(["trace-0"]);
    expect(spans[0]!.attributes["leyline.export.evicted"]).toBe(true);
    expect(spans[0]!.endMs).toBe(T0);
  });
});

describe("OTLP export over http/protobuf", () => {
  it("posts application/x-protobuf bodies holding the span names to the traces endpoint as given", async () => {
    const otlp = open({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${receiver.url}/otlp/custom-traces`, OTEL_SERVICE_NAME: "leyline-test" });
    expect(otlp.protocol).toBe("http/protobuf");
    expect(otlp.endpoint).toBe(`${receiver.url}/otlp/custom-traces`);
    for (const commit of leadAndChildCommits()) otlp.record(commit);
    await otlp.flush();

    expect(receiver.received.length).toBeGreaterThan(0);
    expect(receiver.received.every((request) => request.contentType === "application/x-protobuf")).toBe(true);
    expect(receiver.received.every((request) => request.path === "/otlp/custom-traces")).toBe(true);
    const bytes = Buffer.concat(receiver.received.map((request) => request.body));
    for (const name of ["invoke_agent pi", "invoke_agent researcher", "execute_tool research", "chat gpt-5", "leyline-test"]) {
      expect(bytes.includes(Buffer.from(name)), name).toBe(true);
    }
    expect(bytes.includes(Buffer.from("SECRET"))).toBe(false);
  });

  it("falls back from grpc to http/protobuf with a warning", async () => {
    const warnings: string[] = [];
    const otlp = open({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" }, (message) =>
      warnings.push(message),
    );
    expect(otlp.protocol).toBe("http/protobuf");
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/gRPC is not supported/);
    otlp.record({ trace: { ...lead, status: "completed", endMs: T0 + 1 }, observations: [] });
    await otlp.flush();
    expect(receiver.received.map((request) => request.contentType)).toEqual(["application/x-protobuf"]);
  });
});

describe("OTLP export configuration and failures", () => {
  it("is null without an endpoint or when disabled, and warns on an unusable endpoint", () => {
    const warnings: string[] = [];
    const warn = (message: string) => warnings.push(message);
    expect(createOtlpExport({}, { warn })).toBeNull();
    expect(createOtlpExport({ OTEL_EXPORTER_OTLP_ENDPOINT: "  " }, { warn })).toBeNull();
    expect(createOtlpExport({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_SDK_DISABLED: "true" }, { warn })).toBeNull();
    expect(createOtlpExport({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_SDK_DISABLED: "TRUE" }, { warn })).toBeNull();
    expect(createOtlpExport({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: receiver.url, OTEL_TRACES_EXPORTER: "none" }, { warn })).toBeNull();
    expect(warnings).toEqual([]);
    expect(createOtlpExport({ OTEL_EXPORTER_OTLP_ENDPOINT: "localhost:4318" }, { warn })).toBeNull();
    expect(createOtlpExport({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "not a url" }, { warn })).toBeNull();
    expect(warnings).toHaveLength(2);
    const enabled = createOtlpExport(
      { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_SDK_DISABLED: "false", OTEL_TRACES_EXPORTER: "otlp" },
      { warn },
    );
    expect(enabled?.endpoint).toBe(`${receiver.url}/v1/traces`);
    if (enabled !== null) exports.push(enabled);
  });

  it("reports export failures at most once a minute and never throws from record()", async () => {
    const warnings: string[] = [];
    const otlp = open({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_PROTOCOL: "http/json" }, (message) =>
      warnings.push(message),
    );
    receiver.respondWith(400);
    otlp.record({ trace: { ...lead, status: "completed", endMs: T0 + 1 }, observations: [] });
    await expect(otlp.flush()).resolves.toBeUndefined();
    expect(receiver.received).toHaveLength(1);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(`OTLP trace export to ${receiver.url}/v1/traces failed`);

    otlp.record({ trace: { ...child, parent: lead.parent, status: "completed", endMs: T0 + 1 }, observations: [] });
    await otlp.flush();
    expect(receiver.received).toHaveLength(2);
    expect(warnings).toHaveLength(1);

    expect(() => otlp.record({} as TraceCommit)).not.toThrow();
    expect(() => otlp.record({ trace: lead, observations: null } as unknown as TraceCommit)).not.toThrow();
    expect(warnings).toHaveLength(2);
    expect(warnings[1]).toContain("skipped an update");
  });

  it("writes the GenAI names of @opentelemetry/semantic-conventions' incubating entry point", () => {
    const published = incubating as unknown as Record<string, unknown>;
    for (const [name, value] of Object.entries(GEN_AI_CONVENTIONS)) expect(published[name], name).toBe(value);
  });
});

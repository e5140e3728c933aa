/**
 * The capture fold (trace-capture.ts), one rule per test, written Given (pi's events so far) / When (the next
 * events) / Then (the writes, and the traces and observations the store keeps from them). The fold's laws over
 * arbitrary runs are in trace-capture.property.test.ts.
 *
 * Events come from trace-capture.fixture.ts: pi's shapes, fed the way the worker's recorder feeds them (one second
 * apart: the n-th event happens at `at(n)`; every message_end appends `entry-<k>`, pi's leaf from the next event on,
 * and a user or assistant message's entry is reported to the fold at that next event). A pi run ends with
 * agent_end then agent_settled (`runEnd`).
 */
import { describe, expect, it } from "vitest";
import {
  agentEnd,
  agentSettled,
  agentStart,
  assistantMessage,
  at,
  autoRetryStart,
  compactionEnd,
  customMessage,
  NO_USAGE,
  type PiEvent,
  PiRuntime,
  piUsage,
  runEnd,
  storedObservations,
  storedTraces,
  text,
  thinking,
  toolCall,
  toolEnd,
  toolResultMessage,
  toolRound,
  toolStart,
  tracesWritten,
  userMessage,
} from "./trace-capture.fixture.ts";
import { CAPTURE_FIELD_BYTES, EMPTY_CAPTURE, usageOf } from "./trace-capture.ts";
import { addUsage, type CaptureWrite, type ObservationRecord, ZERO_USAGE } from "./trace-records.ts";

type Events = ReadonlyArray<PiEvent | readonly PiEvent[]>;

interface Outcome {
  /** What the When's events wrote. */
  writes: CaptureWrite[];
  pi: PiRuntime;
  /** The trace as stored after every write so far. */
  trace(id?: string): Record<string, unknown> | undefined;
  /** The trace's observations as stored after every write so far. */
  observations(id?: string): ObservationRecord[];
  observation(id: string, traceId?: string): ObservationRecord | undefined;
  when(...events: Events): Outcome;
  /** pi appends an entry no message wrote (an extension's custom entry, a model change): the leaf moves. */
  appended(): Outcome;
  whenAbandoned(message: string): Outcome;
}

function outcomeOf(pi: PiRuntime, writes: CaptureWrite[]): Outcome {
  const observations = (traceId = "trace-1"): ObservationRecord[] => storedObservations(pi.writes)[traceId] ?? [];
  return {
    writes,
    pi,
    trace: (id = "trace-1") => storedTraces(pi.writes)[id] as Record<string, unknown> | undefined,
    observations,
    observation: (id, traceId = "trace-1") => observations(traceId).find((record) => record.id === id),
    when: (...events) => outcomeOf(pi, pi.pushAll(events.flat())),
    appended: () => {
      pi.appendEntry();
      return outcomeOf(pi, []);
    },
    whenAbandoned: (message) => outcomeOf(pi, pi.abandon(message)),
  };
}

/** A session whose last entry is `entry-0`, after `events`. */
function given(...events: Events): Outcome {
  const pi = new PiRuntime({ leaf: "entry-0" });
  return outcomeOf(pi, pi.pushAll(events.flat()));
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

describe("a run is one trace", () => {
  it("starts running at agent_start, ends completed at agent_end, and the run closes at agent_settled", () => {
    const run = given(agentStart(), userMessage("Fix the failing test"));
    expect(run.writes[0]).toEqual({ traceId: "trace-1", trace: { startMs: at(1), status: "running", level: "DEFAULT", endMs: null } });
    expect(run.trace()).toMatchObject({ status: "running", endMs: null });

    const done = run.when(assistantMessage({ content: [text("Fixed.")] }), agentEnd());
    expect(done.trace()).toMatchObject({
      startMs: at(1),
      endMs: at(6),
      status: "completed",
      level: "DEFAULT",
      statusMessage: null,
      input: "Fix the failing test",
      output: "Fixed.",
      model: "anthropic/claude-sonnet-4-5",
    });
    expect(tracesWritten(done.pi.writes)).toEqual(["trace-1"]);
    expect(done.pi.state).not.toEqual(EMPTY_CAPTURE);

    const settled = done.when(agentSettled());
    expect(settled.writes).toEqual([]);
    expect(settled.trace()).toEqual(done.trace());
    expect(settled.pi.state).toEqual(EMPTY_CAPTURE);
  });

  it("writes nothing for events before any agent_start", () => {
    const outcome = given().when(
      userMessage("hello"),
      assistantMessage({ content: [toolCall("call-1", "bash")] }),
      toolRound("call-1", "bash", { command: "ls" }, "a.ts"),
      autoRetryStart(1, "overloaded"),
      compactionEnd(),
      agentEnd(),
      agentSettled(true),
    );
    expect(outcome.writes).toEqual([]);
    expect(outcome.pi.state).toEqual(EMPTY_CAPTURE);
  });

  it("ignores events it does not know (turn_start, message_update, future types)", () => {
    const run = given(agentStart(), userMessage("q"), assistantMessage()[0] as PiEvent);
    const before = run.pi.state;
    const outcome = run.when(
      { type: "turn_start" },
      { type: "message_update", message: { role: "assistant", content: [text("partial")] } },
      { type: "queue_update", steering: [], followUp: [] },
      { type: "some_future_event", payload: 1 },
    );
    expect(outcome.writes).toEqual([]);
    expect(outcome.pi.state).toEqual(before);
  });
});

describe("user messages", () => {
  it("the first is the trace's input, and its first line (trimmed) the name", () => {
    const outcome = given(agentStart()).when(userMessage("\n  Rename the store\nthen run the tests  "));
    expect(outcome.trace()).toMatchObject({ input: "\n  Rename the store\nthen run the tests  ", name: "Rename the store" });
  });

  it("names the trace with at most 100 characters, the last an ellipsis", () => {
    const long = given(agentStart()).when(userMessage("a".repeat(150)));
    expect(long.trace()?.["name"]).toBe(`${"a".repeat(99)}…`);
    const exact = given(agentStart()).when(userMessage("b".repeat(100)));
    expect(exact.trace()?.["name"]).toBe("b".repeat(100));
  });

  it("notes images in the input, and names a run with no text '(no text)'", () => {
    const image = { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" };
    expect(
      given(agentStart())
        .when(userMessage([{ type: "text", text: "What is this?" }, image]))
        .trace(),
    ).toMatchObject({
      input: "What is this?\n[image]",
      name: "What is this?",
    });
    expect(given(agentStart()).when(userMessage("")).trace()).toMatchObject({ input: "", name: "(no text)" });
  });

  it("never splits a character when it shortens the name (it counts code points)", () => {
    const straddling = given(agentStart()).when(userMessage(`${"a".repeat(98)}😀${"b".repeat(20)}`));
    expect(straddling.trace()?.["name"]).toBe(`${"a".repeat(98)}😀…`);
    expect(String(straddling.trace()?.["name"])).not.toMatch(LONE_SURROGATE);
    const astral = given(agentStart()).when(userMessage("😀".repeat(100)));
    expect(astral.trace()?.["name"]).toBe("😀".repeat(100));
  });

  it("takes the first line of a prompt with CRLF line endings without its carriage return", () => {
    const outcome = given(agentStart()).when(userMessage("First line\r\nsecond line"));
    expect(outcome.trace()?.["name"]).toBe("First line");
  });

  it("a later (steering) message is an EVENT observation and leaves the input alone", () => {
    const outcome = given(agentStart(), userMessage("first"), assistantMessage()).when(userMessage("also check the docs"));
    expect(outcome.observation("trace-1:event:1")).toEqual({
      id: "trace-1:event:1",
      parentId: null,
      type: "EVENT",
      name: "user message",
      startMs: at(7),
      endMs: at(7),
      level: "DEFAULT",
      status: "completed",
      statusMessage: null,
      model: null,
      input: "also check the docs",
      output: null,
      usage: ZERO_USAGE,
      toolCallId: null,
      entryId: null,
      metadata: { role: "user" },
    });
    expect(outcome.trace()).toMatchObject({ input: "first", name: "first" });
  });
});

describe("generations", () => {
  it("an assistant message is a GENERATION, running from its message_start", () => {
    const outcome = given(agentStart(), userMessage("q")).when(assistantMessage({ provider: "openai", model: "gpt-5" })[0] as PiEvent);
    expect(outcome.observations()).toEqual([
      expect.objectContaining({
        id: "trace-1:gen:1",
        type: "GENERATION",
        name: "chat openai/gpt-5",
        model: "openai/gpt-5",
        status: "running",
      }),
    ]);
    expect(outcome.observations()[0]).toMatchObject({ startMs: at(4), endMs: null, usage: ZERO_USAGE });
  });

  it("ends at its message_end with its usage (input counts cache reads and writes), model, output and stop", () => {
    const usage = piUsage(1_000, 50, 4_000, 200, 0.0123);
    const outcome = given(agentStart(), userMessage("q")).when(
      assistantMessage({ content: [thinking("hmm"), text("The answer")], usage, provider: "anthropic", model: "claude-x" }),
      runEnd(),
    );
    expect(outcome.observations()).toEqual([
      {
        id: "trace-1:gen:1",
        parentId: null,
        type: "GENERATION",
        name: "chat anthropic/claude-x",
        startMs: at(4),
        endMs: at(5),
        level: "DEFAULT",
        status: "completed",
        statusMessage: null,
        model: "anthropic/claude-x",
        input: null,
        output: "The answer",
        usage: { inputTokens: 5_200, outputTokens: 50, totalTokens: 5_250, cost: 0.0123 },
        toolCallId: null,
        entryId: "entry-2",
        metadata: { stopReason: "stop", api: "anthropic-messages", thinkingChars: 3 },
      },
    ]);
    expect(outcome.trace()).toMatchObject({ model: "anthropic/claude-x", output: "The answer" });
  });

  it("maps pi's usage: cache reads and writes are input; a missing total is input + output; bad numbers are 0", () => {
    expect(usageOf({ input: 10, output: 5, cacheRead: 100, cacheWrite: 7, totalTokens: 122, cost: { total: 0.5 } })).toEqual({
      inputTokens: 117,
      outputTokens: 5,
      totalTokens: 122,
      cost: 0.5,
    });
    expect(usageOf({ input: 10, output: 5, cacheRead: 1 })).toEqual({ inputTokens: 11, outputTokens: 5, totalTokens: 16, cost: 0 });
    expect(usageOf({ input: Number.NaN, output: "5", cost: { total: Infinity } })).toEqual(ZERO_USAGE);
    expect(usageOf(undefined)).toEqual(ZERO_USAGE);
  });

  it("the trace's output is the last assistant text, its model the last model", () => {
    const outcome = given(agentStart(), userMessage("q")).when(
      assistantMessage({ content: [text("Looking"), toolCall("call-1", "read")], stopReason: "toolUse", model: "small" }),
      toolRound("call-1", "read", { path: "a.ts" }, "body"),
      assistantMessage({ content: [text("It says hi")], model: "large" }),
      runEnd(),
    );
    expect(outcome.trace()).toMatchObject({ output: "It says hi", model: "anthropic/large" });
  });
});

describe("tools", () => {
  const run = (): Outcome =>
    given(agentStart(), userMessage("Read both")).when(
      assistantMessage({ content: [text("Reading"), toolCall("call-1", "read"), toolCall("call-2", "read")], stopReason: "toolUse" }),
      toolStart("call-1", "read", { path: "a.ts" }),
      toolStart("call-2", "read", { path: "b.ts" }),
      toolEnd("call-2", "read", "b body"),
      toolEnd("call-1", "read", "ENOENT: a.ts", { isError: true }),
      toolResultMessage("call-2", "read", "b body"),
      toolResultMessage("call-1", "read", "ENOENT: a.ts", { isError: true }),
      assistantMessage({ content: [text("Only b exists")] }),
      runEnd(),
    );

  it("a tool execution is a TOOL under the generation that called it", () => {
    expect(run().observation("trace-1:tool:call-2")).toEqual({
      id: "trace-1:tool:call-2",
      parentId: "trace-1:gen:1",
      type: "TOOL",
      name: "read",
      startMs: at(7),
      endMs: at(8),
      level: "DEFAULT",
      status: "completed",
      statusMessage: null,
      model: null,
      input: '{"path":"b.ts"}',
      output: "b body",
      usage: ZERO_USAGE,
      toolCallId: "call-2",
      entryId: null,
      metadata: {},
    });
    expect(run().observation("trace-1:gen:1")?.metadata["toolCalls"]).toEqual([
      { id: "call-1", name: "read" },
      { id: "call-2", name: "read" },
    ]);
  });

  it("a failed tool is level ERROR, status error, its output the message; the run still completes", () => {
    const outcome = run();
    expect(outcome.observation("trace-1:tool:call-1")).toMatchObject({
      parentId: "trace-1:gen:1",
      level: "ERROR",
      status: "error",
      statusMessage: "ENOENT: a.ts",
      output: "ENOENT: a.ts",
      endMs: at(9),
    });
    expect(outcome.trace()).toMatchObject({ status: "completed", level: "DEFAULT" });
  });

  it("a failed tool's status message is its output cut to 1,000 UTF-8 bytes on a character boundary", () => {
    const long = "€".repeat(400);
    const outcome = given(
      agentStart(),
      userMessage("q"),
      assistantMessage({ content: [toolCall("call-1", "bash")], stopReason: "toolUse" }),
    ).when(
      toolStart("call-1", "bash"),
      toolEnd("call-1", "bash", long, { isError: true }),
      toolStart("call-2", "bash"),
      toolEnd("call-2", "bash", "", { isError: true }),
    );
    expect(outcome.observation("trace-1:tool:call-1")).toMatchObject({ status: "error", statusMessage: "€".repeat(333), output: long });
    expect(outcome.observation("trace-1:tool:call-2")).toMatchObject({ status: "error", statusMessage: "The tool failed", output: null });
  });

  it("a tool no generation asked for has no parent", () => {
    const outcome = given(agentStart(), userMessage("q")).when(
      toolStart("stray", "bash", { command: "ls" }),
      toolEnd("stray", "bash", "ok"),
    );
    expect(outcome.observation("trace-1:tool:stray")).toMatchObject({ parentId: null, status: "completed", output: "ok" });
  });

  it("never counts a tool result's reported usage nor a toolResult message's usage", () => {
    const outcome = given(agentStart(), userMessage("research this")).when(
      assistantMessage({ content: [toolCall("call-1", "subagent")], usage: piUsage(10, 5), stopReason: "toolUse" }),
      toolStart("call-1", "subagent", { task: "dig" }),
      toolEnd("call-1", "subagent", "child says", { details: { usage: piUsage(9_999, 9_999, 0, 0, 5) } }),
      toolResultMessage("call-1", "subagent", "child says", { usage: piUsage(7_777, 7_777, 0, 0, 3) }),
      assistantMessage({ usage: piUsage(20, 6, 0, 0, 0.25) }),
      runEnd(),
    );
    const records = outcome.observations();
    expect(records.map((record) => record.type)).toEqual(["GENERATION", "TOOL", "GENERATION"]);
    const generations = records
      .filter((record) => record.type === "GENERATION")
      .reduce((sum, record) => addUsage(sum, record.usage), ZERO_USAGE);
    expect(generations).toEqual({ inputTokens: 30, outputTokens: 11, totalTokens: 41, cost: 0.25 });
    expect(outcome.observation("trace-1:tool:call-1")?.usage).toEqual(ZERO_USAGE);
  });
});

describe("entry ids", () => {
  const run = (): Outcome =>
    given(agentStart(), userMessage("q")).when(
      assistantMessage({ content: [toolCall("call-1", "bash")], stopReason: "toolUse" }),
      toolRound("call-1", "bash", { command: "ls" }, "a.ts"),
      assistantMessage({ content: [text("done")] }),
      runEnd(),
    );

  it("the user entry (and start entry) is the entry the prompt wrote, reported at the next event", () => {
    const prompted = given(agentStart(), userMessage("q"));
    expect(prompted.trace()?.["userEntryId"]).toBeUndefined();
    const reported = prompted.when(assistantMessage()[0] as PiEvent);
    expect(reported.writes).toEqual([
      expect.objectContaining({ traceId: "trace-1", trace: { userEntryId: "entry-1", startEntryId: "entry-1" } }),
    ]);
    expect(run().trace()).toMatchObject({ userEntryId: "entry-1", startEntryId: "entry-1" });
  });

  it("a generation's entry is the entry its message wrote (toolResult entries in between); the end entry the leaf at agent_end", () => {
    const outcome = run();
    expect(outcome.observation("trace-1:gen:1")?.entryId).toBe("entry-2");
    expect(outcome.observation("trace-1:gen:2")?.entryId).toBe("entry-4");
    expect(outcome.trace()?.["endEntryId"]).toBe("entry-4");
  });

  it("works from a new session (no leaf before the run)", () => {
    const pi = new PiRuntime({ leaf: null });
    pi.pushAll([agentStart(), ...userMessage("q"), ...assistantMessage(), ...runEnd()]);
    expect(storedTraces(pi.writes)["trace-1"]).toMatchObject({ userEntryId: "entry-1", startEntryId: "entry-1", endEntryId: "entry-2" });
  });

  it("an entry appended before a message's entry is reported (an extension's custom entry) is nobody's entry", () => {
    const outcome = given(agentStart(), userMessage("q")).appended().when(assistantMessage()).appended().when(runEnd());
    expect(outcome.trace()).toMatchObject({ userEntryId: "entry-1", startEntryId: "entry-1", endEntryId: "entry-4" });
    expect(outcome.observation("trace-1:gen:1")?.entryId).toBe("entry-3");
  });

  it("an extension's custom message is no observation; its entry counts in pi's numbering but is nobody's", () => {
    const outcome = given(
      agentStart(),
      userMessage("q"),
      assistantMessage({ content: [toolCall("call-1", "bash")], stopReason: "toolUse" }),
      toolRound("call-1", "bash", {}, "ok"),
    ).when(customMessage("reminder", "Tests are in test/"), assistantMessage(), runEnd());
    expect(outcome.observations().map((record) => [record.id, record.entryId])).toEqual([
      ["trace-1:gen:1", "entry-2"],
      ["trace-1:tool:call-1", null],
      ["trace-1:gen:2", "entry-5"],
    ]);
    expect(outcome.trace()).toMatchObject({ userEntryId: "entry-1", endEntryId: "entry-5" });
  });

  it("a generation ended just before the runtime goes away still gets its entry", () => {
    const outcome = given(agentStart(), userMessage("q"), assistantMessage()).whenAbandoned("The session was replaced");
    expect(outcome.trace()).toMatchObject({ status: "aborted", endEntryId: "entry-2" });
    expect(outcome.observation("trace-1:gen:1")?.entryId).toBe("entry-2");
  });

  it("a steering message's EVENT gets its own entry, and the prompt keeps the user entry", () => {
    const outcome = given(
      agentStart(),
      userMessage("first"),
      assistantMessage({ content: [toolCall("call-1", "bash")], stopReason: "toolUse" }),
    ).when(toolRound("call-1", "bash", {}, "ok"), userMessage("also check the docs"), assistantMessage(), runEnd());
    expect(outcome.trace()).toMatchObject({ userEntryId: "entry-1", startEntryId: "entry-1", input: "first" });
    expect(outcome.observation("trace-1:event:1")).toMatchObject({
      name: "user message",
      input: "also check the docs",
      entryId: "entry-4",
    });
    expect(outcome.observation("trace-1:gen:2")?.entryId).toBe("entry-5");
  });
});

describe("how a run ends", () => {
  it("a generation that stopped with an error makes the run error, with its message", () => {
    const outcome = given(agentStart(), userMessage("q")).when(
      assistantMessage({ content: [], stopReason: "error", errorMessage: "529 overloaded", usage: NO_USAGE }),
      agentEnd(),
    );
    expect(outcome.trace()).toMatchObject({ status: "error", level: "ERROR", statusMessage: "529 overloaded", endMs: at(6) });
    expect(outcome.observation("trace-1:gen:1")).toMatchObject({
      status: "error",
      level: "ERROR",
      statusMessage: "529 overloaded",
      output: null,
    });
    const unnamed = given(agentStart(), userMessage("q")).when(assistantMessage({ content: [], stopReason: "error" }), agentEnd());
    expect(unnamed.trace()).toMatchObject({ status: "error", statusMessage: "The model call failed" });
  });

  it("an aborted generation makes the run aborted", () => {
    const outcome = given(agentStart(), userMessage("q")).when(
      assistantMessage({ content: [text("Parti")], stopReason: "aborted" }),
      agentEnd(),
    );
    expect(outcome.trace()).toMatchObject({ status: "aborted", level: "WARNING", statusMessage: "Interrupted" });
    expect(outcome.observation("trace-1:gen:1")).toMatchObject({ status: "aborted", level: "WARNING" });
  });

  it("an agent_end pi will retry keeps the trace open; the retry's agent_start continues it", () => {
    const failed = given(
      agentStart(),
      userMessage("q"),
      assistantMessage({ content: [], stopReason: "error", errorMessage: "overloaded" }),
    );
    const retrying = failed.when(agentEnd(true), autoRetryStart(1, "overloaded"));
    expect(retrying.trace()).toMatchObject({ status: "running", endMs: null });
    expect(retrying.observation("trace-1:event:1")).toMatchObject({
      type: "EVENT",
      name: "retry",
      level: "WARNING",
      status: "completed",
      statusMessage: "overloaded",
      startMs: at(7),
      endMs: at(7),
      metadata: { attempt: 1, maxAttempts: 3, delayMs: 2000 },
    });

    expect(retrying.when(agentStart()).writes).toEqual([]);
    const retried = retrying.when(assistantMessage({ content: [text("ok")] }), runEnd());
    expect(tracesWritten(retried.pi.writes)).toEqual(["trace-1"]);
    expect(retried.pi.writes.filter((write) => write.trace?.startMs !== undefined)).toHaveLength(1);
    expect(retried.observation("trace-1:gen:2")).toMatchObject({ status: "completed", output: "ok" });
    expect(retried.trace()).toMatchObject({ status: "completed", level: "DEFAULT", statusMessage: null, startMs: at(1), endMs: at(11) });
    expect(retried.pi.state).toEqual(EMPTY_CAPTURE);
  });

  it("a retry cancelled during its wait ends the trace aborted at agent_settled; the next prompt is a new trace", () => {
    const waiting = given(
      agentStart(),
      userMessage("q"),
      assistantMessage({ content: [], stopReason: "error", errorMessage: "overloaded" }),
      agentEnd(true),
      autoRetryStart(1, "overloaded"),
    );
    const cancelled = waiting.when(agentSettled(true));
    expect(cancelled.trace()).toMatchObject({
      status: "aborted",
      level: "WARNING",
      statusMessage: "Interrupted",
      endMs: at(8),
      endEntryId: "entry-2",
    });
    expect(cancelled.observations().map((record) => [record.id, record.status])).toEqual([
      ["trace-1:gen:1", "error"],
      ["trace-1:event:1", "completed"],
    ]);
    expect(cancelled.pi.state).toEqual(EMPTY_CAPTURE);

    const next = cancelled.when(agentStart(), userMessage("try again"));
    expect(tracesWritten(next.writes)).toEqual(["trace-2"]);
    expect(next.trace("trace-2")).toMatchObject({ startMs: at(9), status: "running", input: "try again" });
    expect(next.trace("trace-1")).toEqual(cancelled.trace());
  });

  it("a retry pi meant but did not make ends the trace at agent_settled with the last model call's status", () => {
    const outcome = given(
      agentStart(),
      userMessage("q"),
      assistantMessage({ content: [], stopReason: "error", errorMessage: "overloaded" }),
      agentEnd(true),
    ).when(agentSettled());
    expect(outcome.trace()).toMatchObject({ status: "error", level: "ERROR", statusMessage: "overloaded", endMs: at(7) });
    expect(outcome.pi.state).toEqual(EMPTY_CAPTURE);
  });

  it("an agent_start before agent_settled continues the same trace (reopened), and agent_settled closes it", () => {
    const ended = given(agentStart(), userMessage("first"), assistantMessage({ content: [text("Part one")] }), agentEnd());
    expect(ended.trace()).toMatchObject({ status: "completed", endMs: at(6), endEntryId: "entry-2", output: "Part one" });

    const reopened = ended.when(agentStart());
    expect(reopened.writes).toEqual([
      { traceId: "trace-1", trace: { status: "running", level: "DEFAULT", statusMessage: null, endMs: null, endEntryId: null } },
    ]);
    expect(reopened.trace()).toMatchObject({ status: "running", endMs: null, endEntryId: null, startMs: at(1), input: "first" });

    const continued = reopened.when(assistantMessage({ content: [text("Part two")] }), agentEnd());
    expect(continued.trace()).toMatchObject({ status: "completed", endMs: at(10), endEntryId: "entry-3", output: "Part two" });
    expect(continued.observations().map((record) => [record.id, record.entryId])).toEqual([
      ["trace-1:gen:1", "entry-2"],
      ["trace-1:gen:2", "entry-3"],
    ]);

    const settled = continued.when(agentSettled());
    expect(settled.writes).toEqual([]);
    expect(settled.pi.state).toEqual(EMPTY_CAPTURE);
    expect(tracesWritten(settled.pi.writes)).toEqual(["trace-1"]);
    const next = settled.when(agentStart());
    expect(tracesWritten(next.writes)).toEqual(["trace-3"]);
    expect(next.trace("trace-3")).toEqual({ startMs: at(12), status: "running", level: "DEFAULT", endMs: null });
  });

  it("an overflow continuation (compaction after an error stop, then agent.continue()) stays in the one trace", () => {
    const overflowed = given(
      agentStart(),
      userMessage("summarise the repo"),
      assistantMessage({ content: [], stopReason: "error", errorMessage: "prompt is too long", usage: NO_USAGE }),
      agentEnd(),
    );
    expect(overflowed.trace()).toMatchObject({ status: "error", statusMessage: "prompt is too long", endMs: at(6) });

    // pi writes the compaction entry, then reports compaction_end and continues the run.
    const compacted = overflowed.appended().when(compactionEnd({ reason: "overflow" }), agentStart());
    expect(compacted.trace()).toMatchObject({ status: "running", level: "DEFAULT", statusMessage: null, endMs: null, endEntryId: null });

    const done = compacted.when(assistantMessage({ content: [text("It is a web app")] }), agentEnd(), agentSettled());
    expect(tracesWritten(done.pi.writes)).toEqual(["trace-1"]);
    expect(done.trace()).toMatchObject({
      status: "completed",
      level: "DEFAULT",
      statusMessage: null,
      startMs: at(1),
      endMs: at(11),
      output: "It is a web app",
      userEntryId: "entry-1",
      endEntryId: "entry-4",
    });
    expect(done.observations().map((record) => [record.id, record.name, record.status, record.entryId])).toEqual([
      ["trace-1:gen:1", "chat anthropic/claude-sonnet-4-5", "error", "entry-2"],
      ["trace-1:event:1", "compaction", "completed", null],
      ["trace-1:gen:2", "chat anthropic/claude-sonnet-4-5", "completed", "entry-4"],
    ]);
    expect(done.observation("trace-1:event:1")).toMatchObject({ startMs: at(7), metadata: { reason: "overflow" } });
    expect(done.pi.state).toEqual(EMPTY_CAPTURE);
  });

  it("agent_settled ends a run no agent_end ended and what still ran: aborted, 'Interrupted', when pi says so", () => {
    const outcome = given(agentStart(), userMessage("first"), assistantMessage()[0] as PiEvent).when(agentSettled(true));
    expect(outcome.trace()).toMatchObject({
      status: "aborted",
      level: "WARNING",
      statusMessage: "Interrupted",
      endMs: at(5),
      endEntryId: "entry-1",
    });
    expect(outcome.observation("trace-1:gen:1")).toMatchObject({
      status: "aborted",
      level: "WARNING",
      endMs: at(5),
      statusMessage: "The run ended before it finished",
    });
    expect(outcome.pi.state).toEqual(EMPTY_CAPTURE);
  });

  it("an aborted agent_settled after agent_end leaves the ended trace as it was", () => {
    const ended = given(agentStart(), userMessage("q"), assistantMessage({ content: [text("Parti")], stopReason: "aborted" }), agentEnd());
    const settled = ended.when(agentSettled(true));
    expect(settled.writes).toEqual([]);
    expect(settled.trace()).toMatchObject({ status: "aborted", statusMessage: "Interrupted", endMs: at(6) });
  });

  it("abandoning the capture ends an open run as aborted with the message; with no run it writes nothing", () => {
    const outcome = given(
      agentStart(),
      userMessage("q"),
      assistantMessage({ content: [toolCall("call-1", "bash")], stopReason: "toolUse" }),
      toolStart("call-1", "bash"),
    ).whenAbandoned("The session was replaced");
    expect(outcome.trace()).toMatchObject({
      status: "aborted",
      level: "WARNING",
      statusMessage: "The session was replaced",
      endMs: at(7),
      endEntryId: "entry-2",
    });
    expect(outcome.observation("trace-1:tool:call-1")).toMatchObject({ status: "aborted", endMs: at(7) });
    expect(outcome.pi.state).toEqual(EMPTY_CAPTURE);
    expect(outcome.whenAbandoned("again").writes).toEqual([]);
  });

  it("abandoning a run whose agent_end ended its trace (not yet settled) leaves the trace as it was", () => {
    const ended = given(agentStart(), userMessage("q"), assistantMessage(), agentEnd());
    const abandoned = ended.whenAbandoned("The session was replaced");
    expect(abandoned.writes).toEqual([]);
    expect(abandoned.trace()).toMatchObject({ status: "completed", statusMessage: null, endMs: at(6) });
    expect(abandoned.pi.state).toEqual(EMPTY_CAPTURE);
  });

  it("compactions are EVENTs, a failed or aborted one a WARNING", () => {
    const outcome = given(agentStart(), userMessage("q")).when(
      compactionEnd({ reason: "overflow" }),
      compactionEnd({ errorMessage: "too big" }),
      compactionEnd({ aborted: true }),
    );
    expect(outcome.observations().map((record) => [record.id, record.name, record.level, record.statusMessage, record.metadata])).toEqual([
      ["trace-1:event:1", "compaction", "DEFAULT", null, { reason: "overflow" }],
      ["trace-1:event:2", "compaction", "WARNING", "too big", { reason: "threshold" }],
      ["trace-1:event:3", "compaction", "WARNING", "Compaction aborted", { reason: "threshold" }],
    ]);
  });
});

describe("capture clipping", () => {
  /** CAPTURE_FIELD_BYTES + 2 bytes of 2-byte characters. */
  const big = "é".repeat(CAPTURE_FIELD_BYTES / 2 + 1);
  const kept = "é".repeat(CAPTURE_FIELD_BYTES / 2);

  it("clips a generation's output and the trace's, and names the field with its full size", () => {
    const outcome = given(agentStart(), userMessage("q")).when(assistantMessage({ content: [text(big)] }), runEnd());
    const generation = outcome.observation("trace-1:gen:1");
    expect(generation?.output).toBe(kept);
    expect(generation?.metadata).toEqual({
      stopReason: "stop",
      api: "anthropic-messages",
      captureClipping: { fields: ["output"], fieldBytes: { output: CAPTURE_FIELD_BYTES + 2 } },
    });
    expect(outcome.trace()).toMatchObject({
      output: kept,
      metadata: { captureClipping: { fields: ["output"], fieldBytes: { output: CAPTURE_FIELD_BYTES + 2 } } },
    });
  });

  it("keeps a field of exactly CAPTURE_FIELD_BYTES whole and unmarked", () => {
    const exact = "x".repeat(CAPTURE_FIELD_BYTES);
    const outcome = given(agentStart(), userMessage("q")).when(assistantMessage({ content: [text(exact)] }), runEnd());
    expect(outcome.observation("trace-1:gen:1")?.output).toBe(exact);
    expect(outcome.observation("trace-1:gen:1")?.metadata["captureClipping"]).toBeUndefined();
    expect(outcome.trace()?.["metadata"]).toBeUndefined();
  });

  it("clips the prompt (the trace's input) and a tool's arguments and output", () => {
    const args = { content: big };
    const outcome = given(agentStart()).when(
      userMessage(big),
      assistantMessage({ content: [toolCall("call-1", "write")], stopReason: "toolUse" }),
      toolStart("call-1", "write", args),
      toolEnd("call-1", "write", big),
    );
    expect(outcome.trace()).toMatchObject({
      input: kept,
      metadata: { captureClipping: { fields: ["input"], fieldBytes: { input: CAPTURE_FIELD_BYTES + 2 } } },
    });
    const tool = outcome.observation("trace-1:tool:call-1");
    expect(Buffer.byteLength(tool?.input ?? "")).toBeLessThanOrEqual(CAPTURE_FIELD_BYTES);
    expect(JSON.stringify(args).startsWith(tool?.input ?? "-")).toBe(true);
    expect(tool?.output).toBe(kept);
    expect(tool?.metadata["captureClipping"]).toEqual({
      fields: ["input", "output"],
      fieldBytes: { input: Buffer.byteLength(JSON.stringify(args)), output: CAPTURE_FIELD_BYTES + 2 },
    });
  });

  it("the stored trace names every field clipped in the run (input and output)", () => {
    const outcome = given(agentStart()).when(userMessage(big), assistantMessage({ content: [text(big)] }), runEnd());
    expect(outcome.trace()?.["metadata"]).toEqual({
      captureClipping: { fields: ["input", "output"], fieldBytes: { input: CAPTURE_FIELD_BYTES + 2, output: CAPTURE_FIELD_BYTES + 2 } },
    });
  });

  it("a trace output that is no longer clipped is no longer marked clipped (the marker is null when nothing is)", () => {
    const clippedOutput = [
      assistantMessage({ content: [text(big), toolCall("call-1", "bash")], stopReason: "toolUse" }),
      toolRound("call-1", "bash", {}, "ok"),
    ];
    const later = [assistantMessage({ content: [text("short")] }), runEnd()];
    const onlyOutput = given(agentStart(), userMessage("q"), ...clippedOutput).when(...later);
    expect(onlyOutput.trace()?.["output"]).toBe("short");
    expect(onlyOutput.trace()?.["metadata"]).toEqual({ captureClipping: null });

    const both = given(agentStart(), userMessage(big), ...clippedOutput);
    expect(both.trace()?.["metadata"]).toEqual({
      captureClipping: { fields: ["input", "output"], fieldBytes: { input: CAPTURE_FIELD_BYTES + 2, output: CAPTURE_FIELD_BYTES + 2 } },
    });
    const inputStays = both.when(...later);
    expect(inputStays.trace()?.["metadata"]).toEqual({
      captureClipping: { fields: ["input"], fieldBytes: { input: CAPTURE_FIELD_BYTES + 2 } },
    });
  });

  it("an output clipped as much as before rewrites no marker", () => {
    const first = given(agentStart(), userMessage("q")).when(
      assistantMessage({ content: [text(big), toolCall("call-1", "bash")], stopReason: "toolUse" }),
      toolRound("call-1", "bash", {}, "ok"),
    );
    const again = first.when(assistantMessage({ content: [text(big)] }));
    expect(again.writes.some((write) => write.trace?.metadata !== undefined)).toBe(false);
    expect(again.trace()?.["metadata"]).toEqual(first.trace()?.["metadata"]);
  });
});

/**
 * The laws of the capture fold (trace-capture.ts) over arbitrary well-formed pi sessions: pi runs (`_startRun`: an
 * agent_start, then agent_end + agent_settled) with random generations (usage, stop reasons), parallel tool calls
 * that fail or not, steering messages, extensions' custom messages, retries, continuations (agent_end, perhaps an
 * overflow compaction, agent_start again) and cancelled retries (agent_end willRetry, agent_settled aborted); the
 * session may be cut anywhere (then the runtime goes away), and stray events may come before any run:
 * 1. the GENERATION usage in the final records (the last write of each observation) is the assistant messages'
 *    usage, each counted once; a tool result's or toolResult message's usage never is;
 * 2. a trace is running exactly while its run's agent loop runs (or a retry is pending); when it ends (agent_end,
 *    or agent_settled for a run no agent_end ended) its status is the last model call's (aborted if pi settled an
 *    open run aborted) and every observation in it has ended; after the runtime goes away nothing runs;
 * 3. one trace per pi run (an agent_start with no run open), started once;
 * 4. the same events give the same writes, and the fold mutates neither its events nor its state;
 * 5. events the fold does not know change no stored record.
 * The examples, one rule each, are in trace-capture.test.ts.
 */
import { fc, test } from "@fast-check/vitest";
import { describe, expect } from "vitest";
import {
  agentEnd,
  agentSettled,
  agentStart,
  assistantMessage,
  at,
  autoRetryStart,
  compactionEnd,
  customMessage,
  type PiEvent,
  PiRuntime,
  type PiUsage,
  piUsage,
  storedObservations,
  storedTraces,
  text,
  toolCall,
  toolEnd,
  toolResultMessage,
  toolStart,
  tracesWritten,
  userMessage,
} from "./trace-capture.fixture.ts";
import { addUsage, ZERO_USAGE } from "./trace-records.ts";
import type { TraceStatus, TraceUsage } from "./trace-types.ts";

interface ToolPlan {
  name: string;
  isError: boolean;
  output: string;
  reported: PiUsage;
}

interface TurnPlan {
  usage: PiUsage;
  stopReason: string;
  text: string;
  tools: ToolPlan[];
  steer: string | null;
  /** An extension sends a custom message after the turn's tools. */
  custom: boolean;
  /** pi retries after the turn (agent_end willRetry, the retry's wait, agent_start). */
  retry: boolean;
}

/** pi continues the run after its agent loop ended (agent_end, perhaps an overflow compaction, agent_start). */
interface ContinuationPlan {
  compaction: boolean;
  turns: TurnPlan[];
}

/** How the run ends: settled (perhaps as aborted), or a retry cancelled during its wait. */
type Ending = "settled" | "settledAborted" | "cancelledRetry";

interface RunPlan {
  prompt: string;
  turns: TurnPlan[];
  continuations: ContinuationPlan[];
  ending: Ending;
}

interface SessionPlan {
  stray: boolean;
  runs: RunPlan[];
  /** Cut the session short (then the runtime goes away). */
  cut: number | null;
}

const usageArb = fc
  .record({
    input: fc.nat({ max: 50_000 }),
    output: fc.nat({ max: 8_000 }),
    cacheRead: fc.nat({ max: 100_000 }),
    cacheWrite: fc.nat({ max: 10_000 }),
    cents: fc.nat({ max: 5_000 }),
  })
  .map((usage) => piUsage(usage.input, usage.output, usage.cacheRead, usage.cacheWrite, usage.cents / 100));

const toolArb: fc.Arbitrary<ToolPlan> = fc.record({
  name: fc.constantFrom("read", "bash", "edit", "subagent"),
  isError: fc.boolean(),
  output: fc.string({ maxLength: 12 }),
  reported: usageArb,
});

const turnArb: fc.Arbitrary<TurnPlan> = fc.record({
  usage: usageArb,
  stopReason: fc.constantFrom("stop", "toolUse", "length", "error", "aborted"),
  text: fc.string({ maxLength: 12 }),
  tools: fc.array(toolArb, { maxLength: 3 }),
  steer: fc.option(fc.string({ maxLength: 8 }), { nil: null, freq: 4 }),
  custom: fc.constantFrom(false, false, false, true),
  /** pi retries after about one turn in four. */
  retry: fc.constantFrom(false, false, false, true),
});

const turnsArb = fc.array(turnArb, { minLength: 1, maxLength: 4 });

const runArb: fc.Arbitrary<RunPlan> = fc.record({
  prompt: fc.string({ maxLength: 20 }),
  turns: turnsArb,
  continuations: fc.array(fc.record({ compaction: fc.boolean(), turns: turnsArb }), { maxLength: 2 }),
  ending: fc.constantFrom<Ending>("settled", "settled", "settledAborted", "cancelledRetry"),
});

const sessionArb: fc.Arbitrary<SessionPlan> = fc.record({
  stray: fc.boolean(),
  runs: fc.array(runArb, { minLength: 1, maxLength: 4 }),
  cut: fc.option(fc.nat(), { nil: null, freq: 2 }),
});

/** One agent loop's turns; `prefix` keeps tool call ids unique in the session. */
function turnEvents(turns: readonly TurnPlan[], prefix: string): PiEvent[] {
  const events: PiEvent[] = [];
  turns.forEach((turn, t) => {
    const calls = turn.tools.map((tool, k) => ({ ...tool, id: `call-${prefix}-${t}-${k}` }));
    const content = [text(turn.text), ...calls.map((call, k) => toolCall(call.id, call.name, { k }))];
    events.push(...assistantMessage({ content, usage: turn.usage, stopReason: turn.stopReason }));
    for (const call of calls) {
      events.push(
        toolStart(call.id, call.name, { k: call.id }),
        toolEnd(call.id, call.name, call.output, { isError: call.isError, details: { usage: call.reported } }),
        ...toolResultMessage(call.id, call.name, call.output, { isError: call.isError, usage: call.reported }),
      );
    }
    if (turn.custom) events.push(...customMessage("reminder", turn.text));
    if (turn.steer !== null) events.push(...userMessage(turn.steer));
    if (turn.retry) events.push(agentEnd(true), autoRetryStart(1, "overloaded"), agentStart());
  });
  return events;
}

const ENDINGS: Record<Ending, PiEvent[]> = {
  settled: [agentEnd(), agentSettled()],
  settledAborted: [agentEnd(), agentSettled(true)],
  cancelledRetry: [agentEnd(true), autoRetryStart(1, "overloaded"), agentSettled(true)],
};

function runEvents(run: RunPlan, r: number): PiEvent[] {
  const events: PiEvent[] = [agentStart(), ...userMessage(run.prompt), ...turnEvents(run.turns, `${r}-0`)];
  run.continuations.forEach((continuation, c) => {
    events.push(agentEnd());
    if (continuation.compaction) events.push(compactionEnd({ reason: "overflow" }));
    events.push(agentStart(), ...turnEvents(continuation.turns, `${r}-${c + 1}`));
  });
  events.push(...ENDINGS[run.ending]);
  return events;
}

/** Events with no run to belong to (the fold must ignore them). */
const STRAY: PiEvent[] = [
  ...userMessage("stray"),
  ...assistantMessage({ usage: piUsage(1, 1) }),
  toolStart("x", "bash"),
  toolEnd("x", "bash", "ok"),
  agentEnd(),
  agentSettled(),
];

function sessionEvents(session: SessionPlan): PiEvent[] {
  const events = [...(session.stray ? STRAY : []), ...session.runs.flatMap(runEvents)];
  return session.cut === null ? events : events.slice(0, 1 + (session.cut % events.length));
}

/** A trace's state after an event, as the laws expect it. */
interface TraceExpectation {
  traceId: string;
  running: boolean;
  /** When it ended and how (`running` false). */
  endMs: number | null;
  status: TraceStatus;
}

interface Expected {
  /** Each pi run's trace id, in order (PiRuntime names the trace of the n-th agent_start `trace-n`). */
  ids: string[];
  usage: Record<string, TraceUsage>;
  /** After the event at each index: the trace of the run still open (null: none). */
  after: Array<TraceExpectation | null>;
  /** The event index of each agent_settled that closes a run → its trace then. */
  settles: Record<number, TraceExpectation>;
}

function stopStatus(stopReason: string | undefined): TraceStatus {
  if (stopReason === "error") return "error";
  if (stopReason === "aborted") return "aborted";
  return "completed";
}

/** What the laws expect, computed from the events alone (the n-th event happens at `at(n)`). */
function expectedRuns(events: readonly PiEvent[]): Expected {
  const expected: Expected = { ids: [], usage: {}, after: [], settles: {} };
  let run: (TraceExpectation & { lastStop: TraceStatus }) | null = null;
  let starts = 0;
  events.forEach((event, index) => {
    const time = at(index + 1);
    const message = event["message"] as { role?: string; usage?: PiUsage; stopReason?: string } | undefined;
    if (event.type === "agent_start") {
      starts += 1;
      if (run === null) {
        run = { traceId: `trace-${starts}`, running: true, endMs: null, status: "running", lastStop: "completed" };
        expected.ids.push(run.traceId);
        expected.usage[run.traceId] = ZERO_USAGE;
      } else run = { ...run, running: true, endMs: null, status: "running" };
    } else if (run !== null && event.type === "message_end" && message?.role === "assistant" && message.usage !== undefined) {
      const u = message.usage;
      expected.usage[run.traceId] = addUsage(expected.usage[run.traceId] ?? ZERO_USAGE, {
        inputTokens: u.input + u.cacheRead + u.cacheWrite,
        outputTokens: u.output,
        totalTokens: u.totalTokens,
        cost: u.cost.total,
      });
      run = { ...run, lastStop: stopStatus(message.stopReason) };
    } else if (run !== null && event.type === "agent_end" && event["willRetry"] !== true) {
      run = { ...run, running: false, endMs: time, status: run.lastStop };
    } else if (run !== null && event.type === "agent_settled") {
      const status = event["aborted"] === true ? "aborted" : run.lastStop;
      expected.settles[index] = run.running ? { ...run, running: false, endMs: time, status } : run;
      run = null;
    }
    expected.after.push(run);
  });
  return expected;
}

function captured(events: readonly PiEvent[], options: { freeze?: boolean } = {}): PiRuntime {
  const pi = new PiRuntime({ leaf: "entry-0", ...options });
  pi.pushAll(events);
  pi.abandon("The runtime went away");
  return pi;
}

/** The stored trace matches what the laws expect of it, and an ended trace has no observation running. */
function expectTrace(pi: PiRuntime, want: TraceExpectation, index: number): void {
  const trace = storedTraces(pi.writes)[want.traceId];
  const where = `${want.traceId} after event ${index}`;
  expect(trace?.status, where).toBe(want.status);
  expect(trace?.endMs, where).toBe(want.endMs);
  if (want.running) return;
  for (const record of storedObservations(pi.writes)[want.traceId] ?? [])
    expect(record.status, `${where}: ${record.id}`).not.toBe("running");
}

describe("laws", () => {
  test.prop([sessionArb], { numRuns: 200 })(
    "GENERATION usage in the final records is the assistant messages' usage, each counted once",
    (session) => {
      const events = sessionEvents(session);
      const expected = expectedRuns(events);
      const observations = storedObservations(captured(events).writes);
      for (const id of expected.ids) {
        const records = observations[id] ?? [];
        const sum = records
          .filter((record) => record.type === "GENERATION")
          .reduce((total, record) => addUsage(total, record.usage), ZERO_USAGE);
        const want = expected.usage[id] ?? ZERO_USAGE;
        expect({ ...sum, cost: 0 }).toEqual({ ...want, cost: 0 });
        expect(sum.cost).toBeCloseTo(want.cost, 9);
        for (const record of records) if (record.type !== "GENERATION") expect(record.usage).toEqual(ZERO_USAGE);
      }
    },
  );

  test.prop([sessionArb], { numRuns: 200 })(
    "a trace runs while its run's agent loop runs; when it ends, with the last model call's status, nothing in it runs",
    (session) => {
      const events = sessionEvents(session);
      const expected = expectedRuns(events);
      const pi = new PiRuntime({ leaf: "entry-0" });
      events.forEach((event, index) => {
        pi.push(event);
        const open = expected.after[index];
        if (open !== null && open !== undefined) expectTrace(pi, open, index);
        const settled = expected.settles[index];
        if (settled !== undefined) expectTrace(pi, settled, index);
      });
      pi.abandon("The runtime went away");
      expect(pi.state.run).toBeNull();
      for (const trace of Object.values(storedTraces(pi.writes))) {
        expect(trace.status).not.toBe("running");
        expect(typeof trace.endMs).toBe("number");
      }
      for (const record of Object.values(storedObservations(pi.writes)).flat()) {
        expect(record.status, record.id).not.toBe("running");
        expect(record.endMs, record.id).not.toBeNull();
        expect(record.endMs ?? 0).toBeGreaterThanOrEqual(record.startMs);
      }
    },
  );

  test.prop([sessionArb], { numRuns: 200 })(
    "each pi run (an agent_start with no run open) has exactly one trace, started once",
    (session) => {
      const events = sessionEvents(session);
      const pi = captured(events);
      const { ids } = expectedRuns(events);
      expect(tracesWritten(pi.writes)).toEqual(ids);
      for (const id of ids) {
        const starts = pi.writes.filter((write) => write.traceId === id && write.trace?.startMs !== undefined);
        expect(starts).toHaveLength(1);
      }
    },
  );

  test.prop([sessionArb], { numRuns: 100 })(
    "the same events give the same writes, and the fold mutates neither its events nor its state",
    (session) => {
      const events = sessionEvents(session);
      const first = captured(events);
      const second = captured(structuredClone(events), { freeze: true });
      expect(second.writes).toEqual(first.writes);
      expect(second.state).toEqual(first.state);
    },
  );

  const unknownEvent = fc.constantFrom<PiEvent>(
    { type: "turn_start" },
    { type: "turn_end", message: { role: "assistant", content: [] }, toolResults: [] },
    { type: "message_update", message: { role: "assistant", content: [text("partial")] } },
    { type: "tool_execution_update", toolCallId: "call-0-0-0-0", toolName: "bash", partialResult: {} },
    { type: "queue_update", steering: ["x"], followUp: [] },
    { type: "compaction_start", reason: "threshold" },
    { type: "auto_retry_end", success: false, attempt: 1, finalError: "Retry cancelled" },
    { type: "session_info_changed", name: "renamed" },
    { type: "a_future_event", payload: { usage: { input: 5 } } },
  );

  test.prop([sessionArb, fc.array(fc.tuple(fc.nat(), unknownEvent), { maxLength: 8 })], { numRuns: 150 })(
    "events the fold does not know change no stored trace or observation",
    (session, inserts) => {
      const events = sessionEvents(session);
      const end = at(events.length + 1);
      const plain = new PiRuntime({ leaf: "entry-0" });
      events.forEach((event, index) => plain.push(event, at(index + 1)));
      plain.abandon("The runtime went away", end);
      // Each unknown event lands before the event at `position` (or after the last), at the time of the event before
      // it. It may be the event that reports the last message's entry: the fold records it then, not later.
      const noisy = new PiRuntime({ leaf: "entry-0" });
      const placed = inserts.map(([n, event]) => ({ position: n % (events.length + 1), event }));
      const insertAt = (index: number): void => {
        for (const insert of placed) if (insert.position === index) noisy.push(insert.event, at(Math.max(index, 1)));
      };
      events.forEach((event, index) => {
        insertAt(index);
        noisy.push(event, at(index + 1));
      });
      insertAt(events.length);
      noisy.abandon("The runtime went away", end);
      expect(storedTraces(noisy.writes)).toEqual(storedTraces(plain.writes));
      expect(storedObservations(noisy.writes)).toEqual(storedObservations(plain.writes));
    },
  );
});

/**
 * The worker's trace recorder over a fake session manager: a message's entry is found by the message's identity
 * (not by the leaf that moved: another entry may come after it), streamed updates never reach the fold or the
 * session, and a run abandoned after its session was replaced ends with that session's entries.
 */
import { describe, expect, it } from "vitest";
import type { CaptureWrite } from "../../domain/traces/trace-records.ts";
import { createTraceRecorder, type TraceEntries } from "./trace-recorder.ts";

interface FakeEntry {
  id: string;
  parentId: string | null;
  type: string;
  message?: unknown;
}

/** pi's session manager as far as the recorder reads it, with a count of the reads. */
function fakeSession(): TraceEntries & { append(entry: Omit<FakeEntry, "parentId">): void; reads: number } {
  const entries = new Map<string, FakeEntry>();
  let leaf: string | null = null;
  const session = {
    reads: 0,
    getLeafId: () => {
      session.reads++;
      return leaf;
    },
    getEntry: (id: string) => entries.get(id),
    append(entry: Omit<FakeEntry, "parentId">) {
      entries.set(entry.id, { ...entry, parentId: leaf });
      leaf = entry.id;
    },
  };
  return session;
}

function recorder(current: () => TraceEntries | null) {
  const writes: CaptureWrite[] = [];
  let id = 0;
  let clock = 1_000;
  const traces = createTraceRecorder({
    send: (batch) => writes.push(...batch),
    entries: current,
    now: () => ++clock,
    newId: () => `run-${++id}`,
  });
  return { traces, writes };
}

const user = { role: "user", content: [{ type: "text", text: "hello" }] };
const assistant = { role: "assistant", content: [{ type: "text", text: "hi" }], provider: "p", model: "m", usage: {}, stopReason: "stop" };

describe("trace recorder", () => {
  it("finds a message's entry by identity even when another entry was appended after it", () => {
    const session = fakeSession();
    const { traces, writes } = recorder(() => session);
    traces.push({ type: "agent_start" });
    traces.push({ type: "message_start", message: user });
    traces.push({ type: "message_end", message: user });
    session.append({ id: "u1", type: "message", message: user });
    session.append({ id: "x1", type: "custom" }); // e.g. an extension's entry, before the next event
    traces.push({ type: "message_start", message: assistant });
    const userEntry = writes.find((write) => write.trace?.userEntryId !== undefined)?.trace?.userEntryId;
    expect(userEntry).toBe("u1");
  });

  it("skips streamed updates: no write, no read of the session", () => {
    const session = fakeSession();
    const { traces, writes } = recorder(() => session);
    traces.push({ type: "agent_start" });
    const before = { writes: writes.length, reads: session.reads };
    for (let i = 0; i < 50; i++) traces.push({ type: "message_update", message: assistant });
    traces.push({ type: "tool_execution_update", toolCallId: "c1" });
    expect({ writes: writes.length, reads: session.reads }).toEqual(before);
  });

  it("a run abandoned after its session was replaced ends with that session's leaf and its last message's entry", () => {
    const first = fakeSession();
    const second = fakeSession();
    let bound: TraceEntries = first;
    const { traces, writes } = recorder(() => bound);
    traces.push({ type: "agent_start" });
    traces.push({ type: "message_start", message: assistant });
    traces.push({ type: "message_end", message: assistant });
    first.append({ id: "a1", type: "message", message: assistant });
    second.append({ id: "other", type: "message", message: { role: "user" } });
    bound = second;
    traces.abandon("The session was replaced during the run");
    const ending = writes.at(-1)!;
    expect(ending.trace).toMatchObject({ status: "aborted", endEntryId: "a1", statusMessage: "The session was replaced during the run" });
    const generation = writes
      .flatMap((write) => write.observations ?? [])
      .filter((o) => o.type === "GENERATION")
      .at(-1);
    expect(generation?.entryId).toBe("a1");
  });
});

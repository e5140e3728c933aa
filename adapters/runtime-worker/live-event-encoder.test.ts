import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { applyLiveEvent, EMPTY_LIVE_STREAM, LIVE_OUTPUT_LIMIT, type LiveStreamState } from "../../domain/live/live-stream.ts";
import { LIVE_FLUSH_MS, LIVE_MAX_WAIT_MS, LIVE_MIN_BATCH_CHARS, LiveEventEncoder, type WireEvent } from "./live-event-encoder.ts";

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

/** An encoder; `batching: false` sends every 30 ms whatever the amount (the rules other than batching). */
function encoder(batching = false): { live: LiveEventEncoder; sent: WireEvent[]; known: boolean[]; state: () => LiveStreamState } {
  const sent: WireEvent[] = [];
  const known: boolean[] = [];
  const live = new LiveEventEncoder({
    ...(batching ? {} : { minBatchChars: 0 }),
    send: (event, isKnown) => {
      // The receivers get JSON: hold a copy, as IPC would.
      sent.push(JSON.parse(JSON.stringify(event)) as WireEvent);
      known.push(isKnown);
    },
  });
  return { live, sent, known, state: () => sent.reduce(applyLiveEvent, EMPTY_LIVE_STREAM) };
}

const textUpdate = (delta: string): WireEvent => ({
  type: "message_update",
  message: { role: "assistant", content: [] },
  assistantMessageEvent: { type: "text_delta", contentIndex: 0, delta },
});
const toolUpdate = (text: string): WireEvent => ({
  type: "tool_execution_update",
  toolCallId: "c1",
  toolName: "bash",
  args: { command: "loop" },
  partialResult: { content: [{ type: "text", text }], details: {} },
});

describe("LiveEventEncoder", () => {
  it("sends the deltas buffered within 30 ms as one stream_delta, started by the first one", () => {
    const { live, sent } = encoder();
    live.push({ type: "message_start", message: { role: "assistant", content: [], timestamp: 3 } });
    live.push(textUpdate("Hel"));
    vi.advanceTimersByTime(LIVE_FLUSH_MS - 1);
    live.push(textUpdate("lo"));
    expect(sent.map((event) => event.type)).toEqual(["message_start"]);
    vi.advanceTimersByTime(1);
    expect(sent[1]).toEqual({ type: "stream_delta", deltas: [{ kind: "text", index: 0, text: "Hello" }] });
    // Nothing buffered: the timer does not run again.
    vi.advanceTimersByTime(LIVE_FLUSH_MS * 3);
    expect(sent).toHaveLength(2);
  });

  it("sends what is buffered before any other event, so the order is pi's", () => {
    const { live, sent, state } = encoder();
    live.push({ type: "message_start", message: { role: "assistant", content: [], timestamp: 3 } });
    live.push(textUpdate("All of it"));
    live.push({ type: "message_end", message: { role: "assistant", content: [{ type: "text", text: "All of it" }], timestamp: 3 } });
    expect(sent.map((event) => event.type)).toEqual(["message_start", "stream_delta", "message_end"]);
    expect(sent[2]).toMatchObject({ contentOmitted: true });
    expect(state()).toEqual(EMPTY_LIVE_STREAM);
    vi.advanceTimersByTime(LIVE_FLUSH_MS);
    expect(sent).toHaveLength(3);
  });

  it("sends a tool's output as the change since what it sent, and forgets the tool when it ends", () => {
    const { live, sent, state } = encoder();
    live.push({ type: "tool_execution_start", toolCallId: "c1", toolName: "bash", args: { command: "loop" } });
    live.push(toolUpdate("line1\n"));
    live.push(toolUpdate("line1\nline2\n"));
    vi.advanceTimersByTime(LIVE_FLUSH_MS);
    expect(sent[1]).toEqual({ type: "stream_delta", tools: { c1: { append: "line1\nline2\n" } } });
    // pi's tail truncation cut the first line
    live.push(toolUpdate("line2\nline3\n"));
    vi.advanceTimersByTime(LIVE_FLUSH_MS);
    expect(sent[2]).toEqual({ type: "stream_delta", tools: { c1: { drop: 6, append: "line3\n" } } });
    expect(state().tools).toEqual({ c1: { toolName: "bash", text: "line2\nline3\n" } });
    // The same text again: no output change, but the event still says the tool made progress.
    live.push(toolUpdate("line2\nline3\n"));
    vi.advanceTimersByTime(LIVE_FLUSH_MS);
    expect(sent[3]).toEqual({ type: "stream_delta" });
    live.push({ type: "tool_execution_end", toolCallId: "c1", toolName: "bash", result: { content: [] }, isError: false });
    expect(state().tools).toEqual({});
    // A later tool with the same id starts from nothing on both sides.
    live.push({ type: "tool_execution_start", toolCallId: "c1", toolName: "bash", args: {} });
    live.push(toolUpdate("again\n"));
    vi.advanceTimersByTime(LIVE_FLUSH_MS);
    expect(sent.at(-1)).toEqual({ type: "stream_delta", tools: { c1: { append: "again\n" } } });
    expect(state().tools).toEqual({ c1: { toolName: "bash", text: "again\n" } });
  });

  it("frames a `!` command and keeps only the tail of a flood, as the receivers do", () => {
    const { live, sent, state } = encoder();
    live.bashStarted("yes");
    live.bashChunk("y\n");
    live.bashChunk("y".repeat(LIVE_OUTPUT_LIMIT));
    vi.advanceTimersByTime(LIVE_FLUSH_MS);
    expect(sent[0]).toEqual({ type: "bash_execution_start", command: "yes" });
    expect((sent[1]?.["bash"] as string).length).toBe(LIVE_OUTPUT_LIMIT);
    expect(state().bash?.text.length).toBe(LIVE_OUTPUT_LIMIT);
    live.bashChunk("z");
    live.bashEnded();
    expect(sent.map((event) => event.type)).toEqual(["bash_execution_start", "stream_delta", "stream_delta", "bash_execution_end"]);
    expect(state().bash).toBeNull();
  });

  it("marks only events it built itself as known; a replaced session clears the receivers' live state", () => {
    const { live, sent, known, state } = encoder();
    live.push({ type: "compaction_start", reason: "manual" });
    live.push({ type: "message_start", message: { role: "assistant", content: [], timestamp: 1 } });
    live.push(textUpdate("cut off"));
    live.reset();
    expect(sent.map((event) => event.type)).toEqual(["compaction_start", "message_start", "stream_delta", "stream_snapshot"]);
    expect(known).toEqual([false, true, true, true]);
    expect(state()).toEqual(EMPTY_LIVE_STREAM);
  });

  it("waits longer for a batch worth its envelope: small output up to 250 ms, 1,024 characters at 30 ms", () => {
    const { live, sent } = encoder(true);
    live.push({ type: "message_start", message: { role: "assistant", content: [], timestamp: 3 } });
    live.push(textUpdate("a few words"));
    vi.advanceTimersByTime(LIVE_MAX_WAIT_MS - 1);
    expect(sent).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(sent[1]).toEqual({ type: "stream_delta", deltas: [{ kind: "text", index: 0, text: "a few words" }] });
    // A fast stream fills a batch within the first 30 ms: it goes then.
    live.push(textUpdate("x".repeat(LIVE_MIN_BATCH_CHARS - 10)));
    vi.advanceTimersByTime(LIVE_FLUSH_MS - 5);
    live.push(textUpdate("y".repeat(10)));
    vi.advanceTimersByTime(5);
    expect(sent).toHaveLength(3);
    // Any other event still sends what is buffered first, however small.
    live.push(textUpdate("end"));
    live.push({ type: "message_end", message: { role: "assistant", content: [], timestamp: 3 } });
    expect(sent.slice(3).map((event) => event.type)).toEqual(["stream_delta", "message_end"]);
  });

  it("drops what is buffered when disposed", () => {
    const { live, sent } = encoder();
    live.push(textUpdate("late"));
    live.dispose();
    vi.advanceTimersByTime(LIVE_FLUSH_MS * 2);
    expect(sent).toEqual([]);
  });
});

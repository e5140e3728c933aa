import { describe, expect, it } from "vitest";
import type { TranscriptEntry } from "../../../domain/transcript/transcript-types.ts";
import { assistantEntry, bashEntry, toolEntry } from "../components/transcript/transcript.fixture.ts";
import {
  bashIn,
  EMPTY_SESSION_STREAM,
  nextSessionStream,
  type SessionStream,
  settleSessionStream,
  streamingMessageOf,
  streamSettled,
  toolOutputIn,
} from "./streaming-message.ts";

type Event = { type: string } & Record<string, unknown>;

const start = (timestamp: number): Event => ({ type: "message_start", message: { role: "assistant", content: [], timestamp } });
const end = (timestamp: number): Event => ({
  type: "message_end",
  message: { role: "assistant", stopReason: "stop", timestamp },
  contentOmitted: true,
});
const text = (index: number, value: string): Event => ({ type: "stream_delta", deltas: [{ kind: "text", index, text: value }] });

function fold(events: readonly Event[], from: SessionStream = EMPTY_SESSION_STREAM): SessionStream {
  return events.reduce(nextSessionStream, from);
}

/** An assistant entry persisted with pi's message timestamp `timestamp`. */
function persistedReply(timestamp: number): TranscriptEntry {
  return { ...assistantEntry("a1", "Hello world", null), messageTimestamp: timestamp };
}

describe("streaming message", () => {
  it("builds text, thinking and tool calls from the live stream, with pi's timestamp", () => {
    const stream = fold([
      start(1700),
      {
        type: "stream_delta",
        deltas: [
          { kind: "thinking", index: 0, text: "Let me think" },
          { kind: "text", index: 1, text: "Hello" },
          { kind: "toolCall", index: 2, id: "call-1", name: "read", json: '{"path":"a.txt"}' },
          { kind: "toolCall", index: 3, id: "call-2", name: "write", json: '{"path":"b.txt","content":"par' },
          { kind: "text", index: 4, text: "world" },
        ],
      },
    ]);
    expect(streamingMessageOf("s1", stream)).toEqual({
      id: "streaming:s1:1700",
      role: "assistant",
      text: "Hello\nworld",
      thinking: "Let me think",
      toolCalls: [
        { id: "call-1", name: "read", arguments: { path: "a.txt" } },
        // still streaming: its JSON so far
        { id: "call-2", name: "write", arguments: '{"path":"b.txt","content":"par' },
      ],
      timestamp: 1700,
    });
    expect(streamingMessageOf("s1", EMPTY_SESSION_STREAM)).toBeNull();
  });

  it("keeps the finished message after message_end until the persisted transcript has it", () => {
    const streaming = fold([start(1700), text(0, "Hello"), text(0, " world")]);
    expect(streamingMessageOf("s1", streaming)?.text).toBe("Hello world");
    const ended = nextSessionStream(streaming, end(1700));
    expect(ended.live.message).toBeNull();
    expect(streamingMessageOf("s1", ended)).toMatchObject({ id: "streaming:s1:1700", text: "Hello world", timestamp: 1700 });

    // Not persisted yet (another message, or none): it stays.
    const other = [persistedReply(1699)];
    expect(streamSettled({ timestamp: 1700 }, other)).toBe(false);
    expect(settleSessionStream(ended, other)).toBe(ended);
    // Persisted: it goes.
    const persisted = [persistedReply(1699), persistedReply(1700)];
    expect(streamSettled({ timestamp: 1700 }, persisted)).toBe(true);
    expect(streamingMessageOf("s1", settleSessionStream(ended, persisted))).toBeNull();
    // A user entry with that timestamp is not the reply.
    expect(streamSettled({ timestamp: 1700 }, [{ ...persistedReply(1700), role: "user" } as TranscriptEntry])).toBe(false);
  });

  it("counts a reply pi cut short (saved with a later timestamp) as the streamed one, but not an older one", () => {
    const aborted = (timestamp: number, stopReason: "aborted" | "error" | "stop"): TranscriptEntry =>
      ({ ...persistedReply(timestamp), stopReason }) as TranscriptEntry;
    expect(streamSettled({ timestamp: 1700 }, [aborted(1750, "aborted")])).toBe(true);
    expect(streamSettled({ timestamp: 1700 }, [aborted(1750, "error")])).toBe(true);
    // A finished reply with another timestamp is another message; an older cut-short one is an earlier run.
    expect(streamSettled({ timestamp: 1700 }, [aborted(1750, "stop")])).toBe(false);
    expect(streamSettled({ timestamp: 1700 }, [aborted(1650, "aborted")])).toBe(false);
    // Only the last reply counts: a later finished reply after an aborted one is not this message.
    expect(streamSettled({ timestamp: 1700 }, [aborted(1750, "aborted"), aborted(1800, "stop")])).toBe(false);
  });

  it("shows the next message as soon as it starts, and an agent_end ends a message pi did not end", () => {
    const first = fold([start(1), text(0, "one"), end(1), start(2), text(0, "two")]);
    expect(streamingMessageOf("s1", first)).toMatchObject({ id: "streaming:s1:2", text: "two" });
    const stopped = nextSessionStream(first, { type: "agent_end", contentOmitted: true });
    expect(streamingMessageOf("s1", stopped)).toMatchObject({ id: "streaming:s1:2", text: "two" });
  });

  it("leaves the state as it is for events that change nothing", () => {
    const stream = fold([start(1), text(0, "x")]);
    for (const event of [
      { type: "turn_start" },
      { type: "queue_update", steering: [], followUp: [] },
      { type: "message_start", message: { role: "user", content: "hi" } },
      { type: "what_is_this" },
    ]) {
      expect(nextSessionStream(stream, event)).toBe(stream);
    }
  });

  it("a stream_snapshot (a new socket generation) restores the live state", () => {
    const server = fold([start(5), text(0, "so far"), { type: "tool_execution_start", toolCallId: "t1", toolName: "bash" }]).live;
    const restored = nextSessionStream(EMPTY_SESSION_STREAM, {
      type: "stream_snapshot",
      state: JSON.parse(JSON.stringify(server)) as unknown,
    });
    expect(streamingMessageOf("s1", restored)).toMatchObject({ text: "so far", timestamp: 5 });
    expect(restored.live).toEqual(server);
  });
});

describe("live tool output", () => {
  it("runs, then stays until the tool's result is persisted; a new run forgets it", () => {
    let stream = fold([
      { type: "tool_execution_start", toolCallId: "t1", toolName: "bash" },
      { type: "stream_delta", tools: { t1: { append: "line1\n" } } },
      { type: "stream_delta", tools: { t1: { append: "line2\n" } } },
    ]);
    expect(toolOutputIn(stream, "t1")).toBe("line1\nline2\n");
    expect(toolOutputIn(stream, "t2")).toBeNull();
    stream = nextSessionStream(stream, { type: "tool_execution_end", toolCallId: "t1", toolName: "bash", isError: false });
    expect(stream.live.tools).toEqual({});
    expect(toolOutputIn(stream, "t1")).toBe("line1\nline2\n");

    const pending = [toolEntry("a1", "t1", { status: "pending", resultText: "", resultEntryId: null })];
    expect(settleSessionStream(stream, pending)).toBe(stream);
    const done = [toolEntry("a1", "t1", { status: "done", resultText: "line1\nline2\n" })];
    expect(toolOutputIn(settleSessionStream(stream, done), "t1")).toBeNull();
    expect(toolOutputIn(nextSessionStream(stream, { type: "agent_start" }), "t1")).toBeNull();
  });
});

describe("live `!` command", () => {
  it("streams between start and end, then stays until its entry is persisted", () => {
    let stream = fold([
      { type: "bash_execution_start", command: "make" },
      { type: "stream_delta", bash: "building\n" },
    ]);
    expect(bashIn(stream)).toEqual({ command: "make", text: "building\n", running: true });
    stream = fold([{ type: "stream_delta", bash: "done\n" }, { type: "bash_execution_end" }], stream);
    expect(bashIn(stream)).toEqual({ command: "make", text: "building\ndone\n", running: false });

    // The latest bash entry must be it: another command, or the same command with other output, is not.
    expect(settleSessionStream(stream, [bashEntry("b0", "ls", "a\n", 0)])).toBe(stream);
    expect(settleSessionStream(stream, [bashEntry("b0", "make", "failed\n", 2)])).toBe(stream);
    expect(settleSessionStream(stream, [bashEntry("b1", "make", "building\ndone\n", 0), bashEntry("b0", "ls", "a\n", 0)])).toBe(stream);
    expect(
      bashIn(settleSessionStream(stream, [bashEntry("b0", "ls", "a\n", 0), bashEntry("b1", "make", "building\ndone\n", 0)])),
    ).toBeNull();
    // The next command replaces it.
    expect(bashIn(nextSessionStream(stream, { type: "bash_execution_start", command: "ls" }))).toEqual({
      command: "ls",
      text: "",
      running: true,
    });
  });
});

import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import {
  applyLiveEvent,
  applyStreamDeltas,
  EMPTY_LIVE_STREAM,
  isLiveStreamActive,
  LIVE_OUTPUT_LIMIT,
  type LiveStreamState,
  liveOutputTail,
  liveStreamStateOf,
  pushStreamDelta,
  type StreamDelta,
  type StreamedBlock,
  streamedArguments,
  streamedBlocksOf,
  streamedText,
} from "./live-stream.ts";
import { textDelta } from "./text-delta.ts";

type Event = { type: string } & Record<string, unknown>;

const chunkTextArb = fc.string({ unit: fc.constantFrom("a", "b", " ", "\n", "é", "{", '"'), maxLength: 40 });

/** A reply: text, thinking and tool call blocks, each streamed in chunks. */
const blockArb: fc.Arbitrary<{ block: StreamedBlock; chunks: string[] }> = fc.oneof(
  fc.array(chunkTextArb, { maxLength: 6 }).map((chunks) => ({ block: { type: "text" as const, text: chunks.join("") }, chunks })),
  fc.array(chunkTextArb, { maxLength: 6 }).map((chunks) => ({ block: { type: "thinking" as const, text: chunks.join("") }, chunks })),
  fc
    .record({
      id: fc.string({ minLength: 1, maxLength: 8 }),
      name: fc.constantFrom("bash", "read"),
      args: fc.dictionary(fc.string({ maxLength: 5 }), fc.string({ maxLength: 20 })),
      cuts: fc.array(fc.nat(), { maxLength: 5 }),
    })
    .map(({ id, name, args, cuts }) => {
      const json = JSON.stringify(args);
      const at = [...new Set(cuts.map((cut) => cut % (json.length + 1)))].sort((a, b) => a - b);
      const chunks = [0, ...at].map((from, i) => json.slice(from, [...at, json.length][i]));
      return { block: { type: "toolCall" as const, id, name, json }, chunks };
    }),
);

/** The deltas the worker would send for a reply's blocks, in order. */
function deltasOf(blocks: ReadonlyArray<{ block: StreamedBlock; chunks: string[] }>): StreamDelta[] {
  return blocks.flatMap(({ block, chunks }, index): StreamDelta[] =>
    block.type === "toolCall"
      ? [
          { kind: "toolCall", index, id: block.id, name: block.name, json: "" },
          ...chunks.map((json) => ({ kind: "toolCall" as const, index, json })),
        ]
      : [{ kind: block.type, index, text: "" }, ...chunks.map((text) => ({ kind: block.type, index, text }))],
  );
}

/** Cuts a list into consecutive groups (sizes from `sizes`, cycled). */
function groups<T>(items: readonly T[], sizes: readonly number[]): T[][] {
  const out: T[][] = [];
  for (let i = 0, g = 0; i < items.length; g++) {
    const size = 1 + (sizes.length === 0 ? items.length : (sizes[g % sizes.length] ?? 0) % 8);
    out.push(items.slice(i, i + size));
    i += size;
  }
  return out;
}

/** The stream_delta events of coalesced groups (merged as the worker merges them). */
function streamEvents(deltas: readonly StreamDelta[], sizes: readonly number[]): Event[] {
  return groups(deltas, sizes).map((group) => {
    const batch: StreamDelta[] = [];
    for (const delta of group) pushStreamDelta(batch, delta);
    return { type: "stream_delta", deltas: batch };
  });
}

function fold(events: readonly Event[], from: LiveStreamState = EMPTY_LIVE_STREAM): LiveStreamState {
  return events.reduce(applyLiveEvent, from);
}

const assistantStart = (timestamp: number): Event => ({ type: "message_start", message: { role: "assistant", content: [], timestamp } });
const assistantEnd: Event = { type: "message_end", message: { role: "assistant", stopReason: "stop", timestamp: 7 }, contentOmitted: true };

/** Events of every kind the worker sends, and some it never does. */
const eventArb: fc.Arbitrary<Event> = fc.oneof(
  fc.constant(assistantStart(7)),
  fc.constant(assistantEnd),
  fc.constant<Event>({ type: "message_start", message: { role: "user", content: "hi", timestamp: 1 } }),
  fc.array(blockArb, { maxLength: 3 }).map((blocks): Event => ({ type: "stream_delta", deltas: deltasOf(blocks) })),
  fc
    .record({ id: fc.constantFrom("t1", "t2"), text: chunkTextArb })
    .map(({ id, text }): Event => ({ type: "stream_delta", tools: { [id]: { append: text } } })),
  chunkTextArb.map((bash): Event => ({ type: "stream_delta", bash })),
  fc.constantFrom("t1", "t2").map((toolCallId): Event => ({ type: "tool_execution_start", toolCallId, toolName: "bash" })),
  fc.constantFrom("t1", "t2").map((toolCallId): Event => ({ type: "tool_execution_end", toolCallId, toolName: "bash", isError: false })),
  fc.constant<Event>({ type: "bash_execution_start", command: "ls" }),
  fc.constant<Event>({ type: "bash_execution_end" }),
  fc.constant<Event>({ type: "agent_end", contentOmitted: true }),
  fc.constantFrom<Event>({ type: "turn_start" }, { type: "queue_update", steering: [], followUp: [] }, { type: "some_future_event", x: 1 }),
);

describe("live stream laws", () => {
  test.prop([fc.array(blockArb, { maxLength: 5 }), fc.array(fc.nat(), { maxLength: 6 })])(
    "message_start, coalesced stream_deltas, message_end rebuild the reply exactly, however the deltas are grouped",
    (blocks, sizes) => {
      const events = [assistantStart(42), ...streamEvents(deltasOf(blocks), sizes)];
      const state = fold(events);
      expect(state.message).toEqual({ timestamp: 42, blocks: blocks.map(({ block }) => block) });
      const message = state.message ?? { timestamp: 0, blocks: [] };
      expect(streamedText(message)).toBe(blocks.flatMap(({ block }) => (block.type === "text" ? [block.text] : [])).join("\n"));
      expect(fold([assistantEnd], state).message).toBeNull();
    },
  );

  test.prop([fc.array(blockArb, { maxLength: 5 }), fc.array(fc.nat(), { maxLength: 6 })])(
    "pushing deltas one by one, then applying, equals applying them unmerged",
    (blocks, sizes) => {
      const deltas = deltasOf(blocks);
      for (const group of groups(deltas, sizes)) {
        const batch: StreamDelta[] = [];
        for (const delta of group) pushStreamDelta(batch, delta);
        expect(batch.length).toBeLessThanOrEqual(group.length);
        expect(applyStreamDeltas([], batch)).toEqual(applyStreamDeltas([], group));
      }
      const merged: StreamDelta[] = [];
      for (const delta of deltas) pushStreamDelta(merged, delta);
      expect(applyStreamDeltas([], merged)).toEqual(applyStreamDeltas([], deltas));
    },
  );

  test.prop([fc.array(eventArb, { maxLength: 30 }), fc.nat()])(
    "incremental: folding any prefix, then the rest, equals folding everything (the fold is a function of its events)",
    (events, split) => {
      const at = split % (events.length + 1);
      expect(fold(events.slice(at), fold(events.slice(0, at)))).toEqual(fold(events));
    },
  );

  test.prop([fc.array(eventArb, { maxLength: 30 }), fc.nat()])(
    "a subscriber restored from a stream_snapshot (through JSON) follows exactly like one that saw everything",
    (events, split) => {
      const at = split % (events.length + 1);
      const snapshot = JSON.parse(JSON.stringify({ type: "stream_snapshot", state: fold(events.slice(0, at)) })) as Event;
      expect(fold(events.slice(at), applyLiveEvent(EMPTY_LIVE_STREAM, snapshot))).toEqual(fold(events));
    },
  );

  test.prop([
    fc.array(eventArb, { maxLength: 20 }),
    fc.string({ maxLength: 12 }).filter((type) => !KNOWN.has(type)),
    fc.dictionary(fc.string({ maxLength: 5 }), fc.jsonValue()),
  ])("an unknown event leaves the state identical (the same object)", (events, type, extra) => {
    const state = fold(events);
    expect(applyLiveEvent(state, { ...extra, type })).toBe(state);
  });

  test.prop([fc.array(eventArb, { maxLength: 30 })])("the fold never mutates the state it is given", (events) => {
    let state = EMPTY_LIVE_STREAM;
    for (const event of events) {
      const before = JSON.stringify(state);
      const next = applyLiveEvent(state, event);
      expect(JSON.stringify(state)).toBe(before);
      state = next;
    }
  });

  test.prop([
    fc.array(fc.array(fc.string({ unit: fc.constantFrom("x", "y", "\n"), maxLength: 30 }), { maxLength: 30 }), { maxLength: 8 }),
    fc.integer({ min: 1, max: 200 }),
  ])("a tool's output sent as textDeltas of its tail-truncated whole output equals the latest output", (updates, keep) => {
    let state = applyLiveEvent(EMPTY_LIVE_STREAM, { type: "tool_execution_start", toolCallId: "t", toolName: "bash" });
    let sent = "";
    let all = "";
    for (const lines of updates) {
      all += lines.map((line) => `${line}\n`).join("");
      const output = all.slice(Math.max(0, all.length - keep));
      const delta = textDelta(sent, output);
      sent = output;
      state = applyLiveEvent(state, { type: "stream_delta", ...(delta !== null ? { tools: { t: delta } } : {}) });
      expect(state.tools["t"]).toEqual({ toolName: "bash", text: output });
    }
    expect(applyLiveEvent(state, { type: "tool_execution_end", toolCallId: "t" }).tools).toEqual({});
  });
});

const KNOWN = new Set([
  "message_start",
  "message_end",
  "stream_delta",
  "stream_snapshot",
  "tool_execution_start",
  "tool_execution_end",
  "bash_execution_start",
  "bash_execution_end",
  "agent_end",
]);

describe("applyLiveEvent", () => {
  it("keeps only assistant messages, from their start", () => {
    expect(applyLiveEvent(EMPTY_LIVE_STREAM, { type: "message_start", message: { role: "user", content: "x" } })).toBe(EMPTY_LIVE_STREAM);
    expect(applyLiveEvent(EMPTY_LIVE_STREAM, { type: "message_end", message: { role: "assistant" } })).toBe(EMPTY_LIVE_STREAM);
    // A provider that did not stream: the message starts with all its content.
    const whole = applyLiveEvent(EMPTY_LIVE_STREAM, {
      type: "message_start",
      message: {
        role: "assistant",
        timestamp: 5,
        content: [
          { type: "text", text: "all" },
          { type: "toolCall", id: "c", name: "read", arguments: { path: "a" } },
        ],
      },
    });
    expect(whole.message).toEqual({
      timestamp: 5,
      blocks: [
        { type: "text", text: "all" },
        { type: "toolCall", id: "c", name: "read", json: '{"path":"a"}' },
      ],
    });
  });

  it("streams a `!` command's output between its start and end, keeping only the tail", () => {
    let state = applyLiveEvent(EMPTY_LIVE_STREAM, { type: "bash_execution_start", command: "yes" });
    expect(state.bash).toEqual({ command: "yes", text: "" });
    expect(isLiveStreamActive(state)).toBe(true);
    state = applyLiveEvent(state, { type: "stream_delta", bash: "y\n" });
    state = applyLiveEvent(state, { type: "stream_delta", bash: "z".repeat(LIVE_OUTPUT_LIMIT - 1) });
    // (compared as booleans: a failure would print 64 K characters)
    expect(state.bash?.text === `\n${"z".repeat(LIVE_OUTPUT_LIMIT - 1)}`).toBe(true);
    expect(liveOutputTail(`ab${"z".repeat(LIVE_OUTPUT_LIMIT)}`) === "z".repeat(LIVE_OUTPUT_LIMIT)).toBe(true);
    state = applyLiveEvent(state, { type: "bash_execution_end" });
    expect(state).toEqual(EMPTY_LIVE_STREAM);
    expect(isLiveStreamActive(state)).toBe(false);
  });

  it("agent_end ends the message and the tools, not a running `!` command", () => {
    const state = fold([
      assistantStart(1),
      { type: "tool_execution_start", toolCallId: "t", toolName: "bash" },
      { type: "bash_execution_start", command: "sleep 5" },
      { type: "agent_end", contentOmitted: true },
    ]);
    expect(state).toEqual({ message: null, tools: {}, bash: { command: "sleep 5", text: "" } });
  });

  it("takes no junk: bad deltas are skipped, a bad snapshot is ignored", () => {
    const state = fold([
      assistantStart(1),
      {
        type: "stream_delta",
        deltas: [
          { kind: "text", index: 0 },
          { kind: "text", index: -1, text: "x" },
          { kind: "other", index: 0, text: "x" },
          { kind: "text", index: 0, text: "ok" },
        ],
      },
      { type: "stream_delta", tools: { t: { drop: "x" } }, bash: 3 },
    ]);
    expect(state).toEqual({ message: { timestamp: 1, blocks: [{ type: "text", text: "ok" }] }, tools: {}, bash: null });
    for (const junk of [
      null,
      {},
      { message: null, tools: [], bash: null },
      { message: { blocks: [] }, tools: {}, bash: null },
      { message: null, tools: { t: { text: 1 } }, bash: null },
    ]) {
      expect(applyLiveEvent(state, { type: "stream_snapshot", state: junk })).toBe(state);
      expect(liveStreamStateOf(junk)).toBeNull();
    }
  });
});

describe("streamed helpers", () => {
  it("reads a tool call's arguments once its JSON is complete", () => {
    expect(streamedArguments({ json: '{"command":"ls"}' })).toEqual({ command: "ls" });
    expect(streamedArguments({ json: '{"command":"l' })).toBeNull();
    expect(streamedArguments({ json: "[1]" })).toBeNull();
  });

  it("joins text or thinking blocks as the transcript does", () => {
    const message = {
      timestamp: 0,
      blocks: [
        { type: "thinking" as const, text: "t" },
        { type: "text" as const, text: "a" },
        { type: "text" as const, text: "b" },
      ],
    };
    expect(streamedText(message)).toBe("a\nb");
    expect(streamedText(message, "thinking")).toBe("t");
    expect(streamedBlocksOf("not content")).toEqual([]);
  });
});

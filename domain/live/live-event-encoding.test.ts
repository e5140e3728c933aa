import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import {
  EMPTY_MESSAGE_MEMORY,
  encodeLiveEvent,
  type LiveEncoding,
  type MessageEncodingMemory,
  toolResultText,
} from "./live-event-encoding.ts";
import { applyLiveEvent, EMPTY_LIVE_STREAM, pushStreamDelta, type StreamDelta } from "./live-stream.ts";

type Event = { type: string } & Record<string, unknown>;
type Block =
  | { type: "text"; text: string }
  | { type: "thinking"; thinking: string }
  | { type: "toolCall"; id: string; name: string; arguments: Record<string, unknown> };

function chunks(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

/**
 * The message_update events pi emits for an assistant message streamed as pi-ai's providers stream it (the
 * faux provider's order): per block a *_start, deltas, a *_end that repeats the block; each with the partial.
 * `wholeArguments`: the provider sends a tool call's arguments only in toolcall_end.
 */
function piUpdates(content: readonly Block[], size: number, wholeArguments: boolean): Event[] {
  const partial: Block[] = [];
  const update = (inner: Record<string, unknown>): Event => ({
    type: "message_update",
    message: { role: "assistant", content: structuredClone(partial) },
    assistantMessageEvent: { ...inner, partial: { role: "assistant", content: structuredClone(partial) } },
  });
  const events: Event[] = [];
  content.forEach((block, contentIndex) => {
    if (block.type === "toolCall") {
      partial.push({ ...block, arguments: {} });
      events.push(update({ type: "toolcall_start", contentIndex }));
      if (!wholeArguments)
        for (const delta of chunks(JSON.stringify(block.arguments), size))
          events.push(update({ type: "toolcall_delta", contentIndex, delta }));
      partial[contentIndex] = block;
      events.push(update({ type: "toolcall_end", contentIndex, toolCall: block }));
      return;
    }
    const kind = block.type;
    const whole = block.type === "text" ? block.text : block.thinking;
    partial.push(kind === "text" ? { type: "text", text: "" } : { type: "thinking", thinking: "" });
    events.push(update({ type: `${kind}_start`, contentIndex }));
    let soFar = "";
    for (const delta of chunks(whole, size)) {
      soFar += delta;
      partial[contentIndex] = kind === "text" ? { type: "text", text: soFar } : { type: "thinking", thinking: soFar };
      events.push(update({ type: `${kind}_delta`, contentIndex, delta }));
    }
    events.push(update({ type: `${kind}_end`, contentIndex, content: whole }));
  });
  return events;
}

const blockArb: fc.Arbitrary<Block> = fc.oneof(
  fc.string({ maxLength: 60 }).map((text): Block => ({ type: "text", text })),
  fc.string({ maxLength: 60 }).map((thinking): Block => ({ type: "thinking", thinking })),
  fc
    .record({
      id: fc.string({ minLength: 1, maxLength: 6 }),
      name: fc.constantFrom("bash", "read", "edit"),
      arguments: fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 2 })),
    })
    .map((call): Block => ({ type: "toolCall", ...call })),
);

function encodeAll(events: readonly Event[]): { encodings: LiveEncoding[]; memory: MessageEncodingMemory } {
  let memory = EMPTY_MESSAGE_MEMORY;
  const encodings: LiveEncoding[] = [];
  for (const event of events) {
    const next = encodeLiveEvent(event, memory);
    encodings.push(next.encoding);
    memory = next.memory;
  }
  return { encodings, memory };
}

describe("encodeLiveEvent laws", () => {
  test.prop([fc.array(blockArb, { maxLength: 5 }), fc.integer({ min: 1, max: 9 }), fc.boolean(), fc.array(fc.nat(), { maxLength: 5 })])(
    "a streamed assistant message, encoded and folded in any coalescing, rebuilds its content exactly",
    (content, size, wholeArguments, sizes) => {
      const start: Event = { type: "message_start", message: { role: "assistant", content: [], timestamp: 9 } };
      const { encodings } = encodeAll([start, ...piUpdates(content, size, wholeArguments)]);
      expect(encodings[0]).toEqual({ kind: "event", event: start, known: true });
      const deltas = encodings.slice(1).flatMap((encoding) => (encoding.kind === "message" ? encoding.deltas : []));
      expect(encodings.slice(1).every((encoding) => encoding.kind === "message" || encoding.kind === "none")).toBe(true);
      // Coalesce as the worker does: consecutive groups merged with pushStreamDelta, one stream_delta each.
      let state = applyLiveEvent(EMPTY_LIVE_STREAM, start);
      for (let i = 0, g = 0; i < deltas.length; g++) {
        const take = 1 + ((sizes[g % Math.max(1, sizes.length)] ?? 0) % 6);
        const batch: StreamDelta[] = [];
        for (const delta of deltas.slice(i, i + take)) pushStreamDelta(batch, delta);
        state = applyLiveEvent(state, { type: "stream_delta", deltas: batch });
        i += take;
      }
      expect(state.message?.blocks).toEqual(
        content.map((block) =>
          block.type === "toolCall"
            ? { type: "toolCall", id: block.id, name: block.name, json: JSON.stringify(block.arguments) }
            : { type: block.type, text: block.type === "text" ? block.text : block.thinking },
        ),
      );
    },
  );

  test.prop([
    fc.string({ maxLength: 12 }).filter((type) => !HANDLED.has(type)),
    fc.dictionary(fc.string({ maxLength: 5 }), fc.jsonValue()),
  ])("an event it does not know travels as it is, to be copied JSON-safe", (type, extra) => {
    const event = { ...extra, type };
    expect(encodeLiveEvent(event, EMPTY_MESSAGE_MEMORY)).toEqual({
      encoding: { kind: "event", event, known: false },
      memory: EMPTY_MESSAGE_MEMORY,
    });
  });
});

const HANDLED = new Set([
  "message_update",
  "message_start",
  "message_end",
  "turn_end",
  "agent_end",
  "tool_execution_start",
  "tool_execution_update",
  "tool_execution_end",
]);

const encode = (event: Event): LiveEncoding => encodeLiveEvent(event, EMPTY_MESSAGE_MEMORY).encoding;
const assistant = {
  role: "assistant",
  content: [{ type: "text", text: "the reply" }],
  stopReason: "stop",
  timestamp: 5,
  usage: { input: 1 },
};
const toolResult = {
  role: "toolResult",
  toolCallId: "c1",
  toolName: "bash",
  content: [{ type: "text", text: "output" }],
  isError: false,
  timestamp: 6,
};

describe("encodeLiveEvent", () => {
  it("leaves out the content the transcript carries", () => {
    expect(encode({ type: "message_end", message: assistant })).toEqual({
      kind: "event",
      event: {
        type: "message_end",
        message: { role: "assistant", stopReason: "stop", timestamp: 5, usage: { input: 1 } },
        contentOmitted: true,
      },
      known: true,
    });
    for (const type of ["message_start", "message_end"]) {
      expect(encode({ type, message: toolResult })).toEqual({
        kind: "event",
        event: {
          type,
          message: { role: "toolResult", toolCallId: "c1", toolName: "bash", isError: false, timestamp: 6 },
          contentOmitted: true,
        },
        known: true,
      });
    }
    expect(encode({ type: "turn_end", message: assistant, toolResults: [toolResult] })).toEqual({
      kind: "event",
      event: { type: "turn_end", contentOmitted: true },
      known: true,
    });
    expect(encode({ type: "agent_end", messages: [assistant, toolResult] })).toEqual({
      kind: "event",
      event: { type: "agent_end", contentOmitted: true },
      known: true,
    });
    expect(encode({ type: "tool_execution_start", toolCallId: "c1", toolName: "bash", args: { command: "ls" } })).toEqual({
      kind: "event",
      event: { type: "tool_execution_start", toolCallId: "c1", toolName: "bash" },
      known: true,
    });
    expect(encode({ type: "tool_execution_end", toolCallId: "c1", toolName: "bash", result: { content: [] }, isError: true })).toEqual({
      kind: "event",
      event: { type: "tool_execution_end", toolCallId: "c1", toolName: "bash", isError: true },
      known: true,
    });
  });

  it("keeps the user's and extensions' messages whole (only pi's own are known to be plain JSON)", () => {
    const user = { type: "message_end", message: { role: "user", content: [{ type: "text", text: "hi" }], timestamp: 1 } };
    expect(encode(user)).toEqual({ kind: "event", event: user, known: true });
    const custom = { type: "message_start", message: { role: "custom", customType: "x", content: "c", details: { any: 1 } } };
    expect(encode(custom)).toEqual({ kind: "event", event: custom, known: false });
    // An assistant message starts with what it has (all of it, from a provider that does not stream).
    const start = { type: "message_start", message: assistant };
    expect(encode(start)).toEqual({ kind: "event", event: start, known: true });
  });

  it("turns a tool's partial result into its text, and pi's streaming events into nothing else", () => {
    expect(
      encode({
        type: "tool_execution_update",
        toolCallId: "c1",
        toolName: "bash",
        args: {},
        partialResult: {
          content: [
            { type: "text", text: "a" },
            { type: "image", data: "x" },
            { type: "text", text: "b" },
          ],
        },
      }),
    ).toEqual({
      kind: "toolOutput",
      toolCallId: "c1",
      text: "a\nb",
    });
    expect(toolResultText(undefined)).toBe("");
    expect(toolResultText({ content: [] })).toBe("");
    const ended = {
      type: "message_update",
      message: assistant,
      assistantMessageEvent: { type: "text_end", contentIndex: 0, content: "the reply" },
    };
    expect(encode(ended)).toEqual({ kind: "none" });
    expect(encode({ type: "message_update", message: assistant })).toEqual({ kind: "none" });
  });

  it("remembers which tool calls streamed their JSON, from one message_start to the next", () => {
    const call = { type: "toolCall", id: "c1", name: "bash", arguments: { command: "ls" } };
    const update = (inner: Record<string, unknown>): Event => ({
      type: "message_update",
      message: { role: "assistant", content: [call] },
      assistantMessageEvent: inner,
    });
    let memory = EMPTY_MESSAGE_MEMORY;
    const step = (event: Event): LiveEncoding => {
      const next = encodeLiveEvent(event, memory);
      memory = next.memory;
      return next.encoding;
    };
    expect(step(update({ type: "toolcall_start", contentIndex: 0, partial: { content: [{ ...call, arguments: {} }] } }))).toEqual({
      kind: "message",
      deltas: [{ kind: "toolCall", index: 0, id: "c1", name: "bash", json: "" }],
    });
    expect(step(update({ type: "toolcall_delta", contentIndex: 0, delta: '{"command":"ls"}' }))).toEqual({
      kind: "message",
      deltas: [{ kind: "toolCall", index: 0, json: '{"command":"ls"}' }],
    });
    expect(memory.jsonStreamed).toEqual([0]);
    expect(step(update({ type: "toolcall_end", contentIndex: 0, toolCall: call }))).toEqual({
      kind: "message",
      deltas: [{ kind: "toolCall", index: 0, id: "c1", name: "bash", json: "" }],
    });
    step({ type: "message_start", message: { role: "assistant", content: [], timestamp: 2 } });
    expect(memory).toEqual(EMPTY_MESSAGE_MEMORY);
    expect(step(update({ type: "toolcall_end", contentIndex: 0, toolCall: call }))).toEqual({
      kind: "message",
      deltas: [{ kind: "toolCall", index: 0, id: "c1", name: "bash", json: '{"command":"ls"}' }],
    });
  });
});

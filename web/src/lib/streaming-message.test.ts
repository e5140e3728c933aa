import { describe, expect, it } from "vitest";
import { EMPTY_STREAM, nextStream, streamingFromMessage, type StreamState } from "./streaming-message.ts";

const assistant = (content: unknown[]) => ({ role: "assistant", content, api: "faux", provider: "faux", model: "faux-1" });

describe("streaming message", () => {
  it("builds text, thinking and tool calls from a partial assistant message", () => {
    const message = assistant([
      { type: "thinking", thinking: "Let me think" },
      { type: "text", text: "Hello" },
      { type: "toolCall", id: "call-1", name: "read", arguments: { path: "a.txt" } },
      { type: "text", text: "world" },
    ]);
    expect(streamingFromMessage("m1", message)).toEqual({
      id: "m1",
      role: "assistant",
      text: "Hello\nworld",
      thinking: "Let me think",
      toolCalls: [{ id: "call-1", name: "read", arguments: { path: "a.txt" } }],
    });
    expect(streamingFromMessage("m1", { role: "user", content: "hi" })).toBeNull();
  });

  it("follows message_start → message_update → message_end → agent_end with a stable id", () => {
    let state: StreamState = EMPTY_STREAM;
    state = nextStream(state, "s1", { type: "message_start", message: { role: "user", content: "hi" } });
    expect(state).toBe(EMPTY_STREAM);
    state = nextStream(state, "s1", { type: "message_start", message: assistant([]) });
    expect(state.message).toMatchObject({ id: "streaming:s1:1", text: "" });
    state = nextStream(state, "s1", { type: "message_update", message: assistant([{ type: "text", text: "Hel" }]) });
    state = nextStream(state, "s1", { type: "message_update", message: assistant([{ type: "text", text: "Hello" }]) });
    expect(state).toMatchObject({ message: { id: "streaming:s1:1", text: "Hello" }, ended: false });
    state = nextStream(state, "s1", { type: "message_end", message: assistant([{ type: "text", text: "Hello!" }]) });
    expect(state).toMatchObject({ message: { text: "Hello!" }, ended: true });
    state = nextStream(state, "s1", { type: "message_start", message: assistant([]) });
    expect(state).toMatchObject({ message: { id: "streaming:s1:2" }, ended: false });
    state = nextStream(state, "s1", { type: "agent_end", messages: [] });
    expect(state.ended).toBe(true);
    expect(nextStream(state, "s1", { type: "tool_execution_start" })).toBe(state);
  });

  it("starts a stream from an update when the start was missed (after a reconnect)", () => {
    const state = nextStream(EMPTY_STREAM, "s1", { type: "message_update", message: assistant([{ type: "text", text: "mid" }]) });
    expect(state).toMatchObject({ message: { id: "streaming:s1:1", text: "mid" }, ended: false, count: 1 });
  });
});

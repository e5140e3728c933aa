/**
 * The worker's half of live-stream.ts, pure: what one pi `AgentSessionEvent` becomes on the wire.
 *
 * - `message_update` (the streamed assistant message, whole, twice per token) becomes the `StreamDelta`s of its
 *   `assistantMessageEvent`, to be buffered and sent in the next `stream_delta`;
 * - `tool_execution_update` (a running tool's whole partial result) becomes the tool's current output text, to
 *   be buffered (the encoder sends the change since what it sent last);
 * - events that repeat content the transcript stream delivers anyway travel without it (`contentOmitted: true`):
 *   `message_start`/`message_end` of assistant (end only) and toolResult messages, `turn_end`, `agent_end`,
 *   `tool_execution_start` (no `args`) and `tool_execution_end` (no `result`);
 * - every other event travels as it is (`known: false`: the worker makes a JSON-safe copy of those).
 *
 * The user's and extensions' messages stay whole: the client shows the user's prompt from them before pi wrote it.
 */
import type { StreamDelta } from "./live-stream.ts";

type LooseEvent = { readonly type: string; readonly [key: string]: unknown };

/** What the encoder remembers within one streamed message. */
export interface MessageEncodingMemory {
  /** Content indexes of tool calls whose arguments arrived as `toolcall_delta` JSON fragments. */
  readonly jsonStreamed: readonly number[];
}

export const EMPTY_MESSAGE_MEMORY: MessageEncodingMemory = { jsonStreamed: [] };

export type LiveEncoding =
  /** Buffer these deltas of the streamed assistant message. */
  | { readonly kind: "message"; readonly deltas: readonly StreamDelta[] }
  /** Buffer this output of a running tool (its whole current text). */
  | { readonly kind: "toolOutput"; readonly toolCallId: string; readonly text: string }
  /** Send this event, after what is buffered. `known`: built here from known fields (plain JSON already). */
  | { readonly kind: "event"; readonly event: LooseEvent; readonly known: boolean }
  /** Nothing travels. */
  | { readonly kind: "none" };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function text(value: unknown): string {
  return typeof value === "string" ? value : "";
}

/** The text of a tool's (partial) result: its text blocks joined with "\n", as the transcript joins them. */
export function toolResultText(result: unknown): string {
  if (!isRecord(result) || !Array.isArray(result["content"])) return "";
  const parts: string[] = [];
  for (const block of result["content"]) if (isRecord(block) && block["type"] === "text") parts.push(text(block["text"]));
  return parts.join("\n");
}

/** A message without its content (the transcript has it), or the message itself when it has none. */
function withoutContent(message: Record<string, unknown>): Record<string, unknown> {
  const { content: _content, ...rest } = message;
  return rest;
}

/** The deltas of one `assistantMessageEvent` (pi-ai's streaming event of the message's block `contentIndex`). */
function messageDeltas(
  inner: Record<string, unknown>,
  memory: MessageEncodingMemory,
): { deltas: StreamDelta[]; memory: MessageEncodingMemory } {
  const index = inner["contentIndex"];
  if (typeof index !== "number") return { deltas: [], memory };
  switch (inner["type"]) {
    case "text_start":
      return { deltas: [{ kind: "text", index, text: "" }], memory };
    case "text_delta":
      return { deltas: [{ kind: "text", index, text: text(inner["delta"]) }], memory };
    case "thinking_start":
      return { deltas: [{ kind: "thinking", index, text: "" }], memory };
    case "thinking_delta":
      return { deltas: [{ kind: "thinking", index, text: text(inner["delta"]) }], memory };
    case "toolcall_start": {
      const partial = inner["partial"];
      const content = isRecord(partial) && Array.isArray(partial["content"]) ? (partial["content"] as unknown[]) : [];
      const block = content[index];
      const call = isRecord(block) ? block : {};
      return { deltas: [{ kind: "toolCall", index, id: text(call["id"]), name: text(call["name"]), json: "" }], memory };
    }
    case "toolcall_delta": {
      const streamed = memory.jsonStreamed.includes(index) ? memory : { jsonStreamed: [...memory.jsonStreamed, index] };
      return { deltas: [{ kind: "toolCall", index, json: text(inner["delta"]) }], memory: streamed };
    }
    case "toolcall_end": {
      // The finished call names itself again (a provider may know its id only now); its arguments travel here
      // only when no fragment did (a provider that sends the arguments whole).
      const call = isRecord(inner["toolCall"]) ? inner["toolCall"] : {};
      const json = memory.jsonStreamed.includes(index) ? "" : JSON.stringify(isRecord(call["arguments"]) ? call["arguments"] : {});
      return { deltas: [{ kind: "toolCall", index, id: text(call["id"]), name: text(call["name"]), json }], memory };
    }
    default:
      // text_end / thinking_end carry the whole block again; start, done and error are not message_update events.
      return { deltas: [], memory };
  }
}

/** What a pi session event becomes on the wire, and the memory for the next one. Never throws. */
export function encodeLiveEvent(
  event: LooseEvent,
  memory: MessageEncodingMemory,
): { encoding: LiveEncoding; memory: MessageEncodingMemory } {
  const message = isRecord(event["message"]) ? event["message"] : null;
  const role = message?.["role"];
  switch (event.type) {
    case "message_update": {
      const inner = event["assistantMessageEvent"];
      if (role !== "assistant" || !isRecord(inner)) return { encoding: { kind: "none" }, memory };
      const next = messageDeltas(inner, memory);
      return { encoding: next.deltas.length > 0 ? { kind: "message", deltas: next.deltas } : { kind: "none" }, memory: next.memory };
    }
    case "message_start":
    case "message_end": {
      if (message === null) return { encoding: { kind: "event", event, known: false }, memory };
      const next = event.type === "message_start" && role === "assistant" ? EMPTY_MESSAGE_MEMORY : memory;
      // An assistant message starts with what it has (usually nothing; everything when the provider did not stream).
      const slim = role === "toolResult" || (role === "assistant" && event.type === "message_end");
      const encoded = slim ? { type: event.type, message: withoutContent(message), contentOmitted: true } : { type: event.type, message };
      // pi's own messages are plain data; an extension's custom message may carry anything in `details`.
      const known = role === "user" || role === "assistant" || role === "toolResult";
      return { encoding: { kind: "event", event: encoded, known }, memory: next };
    }
    case "turn_end":
    case "agent_end":
      return { encoding: { kind: "event", event: { type: event.type, contentOmitted: true }, known: true }, memory };
    case "tool_execution_start":
      return {
        encoding: {
          kind: "event",
          event: { type: event.type, toolCallId: text(event["toolCallId"]), toolName: text(event["toolName"]) },
          known: true,
        },
        memory,
      };
    case "tool_execution_update":
      return {
        encoding: { kind: "toolOutput", toolCallId: text(event["toolCallId"]), text: toolResultText(event["partialResult"]) },
        memory,
      };
    case "tool_execution_end":
      return {
        encoding: {
          kind: "event",
          event: {
            type: event.type,
            toolCallId: text(event["toolCallId"]),
            toolName: text(event["toolName"]),
            isError: event["isError"] === true,
          },
          known: true,
        },
        memory,
      };
    default:
      return { encoding: { kind: "event", event, known: false }, memory };
  }
}

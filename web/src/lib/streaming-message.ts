/**
 * The live, not yet persisted assistant message of a running turn, built from runtime_event message_start /
 * message_update / message_end (pi's AgentEvent; the event's `message` is the partial AssistantMessage with
 * text, thinking and toolCall content blocks). The transcript shows it after the persisted entries until
 * the refetched detail contains the finished message.
 */

export interface StreamingToolCall {
  id: string;
  name: string;
  arguments: Record<string, unknown>;
}

/** The shape the contract gives W2's TranscriptView (`:streaming`). */
export interface StreamingMessage {
  id: string;
  role: "assistant";
  text: string;
  thinking: string;
  toolCalls: StreamingToolCall[];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The role of an event's `message`, or null. */
export function messageRole(message: unknown): string | null {
  return isRecord(message) && typeof message["role"] === "string" ? message["role"] : null;
}

/** A StreamingMessage with `id` from a (partial) pi assistant message; null when it is not one. */
export function streamingFromMessage(id: string, message: unknown): StreamingMessage | null {
  if (!isRecord(message) || message["role"] !== "assistant") return null;
  const content = Array.isArray(message["content"]) ? message["content"] : [];
  const text: string[] = [];
  const thinking: string[] = [];
  const toolCalls: StreamingToolCall[] = [];
  for (const block of content) {
    if (!isRecord(block)) continue;
    if (block["type"] === "text" && typeof block["text"] === "string") text.push(block["text"]);
    else if (block["type"] === "thinking" && typeof block["thinking"] === "string") thinking.push(block["thinking"]);
    else if (block["type"] === "toolCall") {
      toolCalls.push({
        id: typeof block["id"] === "string" ? block["id"] : `${id}:tool:${toolCalls.length}`,
        name: typeof block["name"] === "string" ? block["name"] : "",
        arguments: isRecord(block["arguments"]) ? block["arguments"] : {},
      });
    }
  }
  return { id, role: "assistant", text: text.join("\n"), thinking: thinking.join("\n"), toolCalls };
}

/** The live state of one session's stream. `ended` is set at message_end until the detail is refetched. */
export interface StreamState {
  message: StreamingMessage | null;
  ended: boolean;
  /** Counts message_start events, for stable ids. */
  count: number;
}

export const EMPTY_STREAM: StreamState = { message: null, ended: false, count: 0 };

/**
 * The next stream state for a pi runtime event (`event.type` message_start / message_update / message_end /
 * agent_end); other events leave it unchanged. `sessionId` makes ids unique across sessions.
 */
export function nextStream(state: StreamState, sessionId: string, event: { type: string; [key: string]: unknown }): StreamState {
  switch (event.type) {
    case "message_start": {
      if (messageRole(event["message"]) !== "assistant") return state;
      const count = state.count + 1;
      const id = `streaming:${sessionId}:${count}`;
      return { message: streamingFromMessage(id, event["message"]) ?? { id, role: "assistant", text: "", thinking: "", toolCalls: [] }, ended: false, count };
    }
    case "message_update": {
      if (messageRole(event["message"]) !== "assistant") return state;
      const started = state.message !== null && !state.ended;
      const count = started ? state.count : state.count + 1;
      const id = started && state.message ? state.message.id : `streaming:${sessionId}:${count}`;
      const message = streamingFromMessage(id, event["message"]);
      return message === null ? state : { message, ended: false, count };
    }
    case "message_end":
      if (messageRole(event["message"]) !== "assistant" || state.message === null) return state;
      return { ...state, message: streamingFromMessage(state.message.id, event["message"]) ?? state.message, ended: true };
    case "agent_end":
      return state.message === null ? state : { ...state, ended: true };
    default:
      return state;
  }
}

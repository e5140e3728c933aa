/**
 * The spec's SessionSummary and the pure rules that derive its fields from session entries. The rules
 * follow pi's own `SessionManager.listAll` (session-manager.js buildSessionInfo) so that both agree on
 * the same files; Leyline adds the 140-character limit, the research objective fallback and the
 * research and subagent fields.
 */
import type { SessionEntry } from "./session-log.ts";
import type { ResearchSummary } from "./research/research-types.ts";

export interface SessionSummary {
  id: string;
  path: string;
  cwd: string;
  name?: string;
  parentSessionPath?: string;
  isSubagentSession: boolean;
  research: ResearchSummary | null;
  firstMessage: string;
  messageCount: number;
  modified?: string;
  timestamp?: string;
}

export const FIRST_MESSAGE_LIMIT = 140;
export const NO_MESSAGES = "(no messages)";

/**
 * A child session run by the subagent extension carries one `custom` entry of this type, which links it
 * to its parent; it is what makes `isSubagentSession` true.
 */
export const SUBAGENT_CUSTOM_TYPE = "leyline-subagent";

/** Cuts text to at most `limit` characters without splitting a surrogate pair. */
export function truncateText(text: string, limit: number): string {
  if (text.length <= limit) return text;
  let end = limit;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end -= 1;
  return text.slice(0, end);
}

type MessageLike = { role?: unknown; content?: unknown; timestamp?: unknown };

function messageOf(entry: SessionEntry): MessageLike | null {
  if (entry.type !== "message") return null;
  const message: unknown = entry.message;
  return typeof message === "object" && message !== null ? (message as MessageLike) : null;
}

/** Text of a user or assistant message as pi's listing reads it: a string, or its text blocks joined by a space. */
export function messageText(message: MessageLike): string {
  const content = message.content;
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  const parts: string[] = [];
  for (const block of content) {
    if (typeof block === "object" && block !== null && (block as { type?: unknown }).type === "text") {
      const text = (block as { text?: unknown }).text;
      if (typeof text === "string") parts.push(text);
    }
  }
  return parts.join(" ");
}

function isUserOrAssistantWithContent(message: MessageLike): boolean {
  return (message.role === "user" || message.role === "assistant") && "content" in message;
}

/** The user-message text that may become `firstMessage`, or null when the entry is not one. */
export function userMessageText(entry: SessionEntry): string | null {
  const message = messageOf(entry);
  if (!message || message.role !== "user" || !("content" in message)) return null;
  const text = messageText(message);
  return text ? text : null;
}

/** The activity time (ms) a user or assistant message contributes to `modified`, or null. */
export function activityTime(entry: SessionEntry): number | null {
  const message = messageOf(entry);
  if (!message || !isUserOrAssistantWithContent(message)) return null;
  if (typeof message.timestamp === "number") return message.timestamp;
  const parsed = Date.parse(entry.timestamp);
  return Number.isNaN(parsed) ? null : parsed;
}

/** The name a session_info entry sets: trimmed, and blank clears it (null). */
export function sessionInfoName(entry: SessionEntry): string | null | undefined {
  if (entry.type !== "session_info") return undefined;
  const name = typeof entry.name === "string" ? entry.name.trim() : "";
  return name ? name : null;
}

export function isSubagentMarker(entry: SessionEntry): boolean {
  return entry.type === "custom" && entry.customType === SUBAGENT_CUSTOM_TYPE;
}

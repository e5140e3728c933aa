/**
 * What POST /api/pi/subagent answers about a finished child run, read from the child's active branch:
 * `messages` (role and text of every user and assistant message, in order), `usage` summed over the
 * assistant messages (`inputTokens` = pi's `input + cacheRead + cacheWrite`, so that inputTokens +
 * outputTokens = totalTokens; `outputTokens` = `output`; `totalTokens`; `cost` = `cost.total`; `turns` =
 * assistant messages), and the last assistant message's `stopReason`, `errorMessage` and model.
 *
 * Entries come from a file, so every field is checked; a field of the wrong type counts as absent.
 */
import type { SessionEntry } from "../session-log.ts";
import { messageUsage } from "../session-usage.ts";

export interface SubagentMessage {
  role: string;
  content: string;
}

export interface SubagentUsage {
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
  cost: number;
  turns: number;
}

/** The child session a run created (its persisted file). */
export interface SubagentChildSession {
  path: string;
  id: string;
  cwd: string;
}

/** The POST /api/pi/subagent success response (spec/api-reference.md). */
export interface SubagentResult {
  childSession: SubagentChildSession;
  messages: SubagentMessage[];
  usage: SubagentUsage;
  /** "provider/id". */
  model?: string;
  thinkingLevel?: string;
  stopReason?: string;
}

export interface SubagentRunSummary {
  messages: SubagentMessage[];
  usage: SubagentUsage;
  /** `stopReason` of the last assistant message. */
  stopReason?: string;
  /** `errorMessage` of the last assistant message. */
  errorMessage?: string;
  /** "provider/id" of the last assistant message. */
  model?: string;
}

export function emptySubagentUsage(): SubagentUsage {
  return { inputTokens: 0, outputTokens: 0, totalTokens: 0, cost: 0, turns: 0 };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The text blocks of a message's content, joined by newlines (a string content as it is). */
export function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  const parts: string[] = [];
  for (const block of content) {
    if (isRecord(block) && block["type"] === "text" && typeof block["text"] === "string") parts.push(block["text"]);
  }
  return parts.join("\n");
}

/** The run summary of a child's active branch (root to leaf). */
export function summarizeSubagentBranch(branch: readonly SessionEntry[]): SubagentRunSummary {
  const messages: SubagentMessage[] = [];
  const usage = emptySubagentUsage();
  let last: Record<string, unknown> | null = null;
  for (const entry of branch) {
    if (entry.type !== "message") continue;
    const message: unknown = entry.message;
    if (!isRecord(message)) continue;
    const role = message["role"];
    if (role !== "user" && role !== "assistant") continue;
    messages.push({ role, content: contentText(message["content"]) });
    if (role !== "assistant") continue;
    last = message;
    usage.turns += 1;
    const counts = messageUsage(message["usage"]);
    usage.inputTokens += counts.inputTokens;
    usage.outputTokens += counts.outputTokens;
    usage.totalTokens += counts.totalTokens;
    usage.cost += counts.cost;
  }
  const summary: SubagentRunSummary = { messages, usage };
  if (last !== null) {
    if (typeof last["stopReason"] === "string") summary.stopReason = last["stopReason"];
    if (typeof last["errorMessage"] === "string" && last["errorMessage"] !== "") summary.errorMessage = last["errorMessage"];
    if (typeof last["provider"] === "string" && typeof last["model"] === "string") summary.model = `${last["provider"]}/${last["model"]}`;
  }
  return summary;
}

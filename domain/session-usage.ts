/**
 * A session's model usage, counted as pi 1.x's `getSessionStats` counts it: over every entry of the file (all
 * branches), assistant messages, tool results that report nested model work, `usage` entries (model work
 * outside the conversation, e.g. cache warming) and the summaries of compactions and branch summaries.
 */
import type { SessionEntry } from "./session-log.ts";

export interface SessionUsage {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  /** input + output + cacheRead + cacheWrite. */
  totalTokens: number;
  /** In the providers' currency units (USD for the built-in catalog). */
  cost: number;
}

export function emptySessionUsage(): SessionUsage {
  return { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: 0 };
}

/** The usage record an entry reports, or null (pi's rules; see the module comment). */
export function entryUsage(entry: SessionEntry): unknown {
  const record = entry as unknown as Record<string, unknown>;
  switch (record["type"]) {
    case "usage":
    case "compaction":
    case "branch_summary":
      return record["usage"] ?? null;
    case "message": {
      const message = record["message"];
      if (typeof message !== "object" || message === null) return null;
      const role = (message as Record<string, unknown>)["role"];
      return role === "assistant" || role === "toolResult" ? ((message as Record<string, unknown>)["usage"] ?? null) : null;
    }
    default:
      return null;
  }
}

function count(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) ? value : 0;
}

/** Adds what `entry` reports to `totals` (mutates; works on drafts). */
export function addEntryUsage(totals: SessionUsage, entry: SessionEntry): void {
  const usage = entryUsage(entry);
  if (typeof usage !== "object" || usage === null) return;
  const record = usage as Record<string, unknown>;
  const input = count(record["input"]);
  const output = count(record["output"]);
  const cacheRead = count(record["cacheRead"]);
  const cacheWrite = count(record["cacheWrite"]);
  totals.input += input;
  totals.output += output;
  totals.cacheRead += cacheRead;
  totals.cacheWrite += cacheWrite;
  totals.totalTokens += input + output + cacheRead + cacheWrite;
  const cost = record["cost"];
  if (typeof cost === "object" && cost !== null) totals.cost += count((cost as Record<string, unknown>)["total"]);
}

/**
 * One model call's usage record (an assistant message's `usage`) as tokens in, tokens out, total and cost: input
 * counts cache reads and writes, as pi's footer does; a record without `totalTokens` totals input and output.
 * Subagent results and traces count a run with it, so the two always agree.
 */
export interface MessageUsage {
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
  cost: number;
}

export function messageUsage(value: unknown): MessageUsage {
  if (typeof value !== "object" || value === null) return { inputTokens: 0, outputTokens: 0, totalTokens: 0, cost: 0 };
  const record = value as Record<string, unknown>;
  const inputTokens = count(record["input"]) + count(record["cacheRead"]) + count(record["cacheWrite"]);
  const outputTokens = count(record["output"]);
  const total = count(record["totalTokens"]);
  const cost = record["cost"];
  return {
    inputTokens,
    outputTokens,
    totalTokens: total > 0 ? total : inputTokens + outputTokens,
    cost: typeof cost === "object" && cost !== null ? count((cost as Record<string, unknown>)["total"]) : 0,
  };
}

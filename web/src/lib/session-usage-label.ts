/**
 * Usage labels: the session header's line (tokens and cost over the whole file, every branch, as pi's session
 * stats count them: domain/session-usage.ts) and the discreet line under an assistant message (what that one
 * model call reported). Both say nothing when nothing was reported. Pure.
 */
import type { SessionUsage } from "../../../domain/session-usage.ts";
import type { AssistantMessageTranscriptEntry } from "../../../domain/transcript/transcript-types.ts";
import { compactNumber } from "./compact-number.ts";

/** pi's usage record of one model call. */
export type Usage = AssistantMessageTranscriptEntry["usage"];

export interface UsageLabel {
  /** "12.3k tokens · $0.42"; null when the session reports no usage. */
  text: string | null;
  /** The breakdown for a tooltip. */
  title: string;
}

/** A cost as people read it: "$0.42", small amounts with four decimals ("$0.0031"); "" for none. */
export function costText(cost: number): string {
  if (!Number.isFinite(cost) || cost <= 0) return "";
  return `$${cost < 0.01 ? cost.toFixed(4) : cost.toFixed(2)}`;
}

function count(value: number): string {
  return value.toLocaleString("en-US");
}

function finite(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) ? value : 0;
}

export function sessionUsageLabel(usage: SessionUsage | undefined): UsageLabel {
  if (usage === undefined || (usage.totalTokens <= 0 && usage.cost <= 0)) return { text: null, title: "" };
  const cost = costText(usage.cost);
  const breakdown = `Input ${count(usage.input)}, output ${count(usage.output)}, cache read ${count(usage.cacheRead)}, cache write ${count(usage.cacheWrite)} tokens`;
  return {
    text: `${compactNumber(usage.totalTokens)} tokens${cost === "" ? "" : ` · ${cost}`}`,
    title: `${breakdown}${cost === "" ? "" : `; cost ${cost}`} (the whole session, every branch)`,
  };
}

/**
 * One model call's usage (an assistant message's `usage`): "1.2k tokens · $0.0123", with the breakdown (and
 * whether the cost was billed by the provider or estimated from the model catalog) for a tooltip.
 */
export function turnUsageLabel(usage: Usage | undefined): UsageLabel {
  if (usage === undefined || usage === null) return { text: null, title: "" };
  const input = finite(usage.input);
  const output = finite(usage.output);
  const cacheRead = finite(usage.cacheRead);
  const cacheWrite = finite(usage.cacheWrite);
  const total = finite(usage.totalTokens) || input + output + cacheRead + cacheWrite;
  const costTotal = finite(usage.cost?.total);
  if (total <= 0 && costTotal <= 0) return { text: null, title: "" };
  const cost = costText(costTotal);
  const reasoning = typeof usage.reasoning === "number" && usage.reasoning > 0 ? ` (${count(usage.reasoning)} reasoning)` : "";
  const parts = [
    `Input ${count(input)}`,
    `output ${count(output)}${reasoning}`,
    `cache read ${count(cacheRead)}`,
    `cache write ${count(cacheWrite)} tokens`,
  ];
  const source = usage.cost?.totalFromProvider === true ? "billed by the provider" : "estimated from the model's prices";
  return {
    text: `${compactNumber(total)} tokens${cost === "" ? "" : ` · ${cost}`}`,
    title: `${parts.join(", ")}${cost === "" ? "" : `; cost ${cost} (${source})`}`,
  };
}

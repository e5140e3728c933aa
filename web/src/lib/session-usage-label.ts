/**
 * The session header's usage line: tokens and cost over the whole file, as pi's session stats count them
 * (domain/session-usage.ts). Pure.
 */
import type { SessionUsage } from "../../../domain/session-usage.ts";
import { compactNumber } from "./compact-number.ts";

export interface UsageLabel {
  /** "12.3k tokens · $0.42"; null when the session reports no usage. */
  text: string | null;
  /** The breakdown for a tooltip. */
  title: string;
}

export function sessionUsageLabel(usage: SessionUsage | undefined): UsageLabel {
  if (usage === undefined || (usage.totalTokens <= 0 && usage.cost <= 0)) return { text: null, title: "" };
  const cost = usage.cost > 0 ? ` · $${usage.cost < 0.01 ? usage.cost.toFixed(4) : usage.cost.toFixed(2)}` : "";
  return {
    text: `${compactNumber(usage.totalTokens)} tokens${cost}`,
    title: `Input ${usage.input.toLocaleString("en-US")}, output ${usage.output.toLocaleString("en-US")}, cache read ${usage.cacheRead.toLocaleString("en-US")}, cache write ${usage.cacheWrite.toLocaleString("en-US")} tokens`,
  };
}

/**
 * The model and thinking level a session's own entries set on its active branch, as pi restores them on resume
 * (`buildSessionContext` in pi's session-manager.js): walking the branch in order, the model is the latest of a
 * `model_change` and an assistant message's provider/model; the thinking level is the latest
 * `thinking_level_change`. Shown before any runtime exists (the runtime may then fall back, which it reports).
 * Pure: over the active-branch transcript (projections/transcript.projection.ts).
 */
import type { TranscriptEntry } from "./transcript/transcript-types.ts";

export interface SessionSettings {
  model: { provider: string; id: string } | null;
  thinkingLevel: string | null;
}

export function sessionSettingsOf(branch: readonly TranscriptEntry[]): SessionSettings {
  let model: SessionSettings["model"] = null;
  let thinkingLevel: string | null = null;
  for (const entry of branch) {
    if (entry.type === "model_change") model = { provider: entry.provider, id: entry.modelId };
    else if (entry.type === "thinking_level_change") thinkingLevel = entry.thinkingLevel;
    else if (entry.type === "message" && entry.role === "assistant") model = { provider: entry.provider, id: entry.model };
  }
  return { model, thinkingLevel };
}

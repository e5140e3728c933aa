/**
 * The session's own model and thinking level from its active branch: what pi's `buildSessionContext` restores
 * (compared on pi's v1 fixtures), branch-local, and null where the branch says nothing.
 */
import fs from "node:fs";
import path from "node:path";
import { buildSessionContext, migrateSessionEntries, parseSessionEntries, type SessionEntry } from "@earendil-works/pi-coding-agent";
import { describe, expect, it } from "vitest";
import { rebuild } from "../projections/projection.ts";
import { selectTranscript, transcriptProjection } from "../projections/transcript.projection.ts";
import { PI_SESSION_FIXTURES_DIR } from "../test/support/fixtures.ts";
import { decodeSessionText } from "./session-decoder.ts";
import { sessionSettingsOf } from "./session-settings.ts";
import { TINY_USAGE } from "../test/support/tiny-usage.ts";

function settingsOfText(text: string): ReturnType<typeof sessionSettingsOf> {
  return sessionSettingsOf(selectTranscript(rebuild(transcriptProjection, decodeSessionText(text).records)));
}

const header = JSON.stringify({ type: "session", version: 3, id: "s", timestamp: "2025-01-01T00:00:00.000Z", cwd: "/tmp" });
function line(value: Record<string, unknown>): string {
  return JSON.stringify({ timestamp: "2025-01-01T00:00:01.000Z", ...value });
}
function assistant(id: string, parentId: string | null, provider: string, model: string): string {
  return line({
    type: "message",
    id,
    parentId,
    message: {
      role: "assistant",
      content: [{ type: "text", text: "ok" }],
      api: "x",
      provider,
      model,
      usage: TINY_USAGE,
      stopReason: "stop",
      timestamp: 1,
    },
  });
}

describe("sessionSettingsOf", () => {
  for (const fixture of ["v1-before-compaction.jsonl", "v1-large-session.jsonl"]) {
    it(`agrees with pi's buildSessionContext on ${fixture}`, () => {
      const text = fs.readFileSync(path.join(PI_SESSION_FIXTURES_DIR, fixture), "utf8");
      const entries = parseSessionEntries(text);
      migrateSessionEntries(entries);
      const context = buildSessionContext(entries.filter((entry): entry is SessionEntry => entry.type !== "session"));
      const ours = settingsOfText(text);
      expect(ours.model).toEqual(context.model ? { provider: context.model.provider, id: context.model.modelId } : null);
      expect(ours.thinkingLevel).toBe(context.thinkingLevel);
    });
  }

  it("follows the active branch: the latest model_change or assistant model, the latest thinking level", () => {
    const text = [
      header,
      line({ type: "model_change", id: "a1", parentId: null, provider: "anthropic", modelId: "claude-a" }),
      line({ type: "thinking_level_change", id: "a2", parentId: "a1", thinkingLevel: "high" }),
      assistant("a3", "a2", "anthropic", "claude-a"),
      // another branch from a2, later in the file: the active one
      line({ type: "model_change", id: "b1", parentId: "a2", provider: "openai", modelId: "gpt-b" }),
      "",
    ].join("\n");
    expect(settingsOfText(text)).toEqual({ model: { provider: "openai", id: "gpt-b" }, thinkingLevel: "high" });
    const assistantLast = [
      header,
      line({ type: "model_change", id: "a1", parentId: null, provider: "anthropic", modelId: "claude-a" }),
      assistant("a2", "a1", "faux", "faux-2"),
      "",
    ].join("\n");
    expect(settingsOfText(assistantLast)).toEqual({ model: { provider: "faux", id: "faux-2" }, thinkingLevel: null });
    expect(settingsOfText(`${header}\n`)).toEqual({ model: null, thinkingLevel: null });
  });
});

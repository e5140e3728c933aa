import { describe, expect, it } from "vitest";
import type { RuntimeNotice } from "../../../domain/runtime/runtime-types.ts";
import type { TranscriptEntry } from "../../../domain/transcript/transcript-types.ts";
import { fallbackEntry, noticeKey, runtimeNotices, viewFacts, withPlacedEntries } from "./session-facts.ts";

const fallback: RuntimeNotice = {
  kind: "model-fallback",
  message: "Model x/y is not available: pi uses faux/faux-1.",
  requested: { provider: "x", id: "y" },
  used: { provider: "faux", id: "faux-1" },
};
const upgraded: RuntimeNotice = {
  kind: "file-upgraded",
  message: "Upgraded from version 1.",
  fromVersion: 1,
  backupPath: "/a/leyline-trash/s.jsonl",
};

describe("session facts", () => {
  it("reads the session's own model, thinking level, file version and read-only reason", () => {
    expect(viewFacts(null)).toEqual({ model: null, thinkingLevel: null, fileVersion: null, readOnly: null });
    const session = {
      model: { provider: "faux", id: "faux-1" },
      thinkingLevel: "high",
      fileVersion: 1,
      readOnly: { reason: "cwd-missing" as const, message: "gone" },
    } as unknown as Parameters<typeof viewFacts>[0];
    expect(viewFacts(session)).toEqual({
      model: { provider: "faux", id: "faux-1" },
      thinkingLevel: "high",
      fileVersion: 1,
      readOnly: { reason: "cwd-missing", message: "gone" },
    });
  });

  it("keeps the notices it knows, with words", () => {
    const odd = { kind: "something-new", message: "?" } as unknown as RuntimeNotice;
    const silent = { ...upgraded, message: "" };
    expect(runtimeNotices({ notices: [fallback, odd, silent, upgraded] })).toEqual([fallback, upgraded]);
    expect(runtimeNotices({})).toEqual([]);
    expect(runtimeNotices(null)).toEqual([]);
    expect(noticeKey("s1", upgraded)).not.toBe(noticeKey("s2", upgraded));
  });

  it("places a fallback line after the entry that was last when it appeared", () => {
    const entry = (id: string) =>
      ({
        id,
        type: "thinking_level_change",
        thinkingLevel: "low",
        copyText: "",
        timestamp: "2026-01-01T00:00:00.000Z",
        rolloutFeedback: "",
        rolloutFeedbackText: "",
      }) as TranscriptEntry;
    const line = fallbackEntry("k", fallback as Extract<RuntimeNotice, { kind: "model-fallback" }>, "2026-01-01T00:00:00.000Z");
    expect(line).toMatchObject({ type: "system", code: fallback.message });
    const ids = (list: TranscriptEntry[]) => list.map((e) => e.id);
    expect(ids(withPlacedEntries([entry("a"), entry("b"), entry("c")], [{ afterId: "a", entry: line }]))).toEqual(["a", line.id, "b", "c"]);
    expect(ids(withPlacedEntries([entry("a")], [{ afterId: null, entry: line }]))).toEqual([line.id, "a"]);
    expect(ids(withPlacedEntries([entry("a")], [{ afterId: "gone", entry: line }]))).toEqual(["a", line.id]);
  });
});

import { describe, expect, it } from "vitest";
import type { TranscriptEntry } from "../../../domain/transcript/transcript-types.ts";
import { activeSnapshot, compactSnapshot } from "./active.fixture.ts";
import { runStateOf } from "./run-state.ts";

const base = {
  timestamp: "2026-11-30T10:00:00Z",
  rolloutFeedback: "" as const,
  rolloutFeedbackText: "",
  text: "",
  blocks: [],
  copyText: "",
  messageTimestamp: 0,
};
const user = { ...base, id: "u", type: "message", role: "user" } as TranscriptEntry;
const answer = (stopReason: string) =>
  ({
    ...base,
    id: "a",
    type: "message",
    role: "assistant",
    provider: "faux",
    model: "f",
    stopReason,
    usage: {},
  }) as unknown as TranscriptEntry;

describe("runStateOf", () => {
  it("is working while streaming, compacting, running tools or sending a queued task", () => {
    expect(runStateOf(activeSnapshot("s", 1, { isStreaming: true }))).toBe("working");
    expect(runStateOf(activeSnapshot("s", 1, { isCompacting: true }))).toBe("working");
    expect(runStateOf(activeSnapshot("s", 1, { pendingToolCalls: ["t1"] }))).toBe("working");
    expect(
      runStateOf(
        activeSnapshot("s", 1, {
          promptQueue: { revision: 1, held: false, error: "", items: [{ id: "q", text: "x", imageCount: 0, status: "sending" }] },
        }),
      ),
    ).toBe("working");
  });

  it("is waiting for a pending confirmation (even while streaming) or a held queue with tasks", () => {
    expect(runStateOf(activeSnapshot("s", 1, { isStreaming: true, pendingConfirmationCount: 1 }))).toBe("waiting");
    expect(
      runStateOf(
        activeSnapshot("s", 1, {
          promptQueue: { revision: 1, held: true, error: "", items: [{ id: "q", text: "x", imageCount: 0, status: "pending" }] },
        }),
      ),
    ).toBe("waiting");
    expect(runStateOf(compactSnapshot("s", 1, { promptQueue: { count: 2, held: false, error: "vision model missing" } }))).toBe("waiting");
    // A held but empty queue is not waiting.
    expect(runStateOf(activeSnapshot("s", 1, { promptQueue: { revision: 1, held: true, error: "", items: [] } }))).toBe("idle");
  });

  it("is finished when nothing runs and the branch ends with an answer; idle otherwise", () => {
    expect(runStateOf(activeSnapshot("s", 1), [user, answer("stop")])).toBe("finished");
    expect(runStateOf(null, [user, answer("aborted")])).toBe("finished");
    expect(runStateOf(null, [answer("stop"), user])).toBe("idle");
    expect(runStateOf(null, [])).toBe("idle");
  });
});

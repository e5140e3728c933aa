import { describe, expect, it } from "vitest";
import type { SessionDetail } from "../session-detail.ts";
import type { TranscriptEntry } from "../transcript/transcript-types.ts";
import { sameFeedback, withEntryFeedback, withSessionFeedback, type EntryFeedback, type EntryFeedbackMap } from "./rollout-feedback.ts";

function entry(id: string): TranscriptEntry {
  return Object.freeze({
    id,
    type: "model_change",
    timestamp: "2026-01-01T00:00:00.000Z",
    rolloutFeedback: "",
    rolloutFeedbackText: "",
    provider: "p",
    modelId: "m",
    copyText: "Model: p/m",
  }) as TranscriptEntry;
}

describe("withEntryFeedback", () => {
  it("puts stored feedback on the entries it names, keeping every other entry (and the array without any) as it was", () => {
    const entries = [entry("a"), entry("b"), entry("c")];
    expect(withEntryFeedback(entries, undefined)).toBe(entries);
    expect(withEntryFeedback(entries, { z: { label: "helpful", text: "" } })).toBe(entries);

    const shown = withEntryFeedback(entries, { b: { label: "unhelpful", text: "too long" } });
    expect(shown).not.toBe(entries);
    expect(shown[0]).toBe(entries[0]);
    expect(shown[2]).toBe(entries[2]);
    expect(shown[1]).toEqual({ ...entries[1], rolloutFeedback: "unhelpful", rolloutFeedbackText: "too long" });
    expect(entries[1]?.rolloutFeedback).toBe("");
    // Already showing it: nothing to copy.
    expect(withEntryFeedback(shown, { b: { label: "unhelpful", text: "too long" } })).toBe(shown);
  });

  it("treats ids such as __proto__ and constructor as ids", () => {
    const feedback = Object.create(null) as EntryFeedbackMap;
    feedback["__proto__"] = { label: "helpful", text: "" };
    const entries = [entry("__proto__"), entry("constructor")];
    expect(withEntryFeedback(entries, feedback).map((e) => e.rolloutFeedback)).toEqual(["helpful", ""]);
    expect(withEntryFeedback(entries, {})).toBe(entries);
  });

  it("leaves a detail without feedback to show the same object", () => {
    const detail = { session: {}, entries: [entry("a")] } as unknown as SessionDetail;
    expect(withSessionFeedback(detail, {})).toBe(detail);
    const shown = withSessionFeedback(detail, { a: { label: "helpful", text: "x" } });
    expect(shown.session).toBe(detail.session);
    expect(shown.entries[0]).toMatchObject({ rolloutFeedback: "helpful", rolloutFeedbackText: "x" });
  });
});

describe("sameFeedback", () => {
  it("compares labels and notes by entry id; none and empty are the same", () => {
    const a: EntryFeedbackMap = { x: { label: "helpful", text: "" } };
    expect(sameFeedback(undefined, {})).toBe(true);
    expect(sameFeedback(a, { x: { label: "helpful", text: "" } })).toBe(true);
    expect(sameFeedback(a, { x: { label: "helpful", text: "n" } })).toBe(false);
    expect(sameFeedback(a, { x: { label: "unhelpful", text: "" } })).toBe(false);
    expect(sameFeedback(a, { y: { label: "helpful", text: "" } })).toBe(false);
    const verdict: EntryFeedback = { label: "helpful", text: "" };
    const named: EntryFeedbackMap = { constructor: verdict };
    expect(sameFeedback(named, {})).toBe(false);
    expect(sameFeedback({}, named)).toBe(false);
    expect(sameFeedback(a, undefined)).toBe(false);
  });
});

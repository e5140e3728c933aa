import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { TranscriptEntry } from "../../../domain/transcript/transcript-types.ts";
import { assistantEntry, userEntry } from "../components/transcript/transcript.fixture.ts";
import {
  dropProvisional,
  EMPTY_PROVISIONAL,
  isProvisionalEntry,
  nextProvisional,
  settleProvisional,
  userEntryFromMessage,
  withProvisional,
  type ProvisionalState,
} from "./provisional-entries.ts";

const T = Date.UTC(2026, 10, 30, 15, 29, 0);
/** pi's UserMessage as runtime_event message_start / message_end carry it. */
const userMessage = (text: string, timestamp = T) => ({ role: "user", content: [{ type: "text", text }], timestamp });
const start = (message: unknown) => ({ type: "message_start", message });
const end = (message: unknown) => ({ type: "message_end", message });

/** The entry pi's file will hold for the same message (its own id, the message's timestamp). */
const persistedUser = (id: string, text: string, timestamp = T): TranscriptEntry => ({
  ...userEntry(id, text),
  messageTimestamp: timestamp,
});
const persistedAssistant = (id: string, text: string, timestamp: number): TranscriptEntry => ({
  ...assistantEntry(id, text, null),
  messageTimestamp: timestamp,
});

function apply(events: Array<{ type: string; [key: string]: unknown }>, state: ProvisionalState = EMPTY_PROVISIONAL): ProvisionalState {
  return events.reduce((s, event) => nextProvisional(s, "s1", event), state);
}

describe("userEntryFromMessage", () => {
  it("turns pi's user message into a transcript entry: text and image blocks, the message time", () => {
    const entry = userEntryFromMessage("provisional:s1:1", {
      role: "user",
      content: [
        { type: "text", text: "Look at" },
        { type: "image", mimeType: "image/png", data: "iVBO" },
        { type: "text", text: "this." },
      ],
      timestamp: T,
    });
    expect(entry).toMatchObject({
      id: "provisional:s1:1",
      type: "message",
      role: "user",
      text: "Look at\nthis.",
      copyText: "Look at\nthis.",
      messageTimestamp: T,
      timestamp: new Date(T).toISOString(),
    });
    expect(entry?.blocks.map((b) => b.type)).toEqual(["text", "image", "text"]);
    expect(userEntryFromMessage("x", { role: "user", content: "plain", timestamp: T })?.text).toBe("plain");
  });

  it("ignores assistant messages, junk and user messages without a time", () => {
    expect(userEntryFromMessage("x", { role: "assistant", content: [], timestamp: T })).toBeNull();
    expect(userEntryFromMessage("x", { role: "user", content: "no time" })).toBeNull();
    expect(userEntryFromMessage("x", null)).toBeNull();
    expect(userEntryFromMessage("x", "text")).toBeNull();
  });
});

describe("provisional prompts", () => {
  it("shows a prompt from message_start once (message_end does not duplicate it), after the persisted entries", () => {
    const state = apply([start(userMessage("Explain streaming")), end(userMessage("Explain streaming"))]);
    expect(state.items).toHaveLength(1);
    const before = [persistedUser("u0", "Earlier", T - 10_000), persistedAssistant("a0", "Earlier answer", T - 5000)];
    const shown = withProvisional(before, state.items);
    expect(shown.map((e) => e.id)).toEqual(["u0", "a0", "provisional:s1:1"]);
    expect(shown[2] && isProvisionalEntry(shown[2])).toBe(true);
  });

  it("is replaced by the persisted entry of the same pi message: never both, and settling forgets it", () => {
    const state = apply([start(userMessage("Explain streaming")), start({ role: "assistant", content: [], timestamp: T + 10 })]);
    const persisted = [persistedUser("u1", "Explain streaming"), persistedAssistant("a1", "Streaming is…", T + 10)];
    expect(withProvisional(persisted, state.items).map((e) => e.id)).toEqual(["u1", "a1"]);
    expect(settleProvisional(state, persisted).items).toEqual([]);
    // The same text sent again later is a new prompt.
    const again = apply([start(userMessage("Explain streaming", T + 60_000))], state);
    expect(withProvisional(persisted, again.items).map((e) => e.id)).toEqual(["u1", "a1", "provisional:s1:2"]);
  });

  it("keeps several prompts in arrival order (a steer and a follow-up) until each is persisted", () => {
    const state = apply([start(userMessage("first", T)), start(userMessage("second", T + 1000))]);
    const persisted = [persistedUser("u1", "first", T)];
    expect(withProvisional(persisted, state.items).map((e) => (e.type === "message" ? e.text : ""))).toEqual(["first", "second"]);
    expect(settleProvisional(state, persisted).items.map((i) => i.entry.text)).toEqual(["second"]);
  });

  it("after a run ended, forgets a prompt the file passed over, but not one a too-early read lacks", () => {
    const state = apply([start(userMessage("lost", T))]);
    const mark = state.count;
    // Read before pi wrote anything new: nothing to judge by, the prompt stays.
    expect(settleProvisional(state, [persistedAssistant("a0", "old", T - 1000)], mark).items).toHaveLength(1);
    // The file holds an answer started after the prompt but not the prompt: it was not saved.
    expect(settleProvisional(state, [persistedAssistant("a1", "new", T + 500)], mark).items).toEqual([]);
    // Prompts that arrived after the mark are kept.
    const later = apply([start(userMessage("next", T + 2000))], state);
    expect(settleProvisional(later, [persistedAssistant("a1", "new", T + 500)], mark).items.map((i) => i.entry.text)).toEqual(["next"]);
    expect(dropProvisional(later, mark).items.map((i) => i.entry.text)).toEqual(["next"]);
  });

  it("never shows a message twice, whatever the events and the persisted entries", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom("message_start", "message_end"), fc.integer({ min: 0, max: 5 })), { maxLength: 12 }),
        fc.subarray([0, 1, 2, 3, 4, 5]),
        (events, persistedTimes) => {
          const state = apply(events.map(([type, n]) => ({ type, message: userMessage(`prompt ${n}`, T + n) })));
          const persisted = persistedTimes.map((n) => persistedUser(`u${n}`, `prompt ${n}`, T + n));
          const shown = withProvisional(persisted, state.items).map((e) => (e.type === "message" ? e.messageTimestamp : -1));
          return new Set(shown).size === shown.length;
        },
      ),
    );
  });
});

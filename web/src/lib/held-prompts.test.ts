import { describe, expect, it } from "vitest";
import {
  EMPTY_HELD,
  failHeld,
  HELD_RELOAD_FAILURE,
  heldLabel,
  holdPrompt,
  keepHeld,
  releasePrompt,
  restoreHeld,
  takeBackDraft,
  type HeldPrompt,
} from "./held-prompts.ts";

const image = {
  id: "a1",
  name: "shot.png",
  image: { type: "image" as const, data: "AAAA", mimeType: "image/png" },
  url: "data:image/png;base64,AAAA",
};
const prompt = (typed: string, attachments = [] as HeldPrompt["attachments"]): Omit<HeldPrompt, "seq"> => ({
  typed,
  attachments,
  request: { kind: "prompt", text: typed, images: attachments.map((a) => a.image) },
});

describe("held prompts", () => {
  it("keep the order they were sent in and drop each one once it is sent", () => {
    const one = holdPrompt(EMPTY_HELD, prompt("first"));
    const two = holdPrompt(one.state, prompt("second"));
    expect([one.seq, two.seq]).toEqual([1, 2]);
    expect(two.state.items.map((i) => i.typed)).toEqual(["first", "second"]);
    const after = releasePrompt(two.state, 1);
    expect(after.items.map((i) => i.typed)).toEqual(["second"]);
    expect(releasePrompt(after, 7)).toBe(after);
    // Numbers keep rising after a release (the store skips a seq that is no longer held).
    expect(holdPrompt(after, prompt("third")).seq).toBe(3);
  });

  it("come back into the composer in order, before what is typed now, images included", () => {
    const state = failHeld(holdPrompt(holdPrompt(EMPTY_HELD, prompt("one", [image])).state, prompt("!ls")).state, "Session not found");
    expect(state.failure).toBe("Session not found");
    expect(takeBackDraft(state.items, { text: "now", attachments: [] })).toEqual({ text: "one\n\n!ls\n\nnow", attachments: [image] });
    expect(takeBackDraft(state.items, { text: "  ", attachments: [] }).text).toBe("one\n\n!ls");
  });

  it("are labelled as sent: a shell command as $ command, images counted", () => {
    expect(
      heldLabel({ seq: 1, typed: "!ls -la", attachments: [], request: { kind: "bash", command: "ls -la", excludeFromContext: false } }),
    ).toBe("$ ls -la");
    expect(heldLabel({ seq: 2, ...prompt("look", [image]) })).toBe("look (+1 image)");
    expect(heldLabel({ seq: 3, ...prompt("", [image, image]) })).toBe("(2 images)");
  });
});

describe("held prompts across a reload", () => {
  it("keep each session's typed texts and come back failed, so the composer takes them back and nothing is resent", () => {
    const one = holdPrompt(holdPrompt(EMPTY_HELD, prompt("first", [image])).state, prompt("!ls")).state;
    const kept = keepHeld({ "s-1": one, "s-2": EMPTY_HELD, "s-3": holdPrompt(EMPTY_HELD, prompt("   ")).state });
    expect(kept).toEqual({ "s-1": ["first", "!ls"] });
    const restored = restoreHeld(JSON.stringify(kept));
    expect(Object.keys(restored)).toEqual(["s-1"]);
    expect(restored["s-1"]?.failure).toBe(HELD_RELOAD_FAILURE);
    expect(takeBackDraft(restored["s-1"]?.items ?? [], { text: "", attachments: [] }).text).toBe("first\n\n!ls");
  });

  it("ignore what is not a kept list", () => {
    for (const raw of [null, "", "not json", "[]", "null", '{"s":"text"}', '{"s":[1,null,""]}']) {
      expect(restoreHeld(raw)).toEqual({});
    }
  });
});

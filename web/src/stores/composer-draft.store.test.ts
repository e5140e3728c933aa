import { createPinia, setActivePinia } from "pinia";
import { beforeEach, describe, expect, it } from "vitest";
import { useComposerDraftStore } from "./composer-draft.store.ts";

describe("useComposerDraftStore", () => {
  beforeEach(() => setActivePinia(createPinia()));

  it("keeps one offer per session until the composer takes it", () => {
    const drafts = useComposerDraftStore();
    expect(drafts.pending("s1")).toBeNull();
    drafts.offer("s1", "first");
    drafts.offer("s2", "other");
    drafts.offer("s1", "second");
    expect(drafts.pending("s1")?.text).toBe("second");
    expect(drafts.take("s1")).toBe("second");
    expect(drafts.take("s1")).toBeNull();
    expect(drafts.pending("s2")?.text).toBe("other");
  });

  it("makes the same text offered twice a new offer", () => {
    const drafts = useComposerDraftStore();
    drafts.offer("s1", "again");
    const first = drafts.pending("s1")?.serial;
    drafts.offer("s1", "again");
    expect(drafts.pending("s1")?.serial).toBeGreaterThan(first ?? 0);
  });
});

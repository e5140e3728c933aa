import { createPinia, setActivePinia } from "pinia";
import { beforeEach, describe, expect, it } from "vitest";
import { activeSnapshot, compactSnapshot } from "../lib/active.fixture.ts";
import { useRuntimesStore } from "./runtimes.store.ts";

const assistant = (text: string) => ({ role: "assistant", content: [{ type: "text", text }] });

describe("useRuntimesStore", () => {
  beforeEach(() => setActivePinia(createPinia()));

  it("applies snapshots of a session only in increasing snapshotRevision, from any source", () => {
    const store = useRuntimesStore();
    store.beginGeneration();
    expect(store.applySnapshot(activeSnapshot("s1", 5, { thinkingLevel: "high" }))).not.toBeNull();
    // An older HTTP answer arriving late is rejected; so is a replay of the same revision.
    expect(store.applySnapshot(activeSnapshot("s1", 4, { thinkingLevel: "low" }))).toBeNull();
    expect(store.applySnapshot(activeSnapshot("s1", 5, { thinkingLevel: "low" }))).toBeNull();
    expect(store.activeOf("s1")?.state.thinkingLevel).toBe("high");
    expect(store.applySnapshot(activeSnapshot("s1", 6, { thinkingLevel: "off" }))).not.toBeNull();
    expect(store.activeOf("s1")?.state.thinkingLevel).toBe("off");
    // Revisions are per session.
    expect(store.applySnapshot(activeSnapshot("s2", 1))).not.toBeNull();
  });

  it("keeps compact snapshots apart from full ones, upgrades at equal revision, and ignores junk", () => {
    const store = useRuntimesStore();
    store.applySnapshot(compactSnapshot("s1", 3));
    expect(store.snapshotOf("s1")).not.toBeNull();
    expect(store.activeOf("s1")).toBeNull();
    store.applySnapshot(activeSnapshot("s1", 3));
    expect(store.activeOf("s1")).not.toBeNull();
    expect(store.applySnapshot({ id: 3 })).toBeNull();
    expect(store.applySnapshot(null)).toBeNull();
  });

  it("a new events connection (generation) accepts restarted revisions; the roster prunes closed runtimes", () => {
    const store = useRuntimesStore();
    store.applySnapshot(activeSnapshot("s1", 40));
    store.applySnapshot(activeSnapshot("gone", 2));
    store.beginGeneration();
    expect(store.applySnapshot(activeSnapshot("s1", 1, { thinkingLevel: "low" }))).not.toBeNull();
    expect(store.applySnapshot(activeSnapshot("s1", 1))).toBeNull();
    store.applyRoster(["s1"]);
    expect(Object.keys(store.snapshots)).toEqual(["s1"]);
    expect(store.isOpen("gone")).toBe(false);
    store.remove("s1");
    expect(store.snapshotOf("s1")).toBeNull();
  });

  it("merges extension_ui updates without stripping a full snapshot's confirmations", () => {
    const store = useRuntimesStore();
    store.applySnapshot(activeSnapshot("s1", 1));
    const confirmation = { id: "c1", title: "Proceed?", message: "Really?", createdAt: 1, expiresAt: null };
    store.applyExtensionUi("s1", { statuses: { x: "on" }, widgets: {}, notifications: [], confirmations: [confirmation] });
    expect(store.activeOf("s1")?.state.extensionUi.confirmations).toEqual([confirmation]);
    store.applyExtensionUi("s1", { statuses: {}, widgets: {}, notifications: [] });
    expect(store.activeOf("s1")?.state.extensionUi.confirmations).toEqual([confirmation]);
  });

  it("builds the streaming message from runtime events and drops it once settled", () => {
    const store = useRuntimesStore();
    store.applyRuntimeEvent("s1", { type: "message_start", message: assistant("") });
    store.applyRuntimeEvent("s1", { type: "message_update", message: assistant("Hel") });
    expect(store.streamingOf("s1")).toMatchObject({ role: "assistant", text: "Hel" });
    const id = store.streamingOf("s1")?.id ?? null;
    // Not ended yet: settling does nothing.
    store.settleStream("s1", id);
    expect(store.streamingOf("s1")).not.toBeNull();
    store.applyRuntimeEvent("s1", { type: "message_end", message: assistant("Hello") });
    expect(store.streamingOf("s1")?.text).toBe("Hello");
    // A settle for an older stream id leaves a newer stream alone.
    store.applyRuntimeEvent("s1", { type: "message_start", message: assistant("") });
    store.applyRuntimeEvent("s1", { type: "message_end", message: assistant("Second") });
    store.settleStream("s1", id);
    expect(store.streamingOf("s1")?.text).toBe("Second");
    store.settleStream("s1");
    expect(store.streamingOf("s1")).toBeNull();
    expect(store.streamingOf("other")).toBeNull();
  });
});

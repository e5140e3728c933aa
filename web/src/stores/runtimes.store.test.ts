import { createPinia, setActivePinia } from "pinia";
import { beforeEach, describe, expect, it } from "vitest";
import { assistantEntry, bashEntry, toolEntry } from "../components/transcript/transcript.fixture.ts";
import { activeSnapshot, compactSnapshot } from "../lib/active.fixture.ts";
import { useRuntimesStore } from "./runtimes.store.ts";

type Event = { type: string } & Record<string, unknown>;
const start = (timestamp: number): Event => ({ type: "message_start", message: { role: "assistant", content: [], timestamp } });
const end = (timestamp: number): Event => ({ type: "message_end", message: { role: "assistant", timestamp }, contentOmitted: true });
const text = (value: string): Event => ({ type: "stream_delta", deltas: [{ kind: "text", index: 0, text: value }] });
const reply = (timestamp: number) => ({ ...assistantEntry(`a${timestamp}`, "x", null), messageTimestamp: timestamp });

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

  it("builds the streaming message from the live events and drops it once settled (by id, or by the persisted entries)", () => {
    const store = useRuntimesStore();
    store.applyRuntimeEvent("s1", start(100));
    store.applyRuntimeEvent("s1", text("Hel"));
    expect(store.streamingOf("s1")).toMatchObject({ role: "assistant", text: "Hel", timestamp: 100 });
    const id = store.streamingOf("s1")?.id ?? null;
    // Not ended yet: settling does nothing.
    store.settleStream("s1", id);
    store.settleStreams("s1", [reply(100)]);
    expect(store.streamingOf("s1")).not.toBeNull();
    store.applyRuntimeEvent("s1", text("lo"));
    store.applyRuntimeEvent("s1", end(100));
    expect(store.streamingOf("s1")).toMatchObject({ id, text: "Hello" });
    expect(store.liveOf("s1").message).toBeNull();
    // A settle for an older stream id leaves a newer stream alone.
    store.applyRuntimeEvent("s1", start(200));
    store.applyRuntimeEvent("s1", text("Second"));
    store.applyRuntimeEvent("s1", end(200));
    store.settleStream("s1", id);
    expect(store.streamingOf("s1")?.text).toBe("Second");
    // The persisted transcript without the reply keeps it; with it, drops it.
    store.settleStreams("s1", [reply(100)]);
    expect(store.streamingOf("s1")?.text).toBe("Second");
    store.settleStreams("s1", [reply(100), reply(200)]);
    expect(store.streamingOf("s1")).toBeNull();
    store.applyRuntimeEvent("s1", start(300));
    store.applyRuntimeEvent("s1", end(300));
    store.settleStream("s1");
    expect(store.streamingOf("s1")).toBeNull();
    expect(store.streamingOf("other")).toBeNull();
  });

  it("keeps running tools' output and the running `!` command per session", () => {
    const store = useRuntimesStore();
    store.applyRuntimeEvent("s1", { type: "tool_execution_start", toolCallId: "t1", toolName: "bash" });
    store.applyRuntimeEvent("s1", { type: "stream_delta", tools: { t1: { append: "line1\n" } } });
    store.applyRuntimeEvent("s1", { type: "bash_execution_start", command: "make" });
    store.applyRuntimeEvent("s1", { type: "stream_delta", bash: "ok\n" });
    expect(store.toolOutputOf("s1", "t1")).toBe("line1\n");
    expect(store.toolOutputOf("s2", "t1")).toBeNull();
    expect(store.bashOf("s1")).toEqual({ command: "make", text: "ok\n", running: true });
    expect(store.bashOf("s2")).toBeNull();
    expect(store.liveOf("s1").tools).toEqual({ t1: { toolName: "bash", text: "line1\n" } });
    expect(store.liveOf(null)).toEqual({ message: null, tools: {}, bash: null });

    store.applyRuntimeEvent("s1", { type: "tool_execution_end", toolCallId: "t1", toolName: "bash", isError: false });
    store.applyRuntimeEvent("s1", { type: "bash_execution_end" });
    expect(store.toolOutputOf("s1", "t1")).toBe("line1\n");
    expect(store.bashOf("s1")).toEqual({ command: "make", text: "ok\n", running: false });
    store.settleStreams("s1", [toolEntry("a1", "t1", { status: "done" }), bashEntry("b1", "make", "ok\n", 0)]);
    expect(store.toolOutputOf("s1", "t1")).toBeNull();
    expect(store.bashOf("s1")).toBeNull();
  });

  it("a new socket generation clears the streams; a stream_snapshot restores them", () => {
    const store = useRuntimesStore();
    store.applyRuntimeEvent("s1", start(100));
    store.applyRuntimeEvent("s1", text("so far"));
    const server = store.liveOf("s1");
    store.beginGeneration();
    expect(store.streamingOf("s1")).toBeNull();
    store.applyRuntimeEvent("s1", { type: "stream_snapshot", state: JSON.parse(JSON.stringify(server)) as unknown });
    expect(store.streamingOf("s1")).toMatchObject({ text: "so far", timestamp: 100 });
    // A closed runtime takes its stream along.
    store.remove("s1");
    expect(store.streamingOf("s1")).toBeNull();
  });
});

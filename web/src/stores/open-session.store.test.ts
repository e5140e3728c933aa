import { flushPromises } from "@vue/test-utils";
import { createPinia, setActivePinia } from "pinia";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { TranscriptEntry } from "../../../domain/transcript/transcript-types.ts";
import { fakeBackend } from "../components/composer/composer.fixture.ts";
import { gatheringResearch, completedResearch } from "../components/research/research.fixture.ts";
import { assistantEntry, syntheticTranscript, userEntry } from "../components/transcript/transcript.fixture.ts";
import { detailSession, sessionDelta, snapshotChunks, unavailable } from "../lib/live-messages.fixture.ts";
import { useOpenSessionStore } from "./open-session.store.ts";
import { useRuntimesStore } from "./runtimes.store.ts";

const session = detailSession("s1");

describe("open session: the detail from the events socket", () => {
  let backend: ReturnType<typeof fakeBackend>;
  beforeEach(() => {
    setActivePinia(createPinia());
    backend = fakeBackend();
  });
  afterEach(() => backend.restore());

  /** Opens s1 and delivers a snapshot of `entries`; returns the store. */
  async function opened(entries: TranscriptEntry[] = syntheticTranscript(3), revision = 1) {
    const open = useOpenSessionStore();
    const done = open.open("s1");
    for (const chunk of snapshotChunks(session, entries, revision)) open.receiveSnapshot(chunk);
    await done;
    return open;
  }

  it("opening focuses the session on the socket; progress, then the snapshot's chunks make the detail; no HTTP request", async () => {
    const open = useOpenSessionStore();
    let resolved = false;
    const done = open.open("s1").then(() => (resolved = true));
    expect(open.focusRequest).toMatchObject({ sessionId: "s1", snapshot: true });
    expect(open.status).toBe("loading");

    open.receiveLoading({ sessionId: "s1", loadedBytes: 250, totalBytes: 1000 });
    open.receiveLoading({ sessionId: "other", loadedBytes: 900, totalBytes: 1000 });
    expect(open.progress).toEqual({ loadedBytes: 250, totalBytes: 1000 });

    const entries = syntheticTranscript(7);
    const [first, ...rest] = snapshotChunks(session, entries, 4, 3);
    open.receiveSnapshot(first!);
    await flushPromises();
    expect(open.detail).toBeNull();
    expect(resolved).toBe(false);
    for (const chunk of rest) open.receiveSnapshot(chunk);
    await done;
    expect(open.status).toBe("ready");
    expect(open.detail?.entries).toEqual(entries);
    expect(open.entries).toEqual(entries);
    expect(open.revision).toBe(4);
    expect(open.leafId).toBe(entries.at(-1)?.id);
    expect(open.progress).toBeNull();
    expect(backend.requests).toEqual([]);
  });

  it("applies deltas in revision order; another session's messages change nothing", async () => {
    const v1 = syntheticTranscript(2);
    const open = await opened(v1, 1);
    const v2 = [...v1, userEntry("u9", "next", 9)];
    open.receiveDelta(sessionDelta("other", v1, [], 1));
    open.receiveDelta(sessionDelta("s1", v1, v2, 1));
    expect(open.entries.map((e) => e.id)).toEqual(["n0", "n1", "u9"]);
    expect(open.revision).toBe(2);
    // The research panel follows the header's research through deltas.
    open.receiveDelta(sessionDelta("s1", v2, v2, 2, { session: { ...session, research: gatheringResearch() } }));
    expect(open.research?.phase).toBe(gatheringResearch().phase);
    open.receiveDelta(sessionDelta("s1", v2, v2, 3, { session: { ...session, research: completedResearch() } }));
    expect(open.research?.status).toBe("complete");
    expect(backend.requests).toEqual([]);
  });

  it("a delta it cannot follow asks the socket for a fresh snapshot", async () => {
    const v1 = syntheticTranscript(2);
    const open = await opened(v1, 1);
    const serial = open.focusRequest.serial;
    open.receiveDelta(sessionDelta("s1", v1, syntheticTranscript(3), 5));
    expect(open.focusRequest).toMatchObject({ sessionId: "s1", snapshot: true, serial: serial + 1 });
    // What is shown stays until the snapshot comes.
    expect(open.entries).toEqual(v1);
    const v3 = syntheticTranscript(4);
    for (const chunk of snapshotChunks(session, v3, 6)) open.receiveSnapshot(chunk);
    expect(open.entries).toEqual(v3);
    open.receiveDelta(sessionDelta("s1", v3, syntheticTranscript(5), 6));
    expect(open.entries).toHaveLength(5);
  });

  it("after a fresh stream keeps showing the detail, stale, until the new snapshot replaces it", async () => {
    const v1 = syntheticTranscript(2);
    const open = await opened(v1, 3);
    open.markStale();
    expect(open.stale).toBe(true);
    expect(open.entries).toEqual(v1);
    const serial = open.focusRequest.serial;
    // Deltas wait for the snapshot (the new stream's deltas follow it).
    open.receiveDelta(sessionDelta("s1", v1, syntheticTranscript(3), 3));
    expect(open.entries).toEqual(v1);
    expect(open.focusRequest.serial).toBe(serial);
    for (const chunk of snapshotChunks(session, syntheticTranscript(4), 1)) open.receiveSnapshot(chunk);
    expect(open.stale).toBe(false);
    expect(open.entries).toHaveLength(4);
    expect(open.revision).toBe(1);
  });

  it("a session that is not found or gone is missing; a read error says so; an unsaved runtime shows an empty detail", async () => {
    const open = useOpenSessionStore();
    const done = open.open("s1");
    open.receiveUnavailable(unavailable("s1", "not-found", "Session not found"));
    await done;
    expect(open.status).toBe("missing");
    expect(open.error).toBe("Session not found");
    // Written later: its snapshot arrives on the same focus.
    for (const chunk of snapshotChunks(session, syntheticTranscript(1))) open.receiveSnapshot(chunk);
    expect(open.status).toBe("ready");
    open.receiveUnavailable(unavailable("s1", "gone", "The session file no longer exists"));
    expect(open.status).toBe("missing");
    expect(open.detail).toBeNull();

    void open.open("s2");
    open.receiveUnavailable(unavailable("s2", "error", "The session cannot be read"));
    expect(open.status).toBe("error");
    expect(open.error).toBe("The session cannot be read");
    open.reload();
    expect(open.status).toBe("loading");
    expect(open.focusRequest).toMatchObject({ sessionId: "s2", snapshot: true });

    void open.open("s3");
    open.receiveUnavailable(unavailable("s3", "unsaved"));
    expect(open.status).toBe("ready");
    expect(open.detail?.session.id).toBe("s3");
    expect(open.detail?.entries).toEqual([]);
  });

  it("a new session's seed is shown (an unsaved answer keeps it) until the stream's snapshot", async () => {
    const open = useOpenSessionStore();
    const seed = { session: detailSession("s1", { name: "Seeded" }), entries: [] };
    await open.open("s1", { detail: seed });
    expect(open.status).toBe("ready");
    open.receiveUnavailable(unavailable("s1", "unsaved"));
    expect(open.detail?.session.name).toBe("Seeded");
    for (const chunk of snapshotChunks(session, syntheticTranscript(2))) open.receiveSnapshot(chunk);
    expect(open.detail?.session.name).toBeUndefined();
    expect(open.entries).toHaveLength(2);
  });

  it("a write route's detail shows at once until the stream's next change, unless the stream reported one since the request", async () => {
    const v1 = syntheticTranscript(3);
    const open = await opened(v1, 1);
    const mark = open.detailMark();
    const reset = { session, entries: v1.slice(0, 1) };
    open.applyDetail(reset, mark);
    expect(open.entries).toEqual(v1.slice(0, 1));
    // The stream reports the reset (a truncation): its detail replaces the answer.
    open.receiveDelta(sessionDelta("s1", v1, v1.slice(0, 1), 1));
    expect(open.entries).toEqual(v1.slice(0, 1));
    expect(open.revision).toBe(2);

    // An answer to a request sent before the stream's last change is older than what is shown: ignored.
    const before = open.detailMark();
    open.receiveDelta(sessionDelta("s1", v1.slice(0, 1), v1.slice(0, 2), 2));
    open.applyDetail({ session, entries: v1.slice(0, 1) }, before);
    expect(open.entries).toEqual(v1.slice(0, 2));
    // Another session's answer changes nothing.
    open.applyDetail({ session: detailSession("other"), entries: [] });
    expect(open.entries).toEqual(v1.slice(0, 2));
  });

  it("when the persisted entries change, the prompts and streamed output they hold are settled", async () => {
    const runtimes = useRuntimesStore();
    const provisionals = vi.spyOn(runtimes, "settleProvisionals");
    const streams = vi.spyOn(runtimes, "settleStreams");
    const T = Date.UTC(2026, 10, 30, 9, 0, 0);
    const open = await opened([], 1);
    runtimes.applyRuntimeEvent("s1", {
      type: "message_start",
      message: { role: "user", content: [{ type: "text", text: "hi" }], timestamp: T + 5000 },
    });
    expect(open.entries.map((e) => e.id)).toEqual(["provisional:s1:1"]);
    const persisted = [{ ...userEntry("u1", "hi", 5) }, assistantEntry("a1", "hello", null, 6)];
    open.receiveDelta(sessionDelta("s1", [], persisted, 1));
    await flushPromises();
    expect(provisionals).toHaveBeenLastCalledWith("s1", persisted, null);
    expect(streams).toHaveBeenLastCalledWith("s1", persisted);
    expect(open.entries.map((e) => e.id)).toEqual(["u1", "a1"]);
    expect(runtimes.provisionalOf("s1")).toEqual([]);

    // A run ends: prompts up to its mark that the transcript passed over go.
    open.noteRunEnded("s1", 7);
    expect(provisionals).toHaveBeenLastCalledWith("s1", persisted, 7);
  });

  it("drops a reply streamed then cut short once the transcript holds it (pi saves it with a new timestamp)", async () => {
    const runtimes = useRuntimesStore();
    const prompt = userEntry("u1", "go", 1);
    const open = await opened([prompt], 1);
    const T = prompt.messageTimestamp + 1000;
    runtimes.applyRuntimeEvent("s1", { type: "message_start", message: { role: "assistant", content: [], timestamp: T } });
    runtimes.applyRuntimeEvent("s1", { type: "stream_delta", deltas: [{ kind: "text", index: 0, text: "Sentence 1 keeps the st" }] });
    runtimes.applyRuntimeEvent("s1", { type: "agent_end" });
    open.settleLive();
    expect(open.streaming?.text).toBe("Sentence 1 keeps the st");
    const aborted = {
      ...assistantEntry("a1", "Sentence 1 keeps the st", null, 9),
      messageTimestamp: T + 600,
      stopReason: "aborted" as const,
    };
    open.receiveDelta(sessionDelta("s1", [prompt], [prompt, aborted], 1));
    await flushPromises();
    expect(open.streaming).toBeNull();
  });

  it("closing drops the focus", async () => {
    const open = await opened();
    open.close();
    expect(open.focusRequest).toMatchObject({ sessionId: "", snapshot: false });
    expect(open.detail).toBeNull();
    expect(open.status).toBe("idle");
  });
});

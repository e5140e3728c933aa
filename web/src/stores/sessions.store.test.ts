import { createPinia, setActivePinia } from "pinia";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { SessionRow } from "../../../domain/live/session-list.ts";
import { fakeBackend } from "../components/composer/composer.fixture.ts";
import { detailSession, indexStatus, listDelta, listSnapshot } from "../lib/live-messages.fixture.ts";
import { summary } from "../lib/session-fixtures.fixture.ts";
import { useSessionsStore, withLocalChanges } from "./sessions.store.ts";

const a = summary("a", { modified: "2026-11-30T10:00:00.000Z" });
const b = summary("b", { modified: "2026-11-30T09:00:00.000Z" });
const c = summary("c", { modified: "2026-11-30T11:00:00.000Z" });
const ids = (rows: readonly SessionRow[]) => rows.map((row) => row.id);

describe("sessions store: the list from the events socket", () => {
  let backend: ReturnType<typeof fakeBackend>;
  beforeEach(() => {
    setActivePinia(createPinia());
    backend = fakeBackend();
  });
  afterEach(() => backend.restore());

  it("takes a snapshot, then deltas (added, changed, removed rows) in list order, with the index status; no HTTP read", () => {
    const sessions = useSessionsStore();
    expect(sessions.status).toBe("idle");
    sessions.markStale();
    expect(sessions.status).toBe("loading");
    sessions.applyListSnapshot(listSnapshot([b, a], indexStatus({ filesOnDisk: 2, indexed: 2 })));
    expect(sessions.status).toBe("ready");
    expect(ids(sessions.sessions)).toEqual(["a", "b"]);
    expect(sessions.indexStatus?.filesOnDisk).toBe(2);

    const broken = indexStatus({ filesOnDisk: 4, indexed: 3, invalid: 1, invalidPaths: ["/agent/sessions/x.jsonl"] });
    sessions.applyListDelta(listDelta([c, { ...b, firstMessage: "changed" }], [a.path], 2, broken));
    expect(ids(sessions.sessions)).toEqual(["c", "b"]);
    expect(sessions.byId("b")?.firstMessage).toBe("changed");
    expect(sessions.indexStatus).toEqual(broken);
    expect(sessions.revision).toBe(2);
    // A runtime-only row (keyed runtime:<id>) comes first.
    sessions.applyListDelta(listDelta([{ ...summary("r", { path: "" }), runtimeOnly: true }], [], 3));
    expect(ids(sessions.sessions)).toEqual(["r", "c", "b"]);
    expect(backend.requests).toEqual([]);
  });

  it("after a fresh stream keeps the rows, marked stale, ignores deltas until the new snapshot replaces them", () => {
    const sessions = useSessionsStore();
    sessions.applyListSnapshot(listSnapshot([a, b]));
    sessions.markStale();
    expect(sessions.stale).toBe(true);
    expect(ids(sessions.sessions)).toEqual(["a", "b"]);
    sessions.applyListDelta(listDelta([c], [], 9));
    expect(ids(sessions.sessions)).toEqual(["a", "b"]);
    sessions.applyListSnapshot(listSnapshot([c], undefined, 1));
    expect(sessions.stale).toBe(false);
    expect(ids(sessions.sessions)).toEqual(["c"]);
  });

  it("renames at once; the server's delta for the session replaces the local row (the server wins)", async () => {
    backend.restore();
    backend = fakeBackend((request) =>
      request.method === "PATCH"
        ? { body: { ok: true, session: detailSession("a", { name: "Local name" }), detail: { session: detailSession("a"), entries: [] } } }
        : undefined,
    );
    const sessions = useSessionsStore();
    sessions.applyListSnapshot(listSnapshot([a, b]));
    await sessions.rename("a", "Local name");
    expect(backend.requests.map((r) => `${r.method} ${r.path}`)).toEqual(["PATCH /api/pi/sessions/a"]);
    expect(sessions.byId("a")?.name).toBe("Local name");
    sessions.applyListDelta(listDelta([{ ...a, name: "Server name" }], [], 2));
    expect(sessions.byId("a")?.name).toBe("Server name");
    // An unrelated delta does not bring the local row back.
    sessions.applyListDelta(listDelta([c], [], 3));
    expect(sessions.byId("a")?.name).toBe("Server name");
  });

  it("a rename answer is not applied over a delta for that session that came while the request ran", async () => {
    const sessions = useSessionsStore();
    let answer: () => void = () => undefined;
    backend.restore();
    backend = fakeBackend(async () => {
      await new Promise<void>((resolve) => (answer = resolve));
      return { body: { ok: true, session: detailSession("a", { name: "Older" }), detail: { session: detailSession("a"), entries: [] } } };
    });
    sessions.applyListSnapshot(listSnapshot([a]));
    const renaming = sessions.rename("a", "Older");
    await new Promise((resolve) => setTimeout(resolve, 0));
    sessions.applyListDelta(listDelta([{ ...a, name: "Newest" }], [], 2));
    answer();
    await renaming;
    expect(sessions.byId("a")?.name).toBe("Newest");
  });

  it("deletes at once; the server's removal confirms it, and a failed delete changes nothing", async () => {
    const sessions = useSessionsStore();
    sessions.applyListSnapshot(listSnapshot([a, b]));
    await sessions.remove("a");
    expect(ids(sessions.sessions)).toEqual(["b"]);
    sessions.applyListDelta(listDelta([], [a.path], 2));
    expect(ids(sessions.sessions)).toEqual(["b"]);

    backend.restore();
    backend = fakeBackend(() => ({ status: 500, body: { error: "Internal server error" } }));
    await expect(sessions.remove("b")).rejects.toThrow("Internal server error");
    expect(ids(sessions.sessions)).toEqual(["b"]);
  });

  it("shows a session just created until the server lists it, and not twice once it does", () => {
    const sessions = useSessionsStore();
    sessions.applyListSnapshot(listSnapshot([a]));
    const created = summary("new", { path: "", modified: undefined, messageCount: 0 });
    sessions.upsert(created);
    expect(ids(sessions.sessions)).toEqual(["new", "a"]);
    sessions.applyListDelta(listDelta([{ ...created, runtimeOnly: true }], [], 2));
    expect(ids(sessions.sessions)).toEqual(["new", "a"]);
    expect(sessions.byId("new")?.runtimeOnly).toBe(true);
    // Already listed: nothing local.
    sessions.upsert({ ...a, name: "ignored" });
    expect(sessions.byId("a")?.name).toBeUndefined();
  });
});

describe("withLocalChanges", () => {
  it("replaces rows by id, hides deleted ones, and puts rows the server lacks first", () => {
    expect(ids(withLocalChanges([a, b], {}))).toEqual(["a", "b"]);
    expect(withLocalChanges([a, b], { a: { ...a, name: "x" }, b: null }).map((r) => [r.id, r.name])).toEqual([["a", "x"]]);
    expect(ids(withLocalChanges([a], { z: summary("z") }))).toEqual(["z", "a"]);
  });
});

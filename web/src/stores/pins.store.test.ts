import { createPinia, setActivePinia } from "pinia";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { setApiBase } from "../api/http.ts";
import { fakeBackend, type FakeAnswer, type RecordedRequest } from "../components/composer/composer.fixture.ts";
import { inBatches } from "../components/sidebar/pinned-sessions.ts";
import { listSnapshot } from "../lib/live-messages.fixture.ts";
import { summary } from "../lib/session-fixtures.fixture.ts";
import { useBackendConnectionsStore } from "./backend-connections.store.ts";
import { useNoticesStore } from "./notices.store.ts";
import { usePinsStore, withPendingChanges, type PendingPinChange } from "./pins.store.ts";
import { useSessionsStore } from "./sessions.store.ts";

/**
 * The pinned-session routes as the spec describes them, in memory, behind `fetch` (the network boundary):
 * pins by connection in pin order, at most 200 per connection (400 beyond), prune of at most 500 ids.
 */
function pinServer(initial: Record<string, string[]> = {}) {
  const pins: Record<string, string[]> = structuredClone(initial);
  const answer = (connectionId: string, status = 200): FakeAnswer => ({
    status,
    body: { connectionId, pinnedIds: pins[connectionId] ?? [] },
  });
  const handle = (request: RecordedRequest): FakeAnswer | undefined => {
    const url = new URL(request.path, "http://native.test");
    if (!url.pathname.startsWith("/api/leyline/pinned-sessions")) return undefined;
    const body = (request.body ?? {}) as { connectionId?: string; sessionId?: string; sessionIds?: string[] };
    if (request.method === "GET") return answer(url.searchParams.get("connectionId") ?? "");
    if (request.method === "DELETE") {
      const connectionId = url.searchParams.get("connectionId") ?? "";
      pins[connectionId] = (pins[connectionId] ?? []).filter((id) => id !== url.searchParams.get("sessionId"));
      return answer(connectionId);
    }
    const connectionId = body.connectionId ?? "";
    const list = pins[connectionId] ?? [];
    if (url.pathname.endsWith("/prune")) {
      const ids = body.sessionIds ?? [];
      if (ids.length > 500) return { status: 400, body: { error: "sessionIds can hold at most 500 ids per request" } };
      pins[connectionId] = list.filter((id) => !ids.includes(id));
      return answer(connectionId);
    }
    const id = body.sessionId ?? "";
    if (!list.includes(id)) {
      if (list.length >= 200) return { status: 400, body: { error: "A connection can have at most 200 pinned sessions." } };
      pins[connectionId] = [...list, id];
    }
    return answer(connectionId, 201);
  };
  return { pins, handle };
}

const line = (request: RecordedRequest) => `${request.method} ${request.path}`;

/** A promise with its resolve function outside (to hold an answer back). */
function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve: () => void = () => undefined;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

let backend: ReturnType<typeof fakeBackend> | null = null;
beforeEach(() => setActivePinia(createPinia()));
afterEach(() => {
  backend?.restore();
  backend = null;
  setApiBase("");
});

describe("withPendingChanges", () => {
  const change = (seq: number, kind: PendingPinChange["kind"], id: string): PendingPinChange => ({ seq, kind, id });

  it("appends a pin once, removes an unpin, in the order made", () => {
    expect(withPendingChanges(["a", "b"], [])).toEqual(["a", "b"]);
    expect(withPendingChanges(["a"], [change(1, "pin", "c"), change(2, "pin", "a")])).toEqual(["a", "c"]);
    expect(withPendingChanges(["a", "b"], [change(1, "unpin", "a"), change(2, "pin", "a")])).toEqual(["b", "a"]);
    expect(withPendingChanges(["a"], [change(1, "pin", "b"), change(2, "unpin", "b")])).toEqual(["a"]);
  });
});

describe("pins store", () => {
  it("loads the active connection's pins from the native backend, even while the window talks to a remote one", async () => {
    const server = pinServer({ builtin: ["x"], remote1: ["a", "b"] });
    backend = fakeBackend(server.handle);
    setApiBase("http://remote.test/leyline");
    useBackendConnectionsStore().active = { id: "remote1", name: "Remote", url: "http://remote.test/leyline" };
    const pins = usePinsStore();
    expect(pins.status).toBe("idle");
    await pins.load();
    expect(pins.status).toBe("ready");
    expect(pins.pinnedIds).toEqual(["a", "b"]);
    // The page's own origin (no remote base path), scoped by the connection id.
    expect(backend.requests.map(line)).toEqual(["GET /api/leyline/pinned-sessions?connectionId=remote1"]);

    await pins.pin("c");
    await pins.unpin("a");
    expect(backend.requests.slice(1).map(line)).toEqual([
      "POST /api/leyline/pinned-sessions",
      "DELETE /api/leyline/pinned-sessions?connectionId=remote1&sessionId=a",
    ]);
    expect(backend.requests[1]?.body).toEqual({ connectionId: "remote1", sessionId: "c" });
    expect(server.pins["remote1"]).toEqual(["b", "c"]);
    expect(server.pins["builtin"]).toEqual(["x"]);
    expect(pins.pinnedIds).toEqual(["b", "c"]);
  });

  it("shows a pin at once; the server's answer then replaces the list", async () => {
    const server = pinServer({ builtin: ["a"] });
    const hold = deferred();
    backend = fakeBackend(async (request) => {
      if (request.method === "POST") await hold.promise;
      // The server knows of a pin made elsewhere meanwhile.
      if (request.method === "POST") server.pins["builtin"] = ["other", ...(server.pins["builtin"] ?? [])];
      return server.handle(request);
    });
    const pins = usePinsStore();
    await pins.load();
    const done = pins.pin("b");
    expect(pins.pinnedIds).toEqual(["a", "b"]);
    expect(pins.isPinned("b")).toBe(true);
    hold.resolve();
    expect(await done).toBe(true);
    expect(pins.pinnedIds).toEqual(["other", "a", "b"]);
    expect(pins.pending).toEqual([]);
  });

  it("takes a refused pin back and shows the server's words (the limit of 200 pins)", async () => {
    const full = Array.from({ length: 200 }, (_, i) => `s${i}`);
    backend = fakeBackend(pinServer({ builtin: full }).handle);
    const pins = usePinsStore();
    await pins.load();
    expect(await pins.pin("one-more")).toBe(false);
    expect(pins.pinnedIds).toEqual(full);
    const notices = useNoticesStore().notices;
    expect(notices.map((n) => [n.kind, n.context, n.message])).toEqual([
      ["error", "Pinning the session", "A connection can have at most 200 pinned sessions."],
    ]);
  });

  it("brings an unpinned session back when the request fails", async () => {
    backend = fakeBackend((request) =>
      request.method === "DELETE"
        ? { status: 500, body: { error: "database is locked" } }
        : pinServer({ builtin: ["a", "b"] }).handle(request),
    );
    const pins = usePinsStore();
    await pins.load();
    const done = pins.unpin("a");
    expect(pins.pinnedIds).toEqual(["b"]);
    expect(await done).toBe(false);
    expect(pins.pinnedIds).toEqual(["a", "b"]);
    expect(useNoticesStore().notices[0]?.message).toBe("database is locked");
    expect(useNoticesStore().notices[0]?.context).toBe("Unpinning the session");
  });

  it("sends one request at a time, in order; an answer applies the changes still on their way on top", async () => {
    const server = pinServer({ builtin: [] });
    const holds = [deferred(), deferred()];
    let posts = 0;
    backend = fakeBackend(async (request) => {
      if (request.method === "POST") await holds[posts++]?.promise;
      return server.handle(request);
    });
    const pins = usePinsStore();
    const first = pins.pin("a");
    const second = pins.pin("b");
    const third = pins.toggle("a"); // unpin a, made after both pins
    expect(pins.pinnedIds).toEqual(["b"]);
    await vi.waitFor(() => expect(backend?.requests).toHaveLength(1));
    holds[0]?.resolve();
    await first;
    // a's answer (["a"]) with b pinned and a unpinned still pending on top.
    expect(pins.pinnedIds).toEqual(["b"]);
    expect(backend.requests).toHaveLength(2);
    holds[1]?.resolve();
    expect(await Promise.all([second, third])).toEqual([true, true]);
    expect(backend.requests.map(line)).toEqual([
      "POST /api/leyline/pinned-sessions",
      "POST /api/leyline/pinned-sessions",
      "DELETE /api/leyline/pinned-sessions?connectionId=builtin&sessionId=a",
    ]);
    expect(pins.pinnedIds).toEqual(["b"]);
    expect(server.pins["builtin"]).toEqual(["b"]);
  });

  it("ignores an answer for another connection", async () => {
    backend = fakeBackend(() => ({ body: { connectionId: "someone-else", pinnedIds: ["z"] } }));
    const pins = usePinsStore();
    await pins.load();
    expect(pins.pinnedIds).toEqual([]);
  });

  it("prunes in the batches given, one after another", async () => {
    const stale = Array.from({ length: 1201 }, (_, i) => `gone-${i}`);
    const server = pinServer({ builtin: ["kept", ...stale] });
    backend = fakeBackend(server.handle);
    const pins = usePinsStore();
    await pins.load();
    expect(await pins.prune(inBatches(stale))).toBe(true);
    const prunes = backend.requests.filter((r) => r.path === "/api/leyline/pinned-sessions/prune");
    expect(prunes.map((r) => (r.body as { sessionIds: string[] }).sessionIds.length)).toEqual([500, 500, 201]);
    expect(prunes.map((r) => (r.body as { connectionId: string }).connectionId)).toEqual(["builtin", "builtin", "builtin"]);
    expect(prunes.flatMap((r) => (r.body as { sessionIds: string[] }).sessionIds)).toEqual(stale);
    expect(pins.pinnedIds).toEqual(["kept"]);
    expect(pins.pruning).toBe(false);
  });

  it("stops a prune at the first failing batch and says how many were removed", async () => {
    const stale = Array.from({ length: 1201 }, (_, i) => `gone-${i}`);
    const server = pinServer({ builtin: ["kept", ...stale] });
    let prunes = 0;
    backend = fakeBackend((request) => {
      if (request.path.endsWith("/prune") && ++prunes === 2) return { status: 500, body: { error: "disk I/O error" } };
      return server.handle(request);
    });
    const pins = usePinsStore();
    await pins.load();
    expect(await pins.prune(inBatches(stale))).toBe(false);
    expect(prunes).toBe(2); // the third batch was not sent
    expect(pins.pinnedIds).toEqual(["kept", ...stale.slice(500)]);
    const notice = useNoticesStore().notices[0];
    expect(notice?.context).toBe("Removing pins of deleted sessions");
    expect(notice?.message).toBe("Removed 500 of 1201 pins, then a request failed and the rest were kept: disk I/O error");
  });

  it("unpins a session deleted through Leyline (and sends nothing for one that is not pinned)", async () => {
    const server = pinServer({ builtin: ["a", "b"] });
    backend = fakeBackend(server.handle);
    const pins = usePinsStore();
    await pins.load();
    const sessions = useSessionsStore();
    sessions.applyListSnapshot(listSnapshot([summary("a"), summary("b"), summary("c")]));
    await sessions.remove("a");
    await vi.waitFor(() => expect(pins.pending).toEqual([]));
    await sessions.remove("c");
    expect(backend.requests.map(line).slice(1)).toEqual([
      "DELETE /api/pi/sessions/a",
      "DELETE /api/leyline/pinned-sessions?connectionId=builtin&sessionId=a",
      "DELETE /api/pi/sessions/c",
    ]);
    expect(pins.pinnedIds).toEqual(["b"]);
    expect(server.pins["builtin"]).toEqual(["b"]);
  });

  it("keeps the pin when the delete fails", async () => {
    const server = pinServer({ builtin: ["a"] });
    backend = fakeBackend((request) =>
      request.path.startsWith("/api/pi/sessions") ? { status: 500, body: { error: "cannot move the file" } } : server.handle(request),
    );
    const pins = usePinsStore();
    await pins.load();
    const sessions = useSessionsStore();
    await expect(sessions.remove("a")).rejects.toThrow("cannot move the file");
    expect(pins.pinnedIds).toEqual(["a"]);
    expect(backend.requests.filter((r) => r.path.startsWith("/api/leyline"))).toHaveLength(1);
  });

  it("reports a failed load and says so in its status", async () => {
    backend = fakeBackend(() => ({ status: 500, body: { error: "leyline.sqlite is not readable" } }));
    const pins = usePinsStore();
    await pins.load();
    expect(pins.status).toBe("error");
    expect(useNoticesStore().notices[0]?.message).toBe("leyline.sqlite is not readable");
  });
});

// @vitest-environment node
// The client stores against the real backend with a real runtime host (in-process workers, pi-ai's scripted
// faux model): start a session, watch a prompt stream into the open session and land in its transcript (a delta
// on the events socket), rename and delete from the list, reopen a persisted session from the socket alone (no
// HTTP request, no runtime, no write, the file unchanged) and act on it (prompts sent while pi starts are held and
// sent in order; a failed start gives them back), a missing id.
import fs from "node:fs";
import type { AddressInfo } from "node:net";
import { createPinia, setActivePinia } from "pinia";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { watch } from "vue";
import WebSocket from "ws";
import type { TranscriptEntry } from "../../../domain/transcript/transcript-types.ts";
import { runtimeApiSuite } from "../../../api/runtime-api.fixture.ts";
import type { SocketLike } from "../api/events-socket.ts";
import { http, setApiBase } from "../api/http.ts";
import { startSession } from "../views/start-session.ts";
import { useConnectionStore } from "./connection.store.ts";
import { useNoticesStore } from "./notices.store.ts";
import { useOpenSessionStore } from "./open-session.store.ts";
import { useRuntimesStore } from "./runtimes.store.ts";
import { useSessionsStore } from "./sessions.store.ts";

const suite = runtimeApiSuite("leyline-web-stores-");
const stopped: Array<() => void> = [];

beforeAll(suite.setUp);
afterEach(async () => {
  for (const stop of stopped.splice(0)) stop();
  await suite.closeApps();
  setApiBase("");
});
afterAll(suite.tearDown);

const messageRoles = (entries: readonly TranscriptEntry[]) => entries.flatMap((e) => (e.type === "message" ? [e.role] : []));
const waitFor = <T>(check: () => T, timeout = 20_000) => vi.waitFor(check, { timeout, interval: 15 });

async function setUp(turns: Array<{ match?: string; text?: string; thinking?: string }>) {
  const app = await suite.makeApp({ turns });
  await app.listen({ port: 0, host: "127.0.0.1" });
  const port = (app.server.address() as AddressInfo).port;
  setApiBase(`http://127.0.0.1:${port}`);
  setActivePinia(createPinia());
  const connection = useConnectionStore();
  stopped.push(() => connection.stop());
  connection.start({ wsBase: `ws://127.0.0.1:${port}`, createSocket: (url) => new WebSocket(url) as unknown as SocketLike });
  await waitFor(() => expect(connection.status).toBe("connected"));
  return {
    app,
    connection,
    sessions: useSessionsStore(),
    openSession: useOpenSessionStore(),
    runtimes: useRuntimesStore(),
    notices: useNoticesStore(),
  };
}

describe("stores ↔ a real runtime", { timeout: 60_000 }, () => {
  it("starts a session, streams a prompt's answer live, then shows it from the transcript's delta", async () => {
    const { sessions, openSession, runtimes, connection } = await setUp([
      { match: "hello", thinking: "The user greets me.", text: "Hello from the faux model, streamed in several small pieces of text." },
    ]);
    const { id, warnings } = await startSession({ cwd: suite.dirs.cwd, kind: "session" });
    expect(warnings).toEqual([]);
    expect(openSession.id).toBe(id);
    expect(openSession.status).toBe("ready");
    expect(openSession.entries).toEqual([]);
    expect(sessions.byId(id)).toBeDefined();
    // The socket refocuses on the new session and gets its full snapshot.
    await waitFor(() => expect(openSession.active?.id).toBe(id));
    await waitFor(() => expect(connection.status).toBe("connected"));

    const streamed: string[] = [];
    const states: string[] = [];
    const stopWatch = watch(
      () => [openSession.streaming?.text ?? null, openSession.runState] as const,
      ([text, state]) => {
        if (text !== null) streamed.push(text);
        states.push(state);
      },
      { flush: "sync" },
    );
    stopped.push(stopWatch);

    await http.post(`/api/pi/sessions/${encodeURIComponent(id)}/prompt`, { text: "hello there" });
    await waitFor(() => {
      const assistant = openSession.entries.find((e) => e.type === "message" && e.role === "assistant");
      expect(assistant?.type === "message" ? assistant.text : "").toContain("Hello from the faux model");
    });
    await waitFor(() => expect(openSession.streaming).toBeNull());
    await waitFor(() => expect(openSession.runState).toBe("finished"));

    // The partial message was visible while the turn ran, growing to the full answer.
    expect(streamed.length).toBeGreaterThan(0);
    expect(streamed.at(-1)).toContain("Hello from the faux model");
    expect(states).toContain("working");
    expect(messageRoles(openSession.entries)).toEqual(["user", "assistant"]);
    expect(runtimes.activeOf(id)?.state.isStreaming).toBe(false);
    // The list row follows (first message) with the list's delta.
    await waitFor(() => expect(sessions.byId(id)?.firstMessage).toBe("hello there"));
    expect(sessions.sessions.filter((s) => s.id === id)).toHaveLength(1);
  });

  it("renames and deletes through the list; reopening a persisted session starts no runtime", async () => {
    const { app, sessions, openSession, runtimes } = await setUp([{ text: "Noted." }]);
    const { id } = await startSession({ cwd: suite.dirs.cwd, kind: "session" });
    await http.post(`/api/pi/sessions/${encodeURIComponent(id)}/prompt`, { text: "remember this" });
    await waitFor(() => expect(messageRoles(openSession.entries)).toEqual(["user", "assistant"]));
    const entryCount = openSession.entries.length;
    const file = openSession.detail?.session.sessionFile ?? "";

    await sessions.rename(id, "  My   renamed session ");
    expect(sessions.byId(id)?.name).toBe("My renamed session");

    // Close the runtime (as idle cleanup would), then open the session again from its file.
    openSession.close();
    await app.leyline.host.close(id);
    await waitFor(() => expect(runtimes.isOpen(id)).toBe(false));
    await openSession.open(id);
    expect(openSession.status).toBe("ready");
    expect(openSession.entries).toHaveLength(entryCount);
    expect(openSession.runtimeStatus).toBe("none");
    expect(app.leyline.host.get(id)).toBeUndefined();
    expect(openSession.active).toBeNull();

    expect(sessions.byId(id)?.name).toBe("My renamed session");
    openSession.close();
    const revision = sessions.revision;
    await sessions.remove(id);
    expect(sessions.byId(id)).toBeUndefined();
    // The server's removal arrives as a delta; the session stays gone.
    await waitFor(() => expect(sessions.revision).toBeGreaterThan(revision));
    await waitFor(() => expect(sessions.sessions.some((s) => s.path === file)).toBe(false));
    expect(sessions.byId(id)).toBeUndefined();
  });

  it("opening a persisted session sends no request and leaves its file as it was; the first prompts start pi and go in order", async () => {
    const { app, openSession, runtimes } = await setUp([
      { match: "remember", text: "Noted." },
      { match: "first after reopening", text: "Reply one." },
      { match: "second after reopening", text: "Reply two." },
    ]);
    const { id } = await startSession({ cwd: suite.dirs.cwd, kind: "session" });
    await http.post(`/api/pi/sessions/${encodeURIComponent(id)}/prompt`, { text: "remember this" });
    await waitFor(() => expect(messageRoles(openSession.entries)).toEqual(["user", "assistant"]));
    const file = openSession.detail?.session.sessionFile ?? "";
    openSession.close();
    await app.leyline.host.close(id);
    await waitFor(() => expect(runtimes.isOpen(id)).toBe(false));
    const bytes = fs.readFileSync(file);
    const mtime = fs.statSync(file).mtimeMs;

    const fetchSpy = vi.spyOn(globalThis, "fetch");
    stopped.push(() => fetchSpy.mockRestore());
    await openSession.open(id);
    expect(openSession.status).toBe("ready");
    expect(messageRoles(openSession.entries)).toEqual(["user", "assistant"]);
    // The socket refocused and sent the detail: no HTTP request, no runtime, the file untouched.
    await waitFor(() => expect(runtimes.rosterSeen).toBe(true));
    expect(fetchSpy).not.toHaveBeenCalled();
    expect(app.leyline.host.get(id)).toBeUndefined();
    expect(runtimes.isOpen(id)).toBe(false);
    expect(fs.readFileSync(file).equals(bytes)).toBe(true);
    expect(fs.statSync(file).mtimeMs).toBe(mtime);

    // Two prompts sent at once, before pi runs: held in order, shown as waiting, then sent when it is ready.
    const item = (typed: string) => ({ typed, attachments: [], request: { kind: "prompt" as const, text: typed, images: [] } });
    openSession.hold(id, item("first after reopening"));
    openSession.hold(id, item("second after reopening"));
    expect(openSession.heldOf(id).items.map((i) => i.typed)).toEqual(["first after reopening", "second after reopening"]);
    expect(openSession.runtimeStatus).toBe("opening");
    await waitFor(() => expect(openSession.heldOf(id).items).toEqual([]));
    expect(openSession.heldOf(id).failure).toBe("");
    await waitFor(() => {
      const texts = openSession.entries.flatMap((e) => (e.type === "message" ? [`${e.role}:${e.text}`] : []));
      expect(texts).toEqual([
        "user:remember this",
        "assistant:Noted.",
        "user:first after reopening",
        "assistant:Reply one.",
        "user:second after reopening",
        "assistant:Reply two.",
      ]);
    });
    expect(openSession.runtimeStatus).toBe("open");
    // The runtime was started by the first action (selecting the session), then the prompts: in this order.
    const writes = fetchSpy.mock.calls.flatMap(([input, init]) => (init?.method === "POST" ? [new URL(String(input)).pathname] : []));
    expect(writes).toEqual(["/api/pi/active-session", `/api/pi/sessions/${id}/prompt`, `/api/pi/sessions/${id}/prompt`]);
  });

  it("a start that fails gives the held prompts back with the reason", async () => {
    const { app, openSession, runtimes } = await setUp([{ match: "keep", text: "Kept." }]);
    const { id } = await startSession({ cwd: suite.dirs.cwd, kind: "session" });
    await http.post(`/api/pi/sessions/${encodeURIComponent(id)}/prompt`, { text: "keep this" });
    await waitFor(() => expect(messageRoles(openSession.entries)).toEqual(["user", "assistant"]));
    const file = openSession.detail?.session.sessionFile ?? "";
    openSession.close();
    await app.leyline.host.close(id);
    await waitFor(() => expect(runtimes.isOpen(id)).toBe(false));
    await openSession.open(id);
    expect(openSession.status).toBe("ready");
    // The file goes away while the page shows it (deleted in a terminal): the first action cannot start pi.
    fs.rmSync(file);
    const prompt = { typed: "are you there?", attachments: [], request: { kind: "prompt" as const, text: "are you there?", images: [] } };
    openSession.hold(id, prompt);
    openSession.hold(id, { ...prompt, typed: "and then?", request: { ...prompt.request, text: "and then?" } });
    await waitFor(() => expect(openSession.heldOf(id).failure).toContain("not found"));
    expect(openSession.runtimeStatus).toBe("error");
    const back = openSession.takeBack(id);
    expect(back.items.map((i) => i.typed)).toEqual(["are you there?", "and then?"]);
    expect(openSession.heldOf(id)).toMatchObject({ items: [], failure: "" });
    expect(app.leyline.host.get(id)).toBeUndefined();
  });

  it("an unknown session id shows as missing, without an error toast", async () => {
    const { openSession, notices } = await setUp([]);
    await openSession.open("no-such-session");
    expect(openSession.status).toBe("missing");
    expect(openSession.error).toContain("not found");
    expect(notices.notices).toEqual([]);
  });
});

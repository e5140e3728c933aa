/**
 * Research state of open runtimes through the API (real RuntimeHost, in-process workers, faux provider):
 * a new research session carries its state in `active`, its unsaved detail and its runtime-only list row;
 * research events an extension appends during a run reach WS `active_session` snapshots while the run is
 * still going; the export of an unsaved research session works.
 */
import type { ExtensionFactory } from "@earendil-works/pi-coding-agent";
import { Type } from "typebox";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { FauxTurn } from "../adapters/runtime-protocol/faux-script.ts";
import { InProcessWorkerClient } from "../adapters/runtime-client/in-process-worker-client.ts";
import { researchEventEntryData } from "../domain/research/research-event.ts";
import { RESEARCH_CUSTOM_TYPE, type ResearchState } from "../domain/research/research-types.ts";
import type { Active } from "../domain/runtime/runtime-types.ts";
import type { SessionSummary } from "../domain/session-summary.ts";
import { call, EventCollector, listenForEvents, runtimeApiSuite } from "./runtime-api.fixture.ts";
import type { SessionDetail } from "../domain/session-detail.ts";

/** `research_probe` appends a plan with `threads` threads and one source to the current research session. */
const researchProbe: ExtensionFactory = (pi) => {
  pi.registerTool({
    name: "research_probe",
    label: "research probe",
    description: "appends research events",
    parameters: Type.Object({ threads: Type.Number() }),
    async execute(_id, params, _signal, _onUpdate, ctx) {
      const sessionId = ctx.sessionManager.getSessionId();
      const threads = Array.from({ length: params.threads }, (_, i) => ({
        id: `T${i + 1}`,
        title: `Thread ${i + 1}`,
        task: `task ${i + 1}`,
      }));
      pi.appendEntry(RESEARCH_CUSTOM_TYPE, researchEventEntryData({ kind: "plan", sessionId, strategy: "probe", threads }));
      pi.appendEntry(
        RESEARCH_CUSTOM_TYPE,
        researchEventEntryData({ kind: "source", sessionId, source: { url: "https://example.com/a", title: "A", threadId: "T1" } }),
      );
      return { content: [{ type: "text", text: "recorded" }], details: {} };
    },
  });
};

const suite = runtimeApiSuite("leyline-research-runtime-");
const sockets: EventCollector[] = [];

beforeAll(suite.setUp);
afterEach(async () => {
  await Promise.all(sockets.splice(0).map((socket) => socket.close()));
  await suite.closeApps();
});
afterAll(suite.tearDown);

function makeApp(turns: FauxTurn[]) {
  return suite.makeApp({
    turns,
    host: { createClient: ({ fauxScript }) => InProcessWorkerClient.start({ fauxScript, extensionFactories: [researchProbe] }) },
  });
}

describe("research state of open runtimes", () => {
  it("a new research session carries its state in active, its detail, its list row and its export", async () => {
    const app = await makeApp([]);
    const created = await call(app, "POST", "/api/pi/sessions", { cwd: suite.dirs.cwd, kind: "research" });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const active = created.body["active"] as Active;
    expect(active.state.research).toMatchObject({ sessionId: active.id, status: "running", phase: "plan", threadCount: 0 });
    const detail = created.body["detail"] as SessionDetail;
    expect(detail.session.research).toMatchObject({ sessionId: active.id, phase: "plan" });

    const { sessions } = (await call(app, "GET", "/api/pi/sessions")).body as { sessions: SessionSummary[] };
    const row = sessions.find((session) => session.id === active.id);
    expect(row?.research).toMatchObject({ sessionId: active.id, status: "running", phase: "plan", sourceCount: 0 });
    expect(row?.research).not.toHaveProperty("threads");

    const exported = await app.inject({ method: "GET", url: `/api/pi/sessions/${active.id}/export` });
    expect(exported.statusCode).toBe(200);
    expect(exported.body).toContain('<section id="research">');
  });

  it("a normal session has research null", async () => {
    const app = await makeApp([]);
    const created = await call(app, "POST", "/api/pi/sessions", { cwd: suite.dirs.cwd });
    expect((created.body["active"] as Active).state.research).toBeNull();
  });

  it("research events appended during a run reach active_session snapshots before the run ends", async () => {
    const app = await makeApp([
      { match: "probe", toolCalls: [{ name: "research_probe", arguments: { threads: 2 } }] },
      { match: "probe", text: "probed" },
    ]);
    const url = await listenForEvents(app);
    const created = await call(app, "POST", "/api/pi/sessions", { cwd: suite.dirs.cwd, kind: "research" });
    const id = (created.body["active"] as Active).id;
    const socket = EventCollector.connect(`${url}?sessionId=${id}`);
    sockets.push(socket);
    await socket.opened;

    const research = (): Array<{ research: ResearchState | null; isStreaming: boolean }> =>
      socket.messages.flatMap((message) => {
        if (message.type !== "active_session") return [];
        const snapshot = message.data as Active;
        return snapshot.id === id ? [{ research: snapshot.state.research, isStreaming: snapshot.state.isStreaming }] : [];
      });
    const prompted = await call(app, "POST", `/api/pi/sessions/${id}/prompt`, { text: "probe the web" });
    expect(prompted.status, JSON.stringify(prompted.body)).toBe(200);
    await socket.until(() => socket.runtimeEvents(id).some((event) => event.type === "agent_end"), "agent_end");
    await socket.until(() => research().some((s) => s.research?.threadCount === 2 && !s.isStreaming), "the final snapshot");

    const during = research().find((s) => s.research?.threadCount === 2);
    expect(during?.isStreaming).toBe(true);
    expect(during?.research).toMatchObject({ sessionId: id, strategy: "probe", sourceCount: 1 });
  });
});

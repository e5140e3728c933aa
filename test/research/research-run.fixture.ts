/**
 * Test-only helpers of the scripted research runs (test/research/*.int.test.ts): a LISTENING app with a real
 * runtime host (in-process workers; the bundled research and subagent extensions load in every runtime, parent
 * and children) whose workers call it back through LEYLINE_API_URL; a WebSocket watcher of one session's
 * `active_session` snapshots (waits re-check on every message: no sleeps); the HTTP read routes the suite
 * asserts on; the research events of a session file; and builders of the faux turns of a lead and of its
 * researchers.
 */
import fs from "node:fs";
import path from "node:path";
import type { FastifyInstance } from "fastify";
import { expect } from "vitest";
import type { FauxToolCallSpec, FauxTurn } from "../../adapters/runtime-protocol/faux-script.ts";
import { call, EventCollector, runtimeApp, type RuntimeApiDirs } from "../../api/runtime-api.fixture.ts";
import type { SessionDetail } from "../../domain/session-detail.ts";
import { parseResearchEvent } from "../../domain/research/research-event.ts";
import { researchStateFromEntries } from "../../domain/research/research.fold.ts";
import type { ResearchEvent, ResearchState, ResearchSummary } from "../../domain/research/research-types.ts";
import type { Active } from "../../domain/runtime/runtime-types.ts";
import { decodeSessionText } from "../../domain/session-decoder.ts";
import type { SessionEntry } from "../../domain/session-log.ts";
import type { SessionSummary } from "../../domain/session-summary.ts";
import { activeBranch, addEntry, emptySessionTree } from "../../domain/session-tree.ts";

// ---------------------------------------------------------------------------------------------------------
// The app
// ---------------------------------------------------------------------------------------------------------

export interface ResearchApp {
  readonly app: FastifyInstance;
  /** `http://127.0.0.1:<port>` (what the workers get as LEYLINE_API_URL). */
  readonly baseUrl: string;
  /** `ws://127.0.0.1:<port>/api/pi/events`. */
  readonly eventsUrl: string;
}

/** A listening app over `dirs` with the scripted `turns`; the caller closes `app`. */
export async function startResearchApp(dirs: RuntimeApiDirs, turns: FauxTurn[]): Promise<ResearchApp> {
  let baseUrl = "";
  const app = await runtimeApp(dirs, { turns, host: { apiUrl: () => baseUrl } });
  await app.listen({ port: 0, host: "127.0.0.1" });
  const address = app.server.address();
  if (typeof address !== "object" || address === null) throw new Error("not listening");
  baseUrl = `http://127.0.0.1:${address.port}`;
  return { app, baseUrl, eventsUrl: `ws://127.0.0.1:${address.port}/api/pi/events` };
}

/** A fresh project folder below the suite's root (each run gets its own session folder). */
export function projectDir(dirs: RuntimeApiDirs, name: string): string {
  const cwd = path.join(dirs.root, name);
  fs.mkdirSync(cwd, { recursive: true });
  return cwd;
}

/** pi's session folder of `cwd` (`getDefaultSessionDir`: `<agentDir>/sessions/--<cwd with - for />--`). */
export function sessionFolderOf(agentDir: string, cwd: string): string {
  return path.join(agentDir, "sessions", `--${cwd.replace(/^[/\\]/, "").replace(/[/\\:]/g, "-")}--`);
}

// ---------------------------------------------------------------------------------------------------------
// Sessions through the API
// ---------------------------------------------------------------------------------------------------------

/** POST /api/pi/sessions with kind research; returns the new session's id and file. */
export async function createResearchSession(app: FastifyInstance, cwd: string): Promise<{ id: string; file: string }> {
  const created = await call(app, "POST", "/api/pi/sessions", { cwd, kind: "research" });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  const active = created.body["active"] as Active;
  expect(active.state.research).toMatchObject({ sessionId: active.id, status: "running", phase: "plan" });
  return { id: active.id, file: (created.body["detail"] as SessionDetail).session.sessionFile };
}

/** POST /api/pi/sessions/:id/prompt. */
export async function prompt(app: FastifyInstance, id: string, text: string): Promise<void> {
  const prompted = await call(app, "POST", `/api/pi/sessions/${id}/prompt`, { text });
  expect(prompted.status, JSON.stringify(prompted.body)).toBe(200);
}

/** GET /api/pi/sessions/:id. */
export async function sessionDetail(app: FastifyInstance, id: string): Promise<SessionDetail> {
  const res = await call(app, "GET", `/api/pi/sessions/${id}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as unknown as SessionDetail;
}

/** The detail's ResearchState (fails when the session has none). */
export async function detailResearch(app: FastifyInstance, id: string): Promise<ResearchState> {
  const research = (await sessionDetail(app, id)).session.research;
  if (research === null) throw new Error(`session ${id} has no research state`);
  return research;
}

/** The ResearchSummary of `id` in GET /api/pi/sessions. */
export async function listedResearch(app: FastifyInstance, id: string): Promise<ResearchSummary | null> {
  const res = await call(app, "GET", "/api/pi/sessions");
  const row = (res.body["sessions"] as SessionSummary[]).find((session) => session.id === id);
  if (row === undefined) throw new Error(`session ${id} is not listed`);
  return row.research;
}

/**
 * Polls GET /api/pi/sessions until the row of `id` carries a research summary for which `check` holds (the
 * persisted list follows the file through fs watching, so it lags a run by a moment).
 */
export async function untilListed(
  app: FastifyInstance,
  id: string,
  check: (summary: ResearchSummary) => boolean,
  label: string,
  timeoutMs = 30_000,
): Promise<ResearchSummary> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const summary = await listedResearch(app, id).catch(() => null);
    if (summary !== null && check(summary)) return summary;
    if (Date.now() > deadline) throw new Error(`timed out waiting for the list row of ${id}: ${label}; last: ${JSON.stringify(summary)}`);
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

/** GET /api/pi/sessions/:id/export (status 200 checked); the HTML. */
export async function exportHtml(app: FastifyInstance, id: string): Promise<string> {
  const res = await app.inject({ method: "GET", url: `/api/pi/sessions/${id}/export` });
  expect(res.statusCode, res.body.slice(0, 500)).toBe(200);
  return res.body;
}

/**
 * Polls GET /api/pi/sessions/:id until `check` holds for its research state (the read side follows the file
 * through fs watching, so it lags the runtime by a moment); fails with the last state after `timeoutMs`.
 */
export async function untilDetail(
  app: FastifyInstance,
  id: string,
  check: (state: ResearchState) => boolean,
  label: string,
  timeoutMs = 30_000,
): Promise<ResearchState> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await call(app, "GET", `/api/pi/sessions/${id}`);
    const last = res.status === 200 ? (res.body as unknown as SessionDetail).session.research : null;
    if (last !== null && check(last)) return last;
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for the detail of ${id}: ${label}; last research: ${JSON.stringify(last)}`);
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

// ---------------------------------------------------------------------------------------------------------
// One session's snapshots over WS /api/pi/events
// ---------------------------------------------------------------------------------------------------------

export interface SessionWatch {
  readonly socket: EventCollector;
  /** The session's full `active_session` snapshots so far, in order. */
  snapshots(): Active[];
  /** Resolves with the first snapshot (past or future) for which `check` holds. */
  until(check: (active: Active) => boolean, label: string, timeoutMs?: number): Promise<Active>;
  /** How many messages arrived so far (take it before prompting; pass it to `settled`). */
  mark(): number;
  /**
   * Resolves once a run that started after message `since` ended: an `agent_end` came after `since` and the
   * session's latest snapshot is idle and its research satisfies `check`.
   */
  settled(since: number, check: (research: ResearchState) => boolean, label: string, timeoutMs?: number): Promise<ResearchState>;
  close(): Promise<void>;
}

export async function watchSession(eventsUrl: string, id: string): Promise<SessionWatch> {
  const socket = EventCollector.connect(`${eventsUrl}?sessionId=${encodeURIComponent(id)}`);
  await socket.opened;
  const snapshots = (): Active[] =>
    socket.messages.flatMap((message) => {
      if (message.type !== "active_session") return [];
      const active = message.data as Active;
      return active.id === id && active.state !== undefined ? [active] : [];
    });
  const until = async (check: (active: Active) => boolean, label: string, timeoutMs = 60_000): Promise<Active> => {
    const found = (): Active | undefined => snapshots().find(check);
    await socket.until(() => found() !== undefined, label, timeoutMs);
    return found() as Active;
  };
  return {
    socket,
    snapshots,
    until,
    mark: () => socket.messages.length,
    async settled(since, check, label, timeoutMs = 120_000) {
      const ended = (): boolean =>
        socket.messages.some((message, index) => {
          if (index < since || message.type !== "runtime_event") return false;
          const data = message.data as { activeSessionId: string; event: { type: string } };
          return data.activeSessionId === id && data.event.type === "agent_end";
        });
      // The latest snapshot, whether it came before or after the agent_end event.
      const latest = (): Active | undefined => snapshots().at(-1);
      const done = (): boolean => {
        const active = latest();
        return (
          ended() && active !== undefined && !active.state.isStreaming && active.state.research !== null && check(active.state.research)
        );
      };
      try {
        await socket.until(done, label, timeoutMs);
      } catch (error) {
        const active = latest();
        const research = active?.state.research;
        throw new Error(
          `${(error as Error).message}; agent_end: ${ended()}; latest snapshot: streaming ${active?.state.isStreaming}, status ${research?.status}, phase ${research?.phase}, threads ${JSON.stringify(research?.threads.map((t) => [t.id, t.status, t.error]))}`,
          { cause: error },
        );
      }
      return (latest() as Active).state.research as ResearchState;
    },
    close: () => socket.close(),
  };
}

// ---------------------------------------------------------------------------------------------------------
// Session files
// ---------------------------------------------------------------------------------------------------------

/** The active branch of a session file. */
export function branchOf(file: string): SessionEntry[] {
  const tree = emptySessionTree();
  for (const record of decodeSessionText(fs.readFileSync(file, "utf8")).records) {
    if (record.kind === "entry") addEntry(tree, record.entry);
  }
  return activeBranch(tree);
}

/** The research state of a file's active branch for `sessionId` (what a restart rebuilds). */
export function researchOfFile(file: string, sessionId: string): ResearchState {
  const state = researchStateFromEntries(sessionId, branchOf(file));
  if (state === null) throw new Error(`no research state of ${sessionId} in ${file}`);
  return state;
}

export interface LoggedEvent {
  entryId: string;
  event: ResearchEvent;
}

/** Every research event of the file's active branch, with its entry id (any session id). */
export function researchEventsOf(file: string): LoggedEvent[] {
  return branchOf(file).flatMap((entry) => {
    const event = parseResearchEvent(entry);
    return event ? [{ entryId: entry.id, event }] : [];
  });
}

/** The `source` events of `sessionId` in the file, grouped by the canonical key the ledger gave them. */
export function sourceEventsByKey(file: string, sessionId: string): Map<string, Array<{ id: number | undefined; threadIds: string[] }>> {
  const state = researchOfFile(file, sessionId);
  const keyOf = (url: string | undefined, sourcePath: string | undefined): string =>
    state.sources.find((source) => (url && source.url === url) || (sourcePath && source.path === sourcePath))?.key ??
    `unknown:${url ?? sourcePath ?? ""}`;
  const grouped = new Map<string, Array<{ id: number | undefined; threadIds: string[] }>>();
  for (const { event } of researchEventsOf(file)) {
    if (event.kind !== "source" || event.sessionId !== sessionId) continue;
    const key = keyOf(event.source.url, event.source.path);
    grouped.set(key, [...(grouped.get(key) ?? []), { id: event.source.id, threadIds: event.source.threadIds ?? [] }]);
  }
  return grouped;
}

/** Tool results of `toolName` on the file's branch: error flag, text and details. */
export function toolResultsOf(file: string, toolName: string): Array<{ isError: boolean; text: string; details: unknown }> {
  return branchOf(file).flatMap((entry) => {
    if (entry.type !== "message" || entry.message.role !== "toolResult" || entry.message.toolName !== toolName) return [];
    return [
      {
        isError: entry.message.isError,
        text: entry.message.content.map((c) => (c.type === "text" ? c.text : "")).join(""),
        details: entry.message.details,
      },
    ];
  });
}

/** Entry ids of the branch's messages with their role (and, for tool results, the tool). */
export function messageIdsOf(file: string): Array<{ id: string; role: string; toolName?: string }> {
  return branchOf(file).flatMap((entry) => {
    if (entry.type !== "message") return [];
    const message = entry.message;
    return [{ id: entry.id, role: message.role, ...(message.role === "toolResult" ? { toolName: message.toolName } : {}) }];
  });
}

// ---------------------------------------------------------------------------------------------------------
// Faux turns
// ---------------------------------------------------------------------------------------------------------

export interface ResultSource {
  url?: string;
  path?: string;
  title: string;
  claim?: string;
  evidence?: string;
}

/** A researcher's final answer: prose, then one research_result block. */
export function researchResultText(threadId: string, title: string, summary: string, sources: readonly ResultSource[]): string {
  const block = {
    threadId,
    title,
    summary,
    sources: sources.map((source) => ({ publisher: "", publishedAt: "", kind: "web", claim: "", evidence: "", ...source })),
  };
  return `Findings of ${threadId} in prose.\n\n<research_result>${JSON.stringify(block)}</research_result>`;
}

/** `count` distinct web sources `https://<host>/<i>`. */
export function manySources(host: string, count: number, from = 0): ResultSource[] {
  return Array.from({ length: count }, (_, i) => ({
    url: `https://${host}/${from + i}`,
    title: `${host} ${from + i}`,
    claim: "c",
    evidence: "e",
  }));
}

/** The turns of one researcher on "<threadId>: <task>": optional bash commands first, then the result. */
export function researcherTurns(task: string, answer: string, bash: readonly string[] = []): FauxTurn[] {
  return [
    ...bash.map((command): FauxTurn => ({ match: task, toolCalls: [{ name: "bash", arguments: { command } }] })),
    { match: task, text: answer },
  ];
}

/** One lead turn calling one tool. */
export function leadCall(lead: string, name: string, args: Record<string, unknown>): FauxTurn {
  return { match: lead, toolCalls: [{ name, arguments: args } satisfies FauxToolCallSpec] };
}

/** The lead's plan turn (`research_update` plan). */
export function planTurn(
  lead: string,
  threads: ReadonlyArray<{ id: string; title: string; task: string }>,
  strategy = "independent angles",
): FauxTurn {
  return leadCall(lead, "research_update", { action: "plan", strategy, threads });
}

/** The lead's parallel researcher call over `threads` ("<id>: <task>"). */
export function researchersTurn(lead: string, threads: ReadonlyArray<{ id: string; task: string }>): FauxTurn {
  return leadCall(lead, "subagent", { tasks: threads.map((thread) => ({ agent: "researcher", task: `${thread.id}: ${thread.task}` })) });
}

/** The lead's report checkpoint. */
export function checkpointTurn(lead: string, title: string, citedSourceIds: number[]): FauxTurn {
  return leadCall(lead, "research_update", { action: "phase", phase: "report", title, citedSourceIds });
}

/**
 * A bash loop (read-only: it only lists and reads files) that waits until `condition` holds, polling every
 * 50 ms for at most `seconds`; it prints `released` (exit 0) or `barrier-timeout` (exit 1).
 */
export function waitCommand(condition: string, seconds = 60): string {
  return `for n in $(seq 1 ${seconds * 20}); do ${condition} && echo released && exit 0; sleep 0.05; done; echo barrier-timeout; exit 1`;
}

/** A condition: the folder holds at least `count` session files. */
export function sessionFilesAtLeast(folder: string, count: number): string {
  return `[ "$(ls ${folder} | grep -c jsonl)" -ge ${count} ]`;
}

/** A condition: the session files of the folder hold at least `count` research `source` events. */
export function sourceEventsAtLeast(folder: string, count: number): string {
  return `[ "$(cat ${folder}/*.jsonl | grep -o '"kind":"source"' | wc -l)" -ge ${count} ]`;
}

/**
 * Viewing through the API is read-only (issue 9, "Tests and figures"): a real server (buildApp + listen, forked
 * workers, the faux script) over an agent dir as a person's ~/.pi holds it (read-only.fixture.ts: the corpus
 * written by the real pi SDK, pi's version-1 fixtures, version 2, a CLI session without a thinking level, a
 * research session, foreign models, a missing cwd, 300 generated sessions). For EVERY session it reads what
 * the client reads to show it: the list, the detail, the export, the events socket focused on it (until its
 * roster arrives), the session by path, its tree and active branch (the tree panel), the folder listing of its cwd,
 * the Git review of its cwd and the preview of a file link in it (the workspace panel). Afterwards every file of the agent dir
 * has the bytes, size and mtime it had before the server started, and no runtime was opened: the host knows
 * none, and the only worker process seen is the server's spare (started with it, as api/main.ts does: pi
 * imported, no session), still the same process, so viewing never took it to open a session.
 * Start-screen previews (GET /api/pi/state?cwd=…) may start a worker, but must not touch a session file.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startE2eServer, type E2eServer } from "../e2e/support/e2e-server.ts";
import { EventCollector } from "../../api/runtime-api.fixture.ts";
import {
  buildPiCorpusTemplate,
  diffSnapshots,
  installReadOnlyAgentDir,
  snapshotTree,
  type PiCorpusTemplate,
  type ReadOnlySession,
  type TreeSnapshot,
  workerProcessesOf,
} from "./read-only.fixture.ts";

/** Requests in flight at once (a 2-core machine shared with other suites). */
const PARALLEL = 4;

interface Reply {
  status: number;
  text: string;
}

async function get(server: E2eServer, route: string): Promise<Reply> {
  const response = await fetch(`${server.url}${route}`);
  return { status: response.status, text: await response.text() };
}

async function inPool<T>(items: readonly T[], parallel: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < items.length) {
        const item = items[next++] as T;
        await work(item);
      }
    }),
  );
}

describe("viewing every session through the API", { timeout: 600_000 }, () => {
  let template: PiCorpusTemplate | null = null;
  let server: E2eServer | null = null;
  let sessions: ReadOnlySession[] = [];
  let before: TreeSnapshot | null = null;
  /**
   * Worker processes of this process (the server runs in it) seen while viewing, beyond those there before. Only
   * runtime workers count: the Git review runs `git` as short-lived children, which a sampler sometimes catches.
   */
  const startedChildren = new Set<number>();
  let preexisting = new Set<number>();
  let sampler: NodeJS.Timeout | null = null;
  /** The server's spare worker when it started (a worker process that is not a runtime). */
  let sparePid: number | null = null;

  beforeAll(async () => {
    template = await buildPiCorpusTemplate();
    const built = template;
    preexisting = new Set(workerProcessesOf(process.pid));
    // Sampled from before the server starts: a worker that comes and goes between two samples still shows.
    sampler = setInterval(() => {
      for (const pid of workerProcessesOf(process.pid)) if (!preexisting.has(pid)) startedChildren.add(pid);
    }, 100);
    server = await startE2eServer({
      turns: [],
      seed: (dirs) => {
        sessions = installReadOnlyAgentDir(built, {
          agentDir: dirs.agentDir,
          projectDir: dirs.projectDir,
          goneDir: path.join(dirs.root, "removed-project"),
        });
        before = snapshotTree(dirs.agentDir);
      },
    });
    sparePid = server.app.leyline.host.spareWorker()?.pid ?? null;
  }, 600_000);

  afterAll(async () => {
    if (sampler !== null) clearInterval(sampler);
    try {
      await server?.close();
    } finally {
      template?.dispose();
    }
  }, 120_000);

  const live = (): { server: E2eServer; before: TreeSnapshot } => {
    if (server === null || before === null) throw new Error("the server did not start");
    return { server, before };
  };

  it("reads the list, detail, export, events and folder of every session without writing a byte or starting a worker", async () => {
    const { server, before } = live();
    // Leyline's own data (the index) lives outside the agent dir.
    expect(path.relative(server.agentDir, server.dataDir).startsWith("..")).toBe(true);
    const diagnostics = JSON.parse((await get(server, "/internal/diagnostics")).text) as {
      sessionIndex: { filesOnDisk: number; indexed: number; invalid: number };
    };
    expect(diagnostics.sessionIndex).toMatchObject({ filesOnDisk: sessions.length, indexed: sessions.length, invalid: 0 });
    const kinds = new Set(sessions.map((s) => s.kind));
    expect([...kinds].sort()).toEqual(
      expect.arrayContaining([
        "pi-sdk-main",
        "pi-sdk",
        "pi-sdk-fork",
        "v1",
        "v1-runnable",
        "v2",
        "cli-no-thinking",
        "research",
        "foreign-models",
        "cwd-gone",
        "generated",
        "generated-subagent",
      ]),
    );

    const list = await get(server, "/api/pi/sessions");
    expect(list.status).toBe(200);
    const listed = new Set((JSON.parse(list.text) as { sessions: Array<{ id: string }> }).sessions.map((s) => s.id));
    expect(sessions.filter((s) => !listed.has(s.id)).map((s) => `${s.kind} ${s.id}`)).toEqual([]);

    const wsBase = server.url.replace(/^http/, "ws");
    const problems: string[] = [];
    await inPool(sessions, PARALLEL, async (session) => {
      const id = encodeURIComponent(session.id);
      const detail = await get(server, `/api/pi/sessions/${id}`);
      if (detail.status !== 200) problems.push(`${session.kind} ${session.id}: detail ${detail.status} ${detail.text.slice(0, 200)}`);
      else if (!detail.text.includes(session.id)) problems.push(`${session.kind} ${session.id}: detail of another session`);
      const byPath = await get(server, `/api/pi/sessions/by-path?path=${encodeURIComponent(session.file)}`);
      if (byPath.status !== 200) problems.push(`${session.kind} ${session.id}: by-path ${byPath.status} ${byPath.text.slice(0, 200)}`);
      // The tree panel (issue 15): every entry of the file, and the active branch's transcript by its leaf.
      const tree = await get(server, `/api/pi/sessions/${id}/tree`);
      if (tree.status !== 200) problems.push(`${session.kind} ${session.id}: tree ${tree.status} ${tree.text.slice(0, 200)}`);
      else {
        const leafId = (JSON.parse(tree.text) as { leafId: string | null }).leafId;
        if (leafId !== null) {
          const branch = await get(server, `/api/pi/sessions/${id}/branch?leafId=${encodeURIComponent(leafId)}`);
          if (branch.status !== 200) problems.push(`${session.kind} ${session.id}: branch ${branch.status} ${branch.text.slice(0, 200)}`);
        }
      }
      const exported = await get(server, `/api/pi/sessions/${id}/export`);
      if (exported.status !== 200 || !exported.text.includes("<html")) {
        problems.push(`${session.kind} ${session.id}: export ${exported.status} ${exported.text.slice(0, 200)}`);
      }
      const events = EventCollector.connect(`${wsBase}/api/pi/events?sessionId=${id}`);
      await events.opened;
      await events.until(() => events.messages.some((m) => m.type === "runtime_roster"), `the roster for ${session.id}`);
      await events.close();
      // The folder listing the client shows for the session's cwd (a missing folder may answer an error).
      const folder = await get(server, `/api/pi/fs?path=${encodeURIComponent(session.cwd)}`);
      if (folder.status >= 500 && session.kind !== "cwd-gone" && !session.kind.startsWith("generated") && session.kind !== "v1") {
        problems.push(`${session.kind} ${session.id}: fs ${folder.status} ${folder.text.slice(0, 200)}`);
      }
      // The workspace panel's reads (issue 14): the header's change count and a file link's resolution.
      const review = await get(server, `/api/pi/review?cwd=${encodeURIComponent(session.cwd)}`);
      if (review.status !== 200 && fs.existsSync(session.cwd)) {
        problems.push(`${session.kind} ${session.id}: review ${review.status} ${review.text.slice(0, 200)}`);
      }
      const link = await fetch(`${server.url}/api/pi/sessions/${id}/file`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ action: "preview", href: "README.md" }),
      });
      if (link.status !== 200)
        problems.push(`${session.kind} ${session.id}: file preview ${link.status} ${(await link.text()).slice(0, 200)}`);
    });
    const relisted = await get(server, "/api/pi/sessions");
    expect(relisted.status).toBe(200);
    expect(problems).toEqual([]);

    // No runtime: none known to the runtime host, and no process seen but the spare, which is still the same
    // one (a spare taken to open a runtime is replaced by a new process, which the sampler would have seen).
    expect(sparePid).not.toBeNull();
    const health = JSON.parse((await get(server, "/api/health")).text) as { activeWorkers: number };
    expect({
      workersStarted: [...startedChildren].filter((pid) => pid !== sparePid).length,
      spare: server.app.leyline.host.spareWorker()?.pid === sparePid ? "unchanged" : "replaced",
      activeWorkers: health.activeWorkers,
      openRuntimes: server.app.leyline.host.openRuntimes().length,
    }).toEqual({ workersStarted: 0, spare: "unchanged", activeWorkers: 0, openRuntimes: 0 });
    expect(diffSnapshots(before, snapshotTree(server.agentDir))).toEqual([]);
  });

  it("previews a few project folders without touching a session file", async () => {
    const { server, before } = live();
    const cwdOf = (kind: ReadOnlySession["kind"]): string => sessions.find((s) => s.kind === kind)?.cwd ?? "";
    // A folder no session ran in yet: pi would create its sessions folder for the preview's session.
    const fresh = path.join(server.root, "fresh-project");
    fs.mkdirSync(fresh);
    for (const cwd of [server.projectDir, cwdOf("pi-sdk-main"), fresh]) {
      const preview = await get(server, `/api/pi/state?cwd=${encodeURIComponent(cwd)}`);
      expect(preview.status, `${cwd}: ${preview.text.slice(0, 200)}`).toBe(200);
    }
    // A folder that no longer exists: an answer either way, and no folder made for it.
    await get(server, `/api/pi/state?cwd=${encodeURIComponent(cwdOf("cwd-gone"))}`);
    expect(fs.existsSync(cwdOf("cwd-gone"))).toBe(false);
    const changes = diffSnapshots(before, snapshotTree(server.agentDir));
    expect(changes.filter((change) => change.startsWith("sessions/"))).toEqual([]);
    // Nor anything else: no settings.json (the faux model never becomes pi's default), no empty auth.json
    // (pi's own auth backend would create one; adapters/runtime-worker/agent-files-on-write.ts creates it on a write only).
    expect(changes).toEqual([]);
    // The sampler does see workers: previews run in one (the spare, replaced by a new one it sees), so "no worker
    // but the spare" above is a real observation.
    expect([...startedChildren].filter((pid) => pid !== sparePid).length).toBeGreaterThan(0);
  });

  // The first step of acting (prompt, model change, ...) is opening the runtime; opening alone writes nothing to a
  // current (v3) file, and a v1/v2 file keeps the entry ids the page shows (its upgrade keeps a byte copy).
  it("opens runtimes on sessions without appending to them or changing the ids the page shows", async () => {
    const { server } = live();
    const kinds: ReadOnlySession["kind"][] = ["cli-no-thinking", "pi-sdk-main", "foreign-models", "research", "v1-runnable", "v2"];
    const chosen = kinds.flatMap((kind) => sessions.filter((s) => s.kind === kind).slice(0, 1));
    const idsOf = async (session: ReadOnlySession): Promise<string[]> => {
      const detail = await get(server, `/api/pi/sessions/${encodeURIComponent(session.id)}`);
      return (JSON.parse(detail.text) as { entries: Array<{ id: string }> }).entries.map((entry) => entry.id);
    };
    const isOld = (s: ReadOnlySession): boolean => s.kind === "v1-runnable" || s.kind === "v2";
    const shownIds = new Map<string, string[]>();
    for (const session of chosen) shownIds.set(session.id, await idsOf(session));
    const start = snapshotTree(server.agentDir);

    const failures: string[] = [];
    for (const session of chosen) {
      const response = await fetch(`${server.url}/api/pi/active-session`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ id: session.id }),
      });
      if (response.status !== 200)
        failures.push(`${session.kind}: POST /api/pi/active-session → ${response.status} ${(await response.text()).slice(0, 300)}`);
    }
    expect(failures).toEqual([]);
    // Let the index see whatever pi wrote, then compare what the page would show now.
    await server.app.leyline.readSide.ready();
    // Every check below is soft: one run reports every way the open path still writes.
    for (const session of chosen.filter(isOld)) {
      const shown = shownIds.get(session.id) ?? [];
      const now = await idsOf(session);
      const stale = shown.filter((id) => !now.includes(id));
      expect.soft({ kind: session.kind, staleIds: stale.length, of: shown.length, example: stale[0] ?? null }).toEqual({
        kind: session.kind,
        staleIds: 0,
        of: shown.length,
        example: null,
      });
    }
    const current = new Set(chosen.filter((s) => !isOld(s)).map((s) => path.relative(server.agentDir, s.file)));
    const upgraded = new Set(chosen.filter(isOld).map((s) => path.relative(server.agentDir, s.file)));
    const changes = diffSnapshots(start, snapshotTree(server.agentDir));
    // Nothing but the upgraded old files and their byte copies in leyline-trash may change.
    const unexpected = changes.filter((change) => {
      const name = change.slice(0, change.indexOf(": "));
      return !upgraded.has(name) && !name.startsWith("leyline-trash/");
    });
    expect.soft(unexpected).toEqual([]);
    expect.soft(changes.filter((change) => current.has(change.slice(0, change.indexOf(": "))))).toEqual([]);
    for (const session of chosen.filter(isOld)) {
      const rel = path.relative(server.agentDir, session.file);
      const original = start.files.get(rel);
      if (!changes.some((change) => change.startsWith(`${rel}: `))) continue;
      // Upgraded: a byte-identical copy of the original is in leyline-trash.
      const copies = [...snapshotTree(server.agentDir).files].filter(
        ([name, state]) => name.startsWith("leyline-trash/") && state.sha256 === original?.sha256,
      );
      expect.soft(copies.length, `a byte copy of ${rel} in leyline-trash`).toBeGreaterThan(0);
    }

    // A session whose folder is gone never starts a runtime.
    const gone = sessions.find((s) => s.kind === "cwd-gone");
    const workers = workerProcessesOf(process.pid).length;
    const refused = await fetch(`${server.url}/api/pi/active-session`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ id: gone?.id }),
    });
    expect.soft({ status: refused.status, body: await refused.text() }).toEqual({
      status: 409,
      body: JSON.stringify({ error: `This session's folder ${gone?.cwd ?? ""} no longer exists, so it can be read but not run.` }),
    });
    expect.soft(workerProcessesOf(process.pid).length, "workers after the refused open").toBe(workers);

    // Closing the runtimes (the server stops) writes nothing either.
    const open = snapshotTree(server.agentDir);
    await server.app.close();
    expect(diffSnapshots(open, snapshotTree(server.agentDir))).toEqual([]);
  });
});

import fs from "node:fs";
import path from "node:path";
import { firstValueFrom, type Observable } from "rxjs";
import { filter, timeout, toArray } from "rxjs/operators";
import { afterEach, describe, expect, it } from "vitest";
import type { SessionSummary } from "../../domain/session-summary.ts";
import { headerLine, sessionText, tempDir, userLine } from "../session-files/session-lines.fixture.ts";
import { openLeylineDatabase, type LeylineDatabaseHandle } from "../sqlite/database.ts";
import { resolveAgentDir } from "../session-files/agent-dir.ts";
import { createPiSessionIndex, SESSION_INDEX_SCOPE } from "./pi-session-index.ts";
import type { SessionIndex, SessionListEvent } from "./session-index.ts";
import { PI_SESSION_FIXTURES_DIR } from "../../test/support/fixtures.ts";

const FIXTURES = PI_SESSION_FIXTURES_DIR;

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Setup {
  agentDir: string;
  sessions: string;
  project: string;
  dataDir: string;
}

function setup(): Setup {
  const root = tempDir("index");
  const agentDir = path.join(root, "agent");
  const sessions = path.join(agentDir, "sessions");
  const project = path.join(sessions, "--work-project--");
  fs.mkdirSync(project, { recursive: true });
  return { agentDir, sessions, project, dataDir: path.join(root, "data") };
}

/**
 * Opens the index over `s`; waits until it is verified against the disk (`until: "ready"`: only until it serves
 * a list, which on a warm start is the stored one).
 */
async function open(
  s: Setup,
  watch = true,
  until: "ready" | "verified" = "verified",
): Promise<{ index: SessionIndex<SessionSummary>; db: LeylineDatabaseHandle }> {
  const db = await openLeylineDatabase({ dataDir: s.dataDir });
  const index = createPiSessionIndex({
    db: db.db,
    agentDir: s.agentDir,
    watch,
    coalesceMs: 10,
    onError: (error) => {
      throw error;
    },
  });
  let closed = false;
  const close = async (): Promise<void> => {
    if (closed) return;
    closed = true;
    await index.close();
    await db.close();
  };
  cleanups.push(close);
  await (until === "ready" ? index.ready : index.verified);
  return { index, db };
}

/** The first event matching `predicate`, failing the test after 20 s (only a failure limit: watchers are slow on a loaded CI). */
function next<T>(source: Observable<T>, predicate: (value: T) => boolean): Promise<T> {
  return firstValueFrom(source.pipe(filter(predicate), timeout(20_000)));
}

type Changed = Extract<SessionListEvent<SessionSummary>, { type: "changed" }>;
const isChanged = (e: SessionListEvent<SessionSummary>): e is Changed => e.type === "changed";

describe("resolveAgentDir", () => {
  it("uses PI_CODING_AGENT_DIR with ~ expanded, else ~/.pi/agent", () => {
    expect(resolveAgentDir({ PI_CODING_AGENT_DIR: "~/pi" }, "/home/u")).toBe("/home/u/pi");
    expect(resolveAgentDir({}, "/home/u")).toBe("/home/u/.pi/agent");
  });
});

describe("session index", () => {
  it("indexes every *.jsonl at any depth, counting non-session files without listing them", async () => {
    const s = setup();
    fs.copyFileSync(path.join(FIXTURES, "v1-large-session.jsonl"), path.join(s.project, "a.jsonl"));
    fs.writeFileSync(path.join(s.project, "b.jsonl"), sessionText("bbbb-0001", 2));
    fs.mkdirSync(path.join(s.sessions, "nested", "deeper"), { recursive: true });
    fs.writeFileSync(path.join(s.sessions, "nested", "deeper", "c.jsonl"), sessionText("cccc-0001", 1));
    fs.writeFileSync(path.join(s.project, "notes.jsonl"), '{"not":"a session"}\n');
    fs.writeFileSync(path.join(s.project, "empty.jsonl"), "");
    fs.writeFileSync(path.join(s.project, "readme.txt"), "ignored");
    const { index } = await open(s);
    expect(index.status()).toEqual({
      filesOnDisk: 5,
      indexed: 3,
      invalid: 2,
      invalidPaths: [path.join(s.project, "empty.jsonl"), path.join(s.project, "notes.jsonl")],
      ready: true,
      verified: true,
    });
    const list = index.list();
    expect(list.map((x) => path.basename(x.path)).sort()).toEqual(["a.jsonl", "b.jsonl", "c.jsonl"]);
    expect(list.find((x) => x.id === "d703a1a9-1b7b-4fb1-b512-c9738b1fe617")?.messageCount).toBeGreaterThan(100);
    const modified = list.map((x) => x.modified ?? "");
    expect(modified).toEqual([...modified].sort().reverse());

    const snapshot = await next(index.sessions$, () => true);
    expect(snapshot).toMatchObject({ type: "snapshot", status: { indexed: 3 } });
    expect(snapshot.type === "snapshot" && snapshot.sessions).toEqual(list);
  });

  it("announces a change of its status alone (a file that is not a session) with an event that changes no row", async () => {
    const s = setup();
    fs.writeFileSync(path.join(s.project, "old.jsonl"), sessionText("0ld0-0002", 1));
    const { index } = await open(s);
    const changed = next(index.sessions$, isChanged);
    const junk = path.join(s.project, "junk.jsonl");
    fs.writeFileSync(junk, "not json at all\n");
    const event = (await changed) as Changed;
    expect(event).toMatchObject({ upserted: [], removed: [], status: { filesOnDisk: 2, indexed: 1, invalid: 1, invalidPaths: [junk] } });
  });

  it("picks up a new file, an append, a new subfolder and a delete through the watcher", async () => {
    const s = setup();
    fs.writeFileSync(path.join(s.project, "old.jsonl"), sessionText("0ld0-0001", 1));
    const { index } = await open(s);
    const events = index.sessions$;

    const created = next(events, isChanged);
    const file = path.join(s.project, "new.jsonl");
    fs.writeFileSync(file, headerLine("nnnn-0001") + userLine("first question", null, "n0000001"));
    const added = (await created) as Changed;
    expect(added.upserted).toMatchObject([{ id: "nnnn-0001", path: file, messageCount: 1, firstMessage: "first question" }]);
    expect(added.status).toMatchObject({ filesOnDisk: 2, indexed: 2 });

    const appendedEvent = next(events, (e) => isChanged(e) && e.upserted.some((x) => x.messageCount === 2));
    fs.appendFileSync(file, userLine("second", "n0000001", "n0000002"));
    expect(((await appendedEvent) as Changed).upserted).toHaveLength(1);
    expect(index.get(file)?.messageCount).toBe(2);

    const inFolder = next(events, (e) => isChanged(e) && e.upserted.some((x) => x.id === "ffff-0001"));
    const folder = path.join(s.sessions, "--new-project--");
    fs.mkdirSync(folder);
    fs.writeFileSync(path.join(folder, "f.jsonl"), sessionText("ffff-0001", 1));
    await inFolder;
    const appendInFolder = next(events, (e) => isChanged(e) && e.upserted.some((x) => x.id === "ffff-0001" && x.messageCount === 2));
    fs.appendFileSync(path.join(folder, "f.jsonl"), userLine("again", "ffff0000", "f0000002"));
    await appendInFolder;

    const removed = next(events, (e) => isChanged(e) && e.removed.includes(file));
    fs.rmSync(file);
    expect(((await removed) as Changed).status).toMatchObject({ filesOnDisk: 2, indexed: 2 });
    expect(index.get(file)).toBeNull();

    const folderGone = next(events, (e) => isChanged(e) && e.removed.includes(path.join(folder, "f.jsonl")));
    fs.rmSync(folder, { recursive: true });
    await folderGone;
    expect(index.list().map((x) => x.id)).toEqual(["0ld0-0001"]);
    await index.idle();
    const reader = await openLeylineDatabase({ dataDir: s.dataDir });
    const rows = await reader.db.selectFrom("projection_checkpoints").select("path").where("scope", "=", SESSION_INDEX_SCOPE).execute();
    await reader.close();
    expect(rows.map((r) => path.basename(r.path))).toEqual(["old.jsonl"]);
  });

  it("counts a new non-session file on rescan, and lists it once it becomes a session", async () => {
    const s = setup();
    const { index } = await open(s, false);
    const file = path.join(s.project, "late.jsonl");
    fs.writeFileSync(file, '{"type":"sess'); // torn header
    await index.rescan();
    expect(index.status()).toEqual({ filesOnDisk: 1, indexed: 0, invalid: 1, invalidPaths: [file], ready: true, verified: true });
    fs.writeFileSync(file, headerLine("llll-0001"));
    await index.touch([file]);
    expect(index.status()).toEqual({ filesOnDisk: 1, indexed: 1, invalid: 0, invalidPaths: [], ready: true, verified: true });
  });

  it("restarts warm from checkpoints with the same list, forgetting files deleted meanwhile", async () => {
    const s = setup();
    for (const name of ["v1-large-session.jsonl", "v1-before-compaction.jsonl"]) {
      fs.copyFileSync(path.join(FIXTURES, name), path.join(s.project, name));
    }
    fs.writeFileSync(path.join(s.project, "x.jsonl"), sessionText("xxxx-0001", 3));
    const cold = await open(s, false);
    const coldList = cold.index.list();
    await cleanups.pop()?.();

    fs.rmSync(path.join(s.project, "x.jsonl"));
    fs.appendFileSync(path.join(s.project, "v1-large-session.jsonl"), userLine("added later", null, "zzzz0001"));
    const warm = await open(s, false);
    const warmList = warm.index.list();
    await cleanups.pop()?.();

    fs.rmSync(s.dataDir, { recursive: true });
    const fresh = await open(s, false);
    expect(fresh.index.list()).toEqual(warmList);
    expect(warmList).toHaveLength(2);
    const large = warmList.find((x) => x.path.endsWith("v1-large-session.jsonl"));
    const before = coldList.find((x) => x.path.endsWith("v1-large-session.jsonl"));
    expect(large?.messageCount).toBe((before?.messageCount ?? 0) + 1);
  });

  it("serves the stored list at ready on a warm start, then verifies it against the disk and reports each difference", async () => {
    const s = setup();
    fs.copyFileSync(path.join(FIXTURES, "v1-large-session.jsonl"), path.join(s.project, "large.jsonl"));
    fs.writeFileSync(path.join(s.project, "b.jsonl"), sessionText("bbbb-0001", 2));
    fs.writeFileSync(path.join(s.project, "x.jsonl"), sessionText("xxxx-0001", 3));
    const cold = await open(s);
    const coldList = cold.index.list();
    await cleanups.pop()?.();

    // Changed while no index ran: one file deleted, one appended to, one added.
    const large = path.join(s.project, "large.jsonl");
    fs.rmSync(path.join(s.project, "x.jsonl"));
    fs.appendFileSync(large, userLine("added later", null, "zzzz0001"));
    fs.writeFileSync(path.join(s.project, "n.jsonl"), sessionText("nnnn-0001", 1));

    const { index } = await open(s, true, "ready");
    // The stored list, served before any file was checked.
    expect(index.status()).toEqual({ filesOnDisk: 3, indexed: 3, invalid: 0, invalidPaths: [], ready: true, verified: false });
    expect(index.list()).toEqual(coldList);
    const events: SessionListEvent<SessionSummary>[] = [];
    const subscription = index.sessions$.subscribe((event) => events.push(event));
    // Written after ready, before the verification pass: the pass (or a watcher) must see it.
    fs.writeFileSync(path.join(s.project, "m.jsonl"), sessionText("mmmm-0001", 1));

    await index.verified;
    await index.idle();
    subscription.unsubscribe();
    expect(index.status()).toMatchObject({ filesOnDisk: 4, indexed: 4, ready: true, verified: true });
    expect(events[0]).toMatchObject({ type: "snapshot", sessions: coldList });
    const changed = events.slice(1).filter(isChanged);
    expect(changed.length).toBe(events.length - 1);
    const upserted = changed.flatMap((e) => e.upserted.map((x) => path.basename(x.path))).sort();
    expect(upserted).toEqual(["large.jsonl", "m.jsonl", "n.jsonl"]);
    expect(changed.flatMap((e) => e.removed)).toEqual([path.join(s.project, "x.jsonl")]);
    const before = coldList.find((x) => x.path === large);
    expect(index.get(large)?.messageCount).toBe((before?.messageCount ?? 0) + 1);

    // The served-then-verified list equals a cold index of the same files.
    const verifiedList = index.list();
    await cleanups.pop()?.();
    fs.rmSync(s.dataDir, { recursive: true });
    const fresh = await open(s, false);
    expect(verifiedList).toEqual(fresh.index.list());
  });

  it("keeps watching after a warm start: a change after the verification is reported", async () => {
    const s = setup();
    const file = path.join(s.project, "w.jsonl");
    fs.writeFileSync(file, sessionText("wwww-0001", 1));
    await open(s);
    await cleanups.pop()?.();

    const { index } = await open(s, true, "ready");
    expect(index.status().verified).toBe(false);
    await index.verified;
    expect(index.watchedFolders()).toBe(2);
    const appended = next(index.sessions$, (e) => isChanged(e) && e.upserted.some((x) => x.messageCount === 2));
    fs.appendFileSync(file, userLine("more", "wwww0000", "w0000002"));
    await appended;
    expect(index.get(file)?.messageCount).toBe(2);
  });

  it("starts cold (ready only once verified) without a cache, with checkpoints of other projections, or of another folder", async () => {
    const s = setup();
    fs.writeFileSync(path.join(s.project, "c.jsonl"), sessionText("cccc-0001", 2));
    const first = await open(s, false, "ready");
    expect(first.index.status()).toMatchObject({ indexed: 1, ready: true, verified: true });
    await cleanups.pop()?.();

    // Checkpoints of an older projection list: their summaries may have another shape, so none is served.
    const writer = await openLeylineDatabase({ dataDir: s.dataDir });
    await writer.db.updateTable("projection_checkpoints").set({ projection_key: "format@0,older@1" }).execute();
    await writer.close();
    fs.appendFileSync(path.join(s.project, "c.jsonl"), userLine("three", "cccc0001", "c0000003"));
    const changedKey = await open(s, false, "ready");
    expect(changedKey.index.status()).toMatchObject({ indexed: 1, ready: true, verified: true });
    expect(changedKey.index.list()[0]?.messageCount).toBe(3);
    await cleanups.pop()?.();

    // The same data dir over another (empty) agent dir: the other folder's checkpoints are not listed.
    const other = setup();
    const elsewhere = await open({ ...other, dataDir: s.dataDir }, false, "ready");
    expect(elsewhere.index.status()).toEqual({ filesOnDisk: 0, indexed: 0, invalid: 0, invalidPaths: [], ready: true, verified: true });
    expect(elsewhere.index.list()).toEqual([]);
  });

  it("close() releases every watcher and completes the streams", async () => {
    const s = setup();
    fs.mkdirSync(path.join(s.sessions, "a", "b"), { recursive: true });
    const { index } = await open(s);
    expect(index.watchedFolders()).toBe(4); // sessions, project, a, a/b
    const all = firstValueFrom(index.sessions$.pipe(toArray(), timeout(5000)));
    await index.close();
    expect(index.watchedFolders()).toBe(0);
    expect((await all).map((e) => e.type)).toEqual(["snapshot"]);
  });

  it("waits for a sessions folder that does not exist yet", async () => {
    const s = setup();
    fs.rmSync(s.sessions, { recursive: true });
    const { index } = await open(s);
    expect(index.status()).toEqual({ filesOnDisk: 0, indexed: 0, invalid: 0, invalidPaths: [], ready: true, verified: true });
    const created = next(index.sessions$, (e) => isChanged(e) && e.upserted.length === 1);
    fs.mkdirSync(s.project, { recursive: true });
    fs.writeFileSync(path.join(s.project, "first.jsonl"), sessionText("1st0-0001", 1));
    expect(((await created) as Changed).upserted[0]?.id).toBe("1st0-0001");
  });
});

/**
 * The spare worker (RuntimeHost `spareWorker`) with real forked workers over a temp agent dir: a spare is
 * started with the host, imports pi, carries the worker process tag, writes nothing and is no runtime (roster,
 * activeWorkers, capacity); the first open of a persisted session runs in it (the file's bytes unchanged) and a
 * new spare follows; a preview takes it too; shutdown kills it, used or not; a host without the option starts
 * none.
 */
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createRuntimePreviewer } from "../../api/runtime-preview.ts";
import { FauxScript } from "../runtime-protocol/faux-script.ts";
import { createRuntimeTestDirs, type RuntimeTestDirs } from "../runtime-client/runtime-test-support.ts";
import { defaultSessionDir } from "../runtime-worker/worker-runtime.ts";
import { WORKER_TAG_ENV } from "../runtime-protocol/worker-processes.ts";
import { RuntimeHost, type RuntimeHostOptions } from "./runtime-host.ts";
import { until } from "../../test/support/processes.ts";
import { messageTexts, processAlive, recordHost } from "./runtime-host-test-support.ts";
import { TINY_USAGE } from "../../test/support/tiny-usage.ts";

let dirs: RuntimeTestDirs;
const hosts: RuntimeHost[] = [];

beforeAll(() => {
  dirs = createRuntimeTestDirs("leyline-spare-");
});
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((host) => host.shutdown()));
});
afterAll(() => dirs.cleanup());

function makeHost(options: Partial<RuntimeHostOptions> = {}): RuntimeHost {
  const host = new RuntimeHost({
    agentDir: dirs.agentDir,
    fauxScript: new FauxScript([{ match: "hello", text: "hi from the spare" }]),
    env: { ...process.env, PI_CODING_AGENT_DIR: dirs.agentDir, PI_OFFLINE: "1" },
    idleMs: 0,
    watchdogMs: 0,
    spareWorker: true,
    ...options,
  });
  hosts.push(host);
  return host;
}

/** A persisted v3 session in the project folder, as pi writes one (a user message and its reply). */
function writeSession(): { file: string; id: string } {
  const id = randomUUID();
  const at = "2025-06-01T10:00:00.000Z";
  const lines = [
    { type: "session", version: 3, id, timestamp: at, cwd: dirs.cwd },
    { type: "model_change", id: "a0000001", parentId: null, timestamp: at, provider: "faux", modelId: "faux-1" },
    { type: "thinking_level_change", id: "a0000002", parentId: "a0000001", timestamp: at, thinkingLevel: "off" },
    {
      type: "message",
      id: "a0000003",
      parentId: "a0000002",
      timestamp: at,
      message: { role: "user", content: [{ type: "text", text: "earlier" }], timestamp: 1 },
    },
    {
      type: "message",
      id: "a0000004",
      parentId: "a0000003",
      timestamp: at,
      message: {
        role: "assistant",
        content: [{ type: "text", text: "before" }],
        api: "faux",
        provider: "faux",
        model: "faux-1",
        usage: TINY_USAGE,
        stopReason: "stop",
        timestamp: 2,
      },
    },
  ];
  const dir = defaultSessionDir(dirs.agentDir, dirs.cwd);
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `2025-06-01T10-00-00-000Z_${id}.jsonl`);
  fs.writeFileSync(file, lines.map((line) => JSON.stringify(line)).join("\n") + "\n");
  return { file, id };
}

/** Every file below `dir` with its size and mtime. */
function tree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of fs.readdirSync(dir, { recursive: true, encoding: "utf8" })) {
    const stat = fs.statSync(path.join(dir, name));
    out[name] = stat.isDirectory() ? "dir" : `${stat.size}:${stat.mtimeMs}`;
  }
  return out;
}

async function nextSpare(host: RuntimeHost, not: number | null): Promise<number> {
  // The spare is no runtime: it raises no host event, so this polls.
  await until(
    () => {
      const pid = host.spareWorker()?.pid ?? null;
      return pid !== null && pid !== not;
    },
    "a new spare",
    60_000,
  );
  const spare = host.spareWorker();
  expect(await spare?.warm).toBe(true);
  return spare?.pid ?? 0;
}

describe("the spare worker", () => {
  it(
    "waits outside the roster and the capacity, serves the first open, is replaced, and dies with the host",
    { timeout: 180_000 },
    async () => {
      const { file, id } = writeSession();
      const fileBytes = fs.readFileSync(file);
      const agentBefore = tree(dirs.agentDir);
      const host = makeHost({ capacity: 1 });
      const spare = host.spareWorker();
      expect(spare).not.toBeNull();
      expect(await spare?.warm).toBe(true);
      const sparePid = spare?.pid ?? 0;
      expect(processAlive(sparePid)).toBe(true);
      // tagged like every worker: its tool processes would die with it
      expect(spare?.processTag).toMatch(new RegExp(`^${host.processOwner}:`));
      expect(fs.readFileSync(`/proc/${sparePid}/environ`, "utf8").split("\0")).toContain(`${WORKER_TAG_ENV}=${spare?.processTag}`);
      // not a runtime, and pi's import wrote nothing
      expect(host.openRuntimes()).toEqual([]);
      expect(host.activeWorkers()).toBe(0);
      expect(tree(dirs.agentDir)).toEqual(agentBefore);

      const handle = await host.open({ sessionFile: file }, { select: true });
      expect(handle.sessionId).toBe(id);
      expect(handle.workerPid).toBe(sparePid);
      expect(fs.readFileSync(file).equals(fileBytes)).toBe(true);
      expect(host.activeWorkers()).toBe(1);
      const nextPid = await nextSpare(host, sparePid);
      expect(processAlive(nextPid)).toBe(true);
      // the runtime it became is a real one
      const rec = recordHost(host);
      await handle.prompt({ text: "hello" });
      await rec.until(() => !handle.busy() && messageTexts(file).includes("assistant:hi from the spare"), "the reply");
      // the spare holds no capacity slot: the one slot is the selected runtime's, and it is not given up for it
      await expect(host.reserveCapacity()).rejects.toMatchObject({ status: 503 });
      expect(host.spareWorker()?.pid).toBe(nextPid);
      expect(host.openRuntimes().map((open) => open.sessionId)).toEqual([id]);

      await host.shutdown();
      expect(host.spareWorker()).toBeNull();
      expect([sparePid, nextPid].filter(processAlive)).toEqual([]);
    },
  );

  it("serves a preview too; an unused spare is killed on shutdown", { timeout: 180_000 }, async () => {
    const options: RuntimeHostOptions = {
      agentDir: dirs.agentDir,
      fauxScript: new FauxScript([]),
      env: { ...process.env, PI_CODING_AGENT_DIR: dirs.agentDir, PI_OFFLINE: "1" },
    };
    const host = makeHost(options);
    const previewer = createRuntimePreviewer(options, host.fauxScript, { capacity: host });
    const sparePid = await nextSpare(host, null);
    const folder = path.join(dirs.root, "preview");
    fs.mkdirSync(folder);
    expect(await previewer.preview(folder)).toMatchObject({ id: "", cwd: folder });
    // the preview ran in the spare (gone with the preview); a new spare waits, unused
    expect(processAlive(sparePid)).toBe(false);
    const unused = await nextSpare(host, sparePid);
    await previewer.close();
    await host.shutdown();
    expect(processAlive(unused)).toBe(false);
  });

  it("is not started unless asked for", async () => {
    const host = makeHost({ spareWorker: false });
    expect(host.spareWorker()).toBeNull();
    await host.shutdown();
  });
});

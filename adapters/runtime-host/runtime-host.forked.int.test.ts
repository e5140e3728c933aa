/**
 * The runtime host with real worker processes (ForkedWorkerClient, tsx child): a SIGKILLed worker is
 * replaced and the session reopened, repeated failures pause the runtime, the watchdog replaces a silent
 * worker, and shutdown leaves no child process behind.
 */
import * as fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FauxScript } from "../runtime-protocol/faux-script.ts";
import { createRuntimeTestDirs, type RuntimeTestDirs } from "../runtime-client/runtime-test-support.ts";
import { ManualClock } from "./host-clock.ts";
import { RuntimeHost } from "./runtime-host.ts";
import { RuntimeHostError } from "./runtime-host-error.ts";
import { messageTexts, processAlive, recordHost } from "./runtime-host-test-support.ts";

let dirs: RuntimeTestDirs;
const hosts: RuntimeHost[] = [];

beforeAll(() => {
  dirs = createRuntimeTestDirs("leyline-host-forked-");
});
afterAll(async () => {
  await Promise.all(hosts.map((host) => host.shutdown()));
  dirs.cleanup();
});

function makeHost(script: FauxScript, clock = new ManualClock()): RuntimeHost {
  const host = new RuntimeHost({
    agentDir: dirs.agentDir,
    fauxScript: script,
    env: { ...process.env, PI_CODING_AGENT_DIR: dirs.agentDir, PI_OFFLINE: "1" },
    faux: { tokensPerSecond: 30 },
    clock,
    idleMs: 0,
    watchdogMs: 0,
    livenessMs: 10_000,
  });
  hosts.push(host);
  return host;
}

describe("RuntimeHost with forked workers", () => {
  it(
    "replaces a worker SIGKILLed mid-run, reopens the session and keeps the handle working; pauses after three recoveries",
    { timeout: 120_000 },
    async () => {
      const host = makeHost(
        new FauxScript([
          { match: "warm up", text: "ready" },
          { match: "long story", text: "Once upon a time ".repeat(100) }, // killed mid-run: long enough to still stream under load
          { match: "after the crash", text: "still here" },
        ]),
      );
      const rec = recordHost(host);
      const handle = await host.open({ new: { cwd: dirs.cwd } }, { select: true });
      // pi writes the file with the first assistant message; a session killed before that has nothing to reopen
      await handle.prompt({ text: "warm up" });
      await rec.until(() => !handle.busy() && messageTexts(handle.sessionFile ?? "").length === 2, "first reply saved");
      await handle.prompt({ text: "tell a long story" });
      await rec.until(() => rec.runtimeEvents(handle.sessionId).includes("stream_delta"));
      const file = handle.sessionFile ?? "";
      const sessionId = handle.sessionId;
      const firstPid = handle.workerPid ?? 0;
      expect(firstPid).not.toBe(process.pid);
      await handle.prompt({ text: "queued behind the story" });
      process.kill(firstPid, "SIGKILL");

      await rec.until(() => handle.status === "ready" && handle.workerPid !== null && handle.workerPid !== firstPid, "recovered");
      expect(processAlive(firstPid)).toBe(false);
      expect(handle.sessionId).toBe(sessionId);
      expect(handle.sessionFile).toBe(file);
      expect(host.get(sessionId)).toBe(handle);
      expect(handle.recoveries).toBe(1);
      const diagnostics = handle
        .active()
        .diagnostics.filter((d) => d["type"] === "supervision")
        .map((d) => d["status"]);
      expect(diagnostics).toEqual(["recovering", "ready"]);
      // the queued task survived, held
      expect(handle.active().state.promptQueue).toMatchObject({ held: true, items: [{ text: "queued behind the story" }] });
      expect(handle.active().state.isStreaming).toBe(false);
      // the file is intact and the handle works
      expect(messageTexts(file).slice(0, 3)).toEqual(["user:warm up", "assistant:ready", "user:tell a long story"]);
      await handle.queue({ action: "remove", revision: handle.promptQueue.revision, id: handle.promptQueue.items[0]?.id });
      await handle.prompt({ text: "after the crash" });
      await rec.until(() => !handle.busy() && messageTexts(file).includes("assistant:still here"), "prompt after recovery");
      expect(handle.recoveries).toBe(0);

      // three consecutive recoveries, then the fourth failure pauses
      const pids = new Set<number>([firstPid]);
      for (let round = 1; round <= 3; round++) {
        const pid = handle.workerPid ?? 0;
        pids.add(pid);
        process.kill(pid, "SIGKILL");
        await rec.until(() => handle.status === "ready" && handle.workerPid !== null && handle.workerPid !== pid, `recovery ${round}`);
        expect(handle.recoveries).toBe(round);
      }
      const last = handle.workerPid ?? 0;
      process.kill(last, "SIGKILL");
      await rec.until(() => handle.status === "paused", "paused");
      expect(handle.workerPid).toBeNull();
      expect(host.activeWorkers()).toBe(0);
      const paused = await handle.prompt({ text: "x" }).catch((error: unknown) => error);
      expect(paused).toBeInstanceOf(RuntimeHostError);
      expect((paused as RuntimeHostError).status).toBe(409);

      // an explicit open reopens it
      const reopened = await host.open({ sessionFile: file });
      expect(reopened).toBe(handle);
      expect(handle.status).toBe("ready");
      expect(handle.recoveries).toBe(0);
      expect(host.activeWorkers()).toBe(1);
      for (const pid of pids) expect(processAlive(pid)).toBe(false);
    },
  );

  it("the watchdog replaces a worker that sent nothing within livenessMs (injected clock)", async () => {
    const clock = new ManualClock();
    const host = makeHost(new FauxScript([]), clock);
    const rec = recordHost(host);
    const handle = await host.open({ new: { cwd: dirs.cwd } });
    const pid = handle.workerPid ?? 0;
    expect(host.probe()).toEqual([]);
    clock.advance(10_001);
    expect(host.probe()).toEqual([{ sessionId: handle.sessionId, verdict: "unresponsive" }]);
    await rec.until(() => handle.status === "ready" && handle.workerPid !== null && handle.workerPid !== pid, "replaced");
    expect(processAlive(pid)).toBe(false);
  });

  it("shutdown disposes every worker: no child process is left", async () => {
    const host = makeHost(new FauxScript([{ text: "hi" }]));
    const rec = recordHost(host);
    const a = await host.open({ new: { cwd: dirs.cwd } });
    const b = await host.open({ new: { cwd: `${dirs.cwd}-b` } });
    await a.prompt({ text: "hello" });
    await rec.until(() => !a.busy() && a.sessionFile !== null && fs.existsSync(a.sessionFile));
    const pids = [a.workerPid, b.workerPid].filter((pid): pid is number => pid !== null);
    expect(pids).toHaveLength(2);
    expect(pids.every(processAlive)).toBe(true);
    await host.shutdown();
    expect(host.activeWorkers()).toBe(0);
    expect(host.openRuntimes()).toEqual([]);
    expect(pids.some(processAlive)).toBe(false);
    await expect(host.open({ new: { cwd: dirs.cwd } })).rejects.toMatchObject({ status: 503 });
  });
});

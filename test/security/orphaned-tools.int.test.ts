/**
 * Tool processes die with their worker (issue 9). The faux model runs `sleep <marker>` through pi's bash tool,
 * which spawns it detached (its own process group, so it used to survive with parent 1). Then:
 * - kill -9 of the worker: the control plane kills the worker's tagged processes; the handle recovers;
 * - a watchdog replacement: the same;
 * - kill -9 of the server (a child process running api/main.ts): the orphaned worker kills its own (and the
 *   server's spare worker exits too);
 * - server and worker frozen and killed at once: the next server on the same agent dir sweeps the leftover.
 * Real pi, real worker processes, real processes; Linux only (the tags live in /proc).
 */
import * as fs from "node:fs";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { FauxScript, type FauxTurn } from "../../adapters/runtime-protocol/faux-script.ts";
import { createRuntimeTestDirs, type RuntimeTestDirs } from "../../adapters/runtime-client/runtime-test-support.ts";
import { ManualClock } from "../../adapters/runtime-host/host-clock.ts";
import { RuntimeHost } from "../../adapters/runtime-host/runtime-host.ts";
import { processAlive, recordHost } from "../../adapters/runtime-host/runtime-host-test-support.ts";
import type { Active } from "../../domain/runtime/runtime-types.ts";
import { killFrozen, killSleepers, running, type ServerDirs, sleepers, sleepMarker, startServer, until } from "./server-process.fixture.ts";

const linux = fs.existsSync("/proc/self/environ");
let dirs: RuntimeTestDirs;
const hosts: RuntimeHost[] = [];
const markers: string[] = [];

beforeAll(() => {
  dirs = createRuntimeTestDirs("leyline-orphans-");
});
afterEach(() => {
  for (const marker of markers.splice(0)) killSleepers(marker);
});
afterAll(async () => {
  await Promise.all(hosts.map((host) => host.shutdown()));
  dirs.cleanup();
});

/** A script whose one turn runs `sleep <marker>` with pi's bash tool. */
function sleeperTurns(marker: string): FauxTurn[] {
  markers.push(marker);
  return [
    { match: "run the sleeper", toolCalls: [{ name: "bash", arguments: { command: `sleep ${marker}` } }] },
    { match: "run the sleeper", text: "slept" },
  ];
}

function makeHost(turns: FauxTurn[], clock = new ManualClock()): RuntimeHost {
  const host = new RuntimeHost({
    agentDir: dirs.agentDir,
    fauxScript: new FauxScript(turns),
    env: { ...process.env, PI_CODING_AGENT_DIR: dirs.agentDir, PI_OFFLINE: "1" },
    clock,
    idleMs: 0,
    watchdogMs: 0,
    livenessMs: 10_000,
  });
  hosts.push(host);
  return host;
}

function serverDirs(name: string): ServerDirs {
  const root = `${dirs.root}/${name}`;
  const cwd = `${root}/project`;
  fs.mkdirSync(cwd, { recursive: true });
  return { root, agentDir: dirs.agentDir, dataDir: `${root}/data`, cwd };
}

describe.runIf(linux)("tool processes die with their worker", () => {
  it("kill -9 of the worker: its running bash command is killed and the session recovers", { timeout: 90_000 }, async () => {
    const marker = sleepMarker();
    const host = makeHost(sleeperTurns(marker));
    const rec = recordHost(host);
    const handle = await host.open({ new: { cwd: dirs.cwd } });
    await handle.prompt({ text: "run the sleeper" });
    await until(() => sleepers(marker).length === 1, "the sleep runs");
    const [sleep] = sleepers(marker);
    const worker = handle.workerPid ?? 0;

    process.kill(worker, "SIGKILL");
    await until(() => !running(sleep ?? 0), "the sleep is gone", 10_000);
    await rec.until(() => handle.status === "ready" && handle.workerPid !== null && handle.workerPid !== worker, "recovered");
    expect(processAlive(worker)).toBe(false);
    rec.stop();
  });

  it("a watchdog replacement kills the replaced worker's bash command", { timeout: 90_000 }, async () => {
    const marker = sleepMarker();
    const clock = new ManualClock();
    const host = makeHost(sleeperTurns(marker), clock);
    const rec = recordHost(host);
    const handle = await host.open({ new: { cwd: dirs.cwd } });
    await handle.prompt({ text: "run the sleeper" });
    await until(() => sleepers(marker).length === 1, "the sleep runs");
    const [sleep] = sleepers(marker);
    const worker = handle.workerPid ?? 0;

    clock.advance(10_001);
    expect(host.probe()).toEqual([{ sessionId: handle.sessionId, verdict: "unresponsive" }]);
    await until(() => !running(sleep ?? 0), "the sleep is gone", 10_000);
    await rec.until(() => handle.status === "ready" && handle.workerPid !== null && handle.workerPid !== worker, "replaced");
    rec.stop();
  });

  it("kill -9 of the server: the orphaned worker kills its bash command and exits", { timeout: 90_000 }, async () => {
    const marker = sleepMarker();
    const server = await startServer(serverDirs("server-kill"), sleeperTurns(marker));
    try {
      const created = await server.call("POST", "/api/pi/sessions", { cwd: serverDirs("server-kill").cwd });
      expect(created.status, JSON.stringify(created.body)).toBe(200);
      const id = (created.body["active"] as Active).id;
      expect((await server.call("POST", `/api/pi/sessions/${id}/prompt`, { text: "run the sleeper" })).status).toBe(200);
      await until(() => sleepers(marker).length === 1, "the sleep runs");
      const [sleep] = sleepers(marker);
      // The session's worker and the spare api/main.ts keeps started ahead (RuntimeHost `spareWorker`).
      const workers = await server.workers();
      expect(workers).toHaveLength(2);

      process.kill(server.pid, "SIGKILL");
      await until(() => !running(sleep ?? 0), "the sleep is gone", 10_000);
      await until(() => workers.every((pid) => !running(pid)), "the worker and the spare exited", 10_000);
    } finally {
      await server.stop();
    }
  });

  it("server and worker killed at once: the next server's start-up sweep kills the leftover", { timeout: 120_000 }, async () => {
    const marker = sleepMarker();
    const first = await startServer(serverDirs("sweep"), sleeperTurns(marker));
    let second: Awaited<ReturnType<typeof startServer>> | null = null;
    try {
      const created = await first.call("POST", "/api/pi/sessions", { cwd: serverDirs("sweep").cwd });
      const id = (created.body["active"] as Active).id;
      expect((await first.call("POST", `/api/pi/sessions/${id}/prompt`, { text: "run the sleeper" })).status).toBe(200);
      await until(() => sleepers(marker).length === 1, "the sleep runs");
      const [sleep] = sleepers(marker);
      const workers = await first.workers();
      expect(workers).toHaveLength(2); // the session's worker and the spare

      killFrozen([first.pid, ...workers]);
      await until(() => [first.pid, ...workers].every((pid) => !running(pid)), "server and worker are gone");
      expect(running(sleep ?? 0)).toBe(true); // nobody was left to kill it

      second = await startServer(serverDirs("sweep"), []);
      await until(() => !running(sleep ?? 0), "the leftover is swept", 10_000);
    } finally {
      await first.stop();
      await second?.stop();
    }
  });
});

/**
 * The watchdog's progress check (in-process workers, injected `ManualClock`, liveness check off): a busy
 * operation whose worker still sends heartbeats but whose pi run makes no progress for `noProgressMs` is
 * replaced and the session reopened; waiting for a confirmation does not count toward the deadline; pi
 * events (tool updates) restart it. The stalling tools are test extension tools driven by a `Channel`.
 */
import * as fs from "node:fs";
import { Type } from "typebox";
import type { ExtensionFactory } from "@earendil-works/pi-coding-agent";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { FauxScript, type FauxTurn } from "../runtime-protocol/faux-script.ts";
import { InProcessWorkerClient } from "../runtime-client/in-process-worker-client.ts";
import { createRuntimeTestDirs } from "../runtime-client/runtime-test-support.ts";
import { ManualClock } from "./host-clock.ts";
import type { RuntimeHandle } from "./runtime-handle.ts";
import { RuntimeHost } from "./runtime-host.ts";
import { agentDirEnv, type HostRecorder, messageTexts, recordHost } from "./runtime-host-test-support.ts";

const NO_PROGRESS_MS = 10_000;

/** Commands from the test to a running tool; `pull` resolves "aborted" when the tool's signal aborts. */
class Channel {
  private readonly items: string[] = [];
  private readonly waiters: Array<(item: string) => void> = [];

  push(item: string): void {
    const waiter = this.waiters.shift();
    if (waiter) waiter(item);
    else this.items.push(item);
  }

  pull(signal: AbortSignal | undefined): Promise<string> {
    const item = this.items.shift();
    if (item !== undefined) return Promise.resolve(item);
    return new Promise((resolve) => {
      const waiter = (value: string): void => resolve(value);
      this.waiters.push(waiter);
      signal?.addEventListener("abort", () => {
        const index = this.waiters.indexOf(waiter);
        if (index !== -1) this.waiters.splice(index, 1);
        resolve("aborted");
      });
    });
  }

  /** Releases every waiting tool (test cleanup). */
  drain(): void {
    for (const waiter of this.waiters.splice(0)) waiter("done");
  }
}

const channel = new Channel();

const text = (value: string) => ({ content: [{ type: "text" as const, text: value }], details: {} });

const stallingTools: ExtensionFactory = (pi) => {
  pi.registerTool({
    name: "stall",
    label: "stall",
    description: "waits silently until released",
    parameters: Type.Object({}),
    async execute(_id, _params, signal) {
      return text(`stall:${await channel.pull(signal)}`);
    },
  });
  pi.registerTool({
    name: "ask_then_stall",
    label: "ask then stall",
    description: "asks the user, then waits silently until released",
    parameters: Type.Object({}),
    async execute(_id, _params, signal, _onUpdate, ctx) {
      const confirmed = await ctx.ui.confirm("Deploy?", "Really deploy?");
      return text(`confirmed:${confirmed} then:${await channel.pull(signal)}`);
    },
  });
  pi.registerTool({
    name: "ticker",
    label: "ticker",
    description: "reports progress on every tick until done",
    parameters: Type.Object({}),
    async execute(_id, _params, signal, onUpdate) {
      for (let tick = 1; ; tick++) {
        const command = await channel.pull(signal);
        if (command !== "tick") return text(`ticker:${command}`);
        onUpdate?.(text(`tick ${tick}`));
      }
    },
  });
};

const env = agentDirEnv(() => createRuntimeTestDirs("leyline-watchdog-"));
const dirs = env.dirs;
let host: RuntimeHost | null = null;

beforeAll(env.setUp);
afterEach(async () => {
  channel.drain();
  await host?.shutdown();
  host = null;
});
afterAll(env.tearDown);

interface WatchdogFixture {
  host: RuntimeHost;
  clock: ManualClock;
  rec: HostRecorder;
  /** Resolves after the next heartbeat of any worker has been handled by the host. */
  nextHeartbeat(): Promise<void>;
}

/** A host whose watchdog runs only through `probe()`, with liveness off and real 10 ms heartbeats. */
function makeHost(turns: FauxTurn[]): WatchdogFixture {
  const clock = new ManualClock();
  const heartbeatWaiters: Array<() => void> = [];
  const created = new RuntimeHost({
    agentDir: dirs.agentDir,
    fauxScript: new FauxScript(turns),
    createClient: ({ fauxScript }) => {
      const client = InProcessWorkerClient.start({ fauxScript, extensionFactories: [stallingTools] });
      // Subscribed before the handle's own subscription: a waiter resumes after the host saw the heartbeat.
      client.messages$.subscribe((message) => {
        if (message.type === "heartbeat") for (const waiter of heartbeatWaiters.splice(0)) waiter();
      });
      return client;
    },
    clock,
    idleMs: 0,
    watchdogMs: 0,
    livenessMs: 0,
    noProgressMs: NO_PROGRESS_MS,
    heartbeatMs: 10,
  });
  host = created;
  return {
    host: created,
    clock,
    rec: recordHost(created),
    nextHeartbeat: () => new Promise<void>((resolve) => heartbeatWaiters.push(resolve)),
  };
}

function toolTurn(match: string, tool: string): FauxTurn[] {
  return [
    { match: "warm up", text: "ready" },
    { match, toolCalls: [{ name: tool, arguments: {} }] },
    { match, text: `${tool} finished` },
  ];
}

/** Opens a session, saves a first exchange (pi writes the file with it), then starts a run calling `tool`. */
async function startToolRun(fixture: WatchdogFixture, match: string): Promise<RuntimeHandle> {
  const { host: h, rec } = fixture;
  const handle = await h.open({ new: { cwd: dirs.cwd } });
  await handle.prompt({ text: "warm up" });
  await rec.until(() => !handle.busy() && messageTexts(handle.sessionFile ?? "").length === 2, "first reply saved");
  await handle.prompt({ text: match });
  await rec.until(() => rec.runtimeEvents(handle.sessionId).includes("tool_execution_start"), "tool started");
  expect(handle.active().state.isStreaming).toBe(true);
  return handle;
}

const supervision = (handle: RuntimeHandle) =>
  handle
    .active()
    .diagnostics.filter((d) => d["type"] === "supervision")
    .map((d) => d["status"]);

describe("RuntimeHost watchdog: operation progress", () => {
  it("replaces a busy worker that keeps sending heartbeats but makes no progress, and reopens the same session", async () => {
    const fixture = makeHost(toolTurn("run the stall tool", "stall"));
    const { host: h, clock, rec, nextHeartbeat } = fixture;
    const handle = await startToolRun(fixture, "run the stall tool");
    const file = handle.sessionFile ?? "";
    const sessionId = handle.sessionId;
    const before = fs.readFileSync(file, "utf8");

    clock.advance(NO_PROGRESS_MS);
    await nextHeartbeat();
    expect(handle.lastMessageAt).toBe(clock.now()); // the worker is alive...
    expect(h.probe()).toEqual([]); // ...and the deadline is not yet exceeded
    clock.advance(1);
    await nextHeartbeat();
    expect(handle.lastMessageAt).toBe(clock.now());
    expect(handle.active().state.isStreaming).toBe(true);

    expect(h.probe()).toEqual([{ sessionId, verdict: "stalled" }]);
    expect(handle.status).toBe("recovering");
    await rec.until(() => handle.status === "ready", "recovered");

    expect(supervision(handle)).toEqual(["recovering", "ready"]);
    const reasons = handle
      .active()
      .diagnostics.filter((d) => d["status"] === "recovering")
      .map((d) => d["reason"]);
    expect(reasons).toEqual([`no progress for ${NO_PROGRESS_MS + 1} ms while busy`]);
    expect(handle.recoveries).toBe(1);
    expect(handle.sessionId).toBe(sessionId);
    expect(handle.sessionFile).toBe(file);
    expect(h.get(sessionId)).toBe(handle);
    expect(h.activeWorkers()).toBe(1);
    expect(handle.active().state.isStreaming).toBe(false);
    // the file is intact: everything written before the stall is still there, unchanged
    expect(fs.readFileSync(file, "utf8").startsWith(before)).toBe(true);
    expect(messageTexts(file).slice(0, 3)).toEqual(["user:warm up", "assistant:ready", "user:run the stall tool"]);
    // the reopened runtime is not stalled any more, and it works
    expect(h.probe()).toEqual([]);
    await handle.prompt({ text: "warm up again" });
    await rec.until(() => !handle.busy() && messageTexts(file).includes("user:warm up again"), "prompt after recovery");
  });

  it("does not count time spent waiting for a confirmation toward the no-progress deadline", async () => {
    const fixture = makeHost(toolTurn("ask before stalling", "ask_then_stall"));
    const { host: h, clock, rec, nextHeartbeat } = fixture;
    const handle = await startToolRun(fixture, "ask before stalling");
    const pending = () => handle.active().state.extensionUi.confirmations;
    await rec.until(() => pending().length === 1, "confirmation requested");

    clock.advance(NO_PROGRESS_MS * 5);
    await nextHeartbeat();
    expect(handle.active().state.isStreaming).toBe(true);
    expect(h.probe()).toEqual([]);
    expect(handle.status).toBe("ready");
    expect(handle.recoveries).toBe(0);
    expect(pending()).toHaveLength(1);

    // the user answers; the tool then stays silent: the deadline starts again from the answer
    await handle.confirm(pending()[0]?.id ?? "", true);
    await rec.until(() => pending().length === 0, "confirmation resolved");
    await nextHeartbeat();
    expect(h.probe()).toEqual([]);
    clock.advance(NO_PROGRESS_MS);
    expect(h.probe()).toEqual([]);
    clock.advance(1);
    expect(h.probe()).toEqual([{ sessionId: handle.sessionId, verdict: "stalled" }]);
    await rec.until(() => handle.status === "ready", "recovered");
    expect(supervision(handle)).toEqual(["recovering", "ready"]);
  });

  it("restarts the deadline on every pi event of a busy operation", async () => {
    const fixture = makeHost(toolTurn("run the ticker", "ticker"));
    const { host: h, clock, rec } = fixture;
    const handle = await startToolRun(fixture, "run the ticker");
    // The worker sends a tool's progress as stream_delta events with the tool's output (each tick waits for its own).
    const updates = () =>
      rec.all.filter(
        (e) =>
          e.type === "runtime_event" &&
          e.sessionId === handle.sessionId &&
          (e.data(true) as { event: { tools?: unknown } }).event.tools !== undefined,
      ).length;

    for (let round = 1; round <= 4; round++) {
      clock.advance(NO_PROGRESS_MS);
      channel.push("tick");
      await rec.until(() => updates() === round, `tick ${round}`);
      expect(handle.lastProgressAt).toBe(clock.now());
      clock.advance(1);
      expect(h.probe()).toEqual([]);
    }
    // 4 × the limit have passed in total, and the run was never replaced
    expect(handle.status).toBe("ready");
    expect(handle.recoveries).toBe(0);
    expect(handle.active().state.isStreaming).toBe(true);

    // once the events stop, the deadline runs out
    clock.advance(NO_PROGRESS_MS);
    expect(h.probe()).toEqual([{ sessionId: handle.sessionId, verdict: "stalled" }]);
    await rec.until(() => handle.status === "ready", "recovered");
  });
});

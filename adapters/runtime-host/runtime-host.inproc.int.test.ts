/**
 * The runtime host with in-process workers (same worker logic and protocol, no child process): prompt and
 * host events, the editable queue, interrupt, thinking levels, confirmations with expiry, fork,
 * reset-to-entry with its trash copy, capacity and idle cleanup. Real pi SDK, faux provider, temp dirs.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { ExtensionFactory } from "@earendil-works/pi-coding-agent";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { RuntimeHostView } from "../../api/runtime-host.ts";
import { EMPTY_LIVE_STREAM, isLiveStreamActive, streamedText } from "../../domain/live/live-stream.ts";
import { FauxScript, type FauxTurn } from "../runtime-protocol/faux-script.ts";
import { InProcessWorkerClient } from "../runtime-client/in-process-worker-client.ts";
import { createRuntimeTestDirs, streamedReplies } from "../runtime-client/runtime-test-support.ts";
import { ManualClock } from "./host-clock.ts";
import type { RuntimeHandle } from "./runtime-handle.ts";
import { RuntimeHost, type RuntimeHostOptions } from "./runtime-host.ts";
import { RuntimeHostError } from "./runtime-host-error.ts";
import { agentDirEnv, jsonlLines, messageTexts, recordHost } from "./runtime-host-test-support.ts";

const env = agentDirEnv(() => createRuntimeTestDirs("leyline-host-"));
const dirs = env.dirs;
let host: RuntimeHost | null = null;

beforeAll(env.setUp);
afterEach(async () => {
  await host?.shutdown();
  host = null;
});
afterAll(env.tearDown);

const askExtension: ExtensionFactory = (pi) => {
  pi.registerCommand("ask", {
    description: "asks the user",
    handler: async (_args, ctx) => {
      const confirmed = await ctx.ui.confirm("Proceed?", "Really proceed?");
      ctx.ui.notify(`confirmed:${confirmed}`, "info");
      const quick = await ctx.ui.confirm("Quick?", "This one expires", { timeout: 60_000 });
      ctx.ui.setStatus("leyline-test", `quick:${quick}`);
    },
  });
};

function makeHost(turns: FauxTurn[], options: Partial<RuntimeHostOptions> = {}): RuntimeHost {
  host = new RuntimeHost({
    agentDir: dirs.agentDir,
    fauxScript: new FauxScript(turns),
    createClient: ({ fauxScript }) => InProcessWorkerClient.start({ fauxScript, extensionFactories: [askExtension] }),
    idleMs: 0,
    watchdogMs: 0,
    ...options,
  });
  return host;
}

async function expectStatus(promise: Promise<unknown>, status: number, message?: RegExp): Promise<void> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(RuntimeHostError);
  expect((error as RuntimeHostError).status).toBe(status);
  if (message) expect((error as RuntimeHostError).message).toMatch(message);
}

const idle = (handle: RuntimeHandle) => () => !handle.busy() && !handle.active().state.isStreaming;

describe("RuntimeHost (in-process workers)", () => {
  it("satisfies the API's RuntimeHostView and publishes events for a prompt", async () => {
    const h = makeHost([{ text: "Hello from the faux model." }]);
    const view: RuntimeHostView = h;
    const rec = recordHost(h);
    const handle = await h.open({ new: { cwd: dirs.cwd } }, { select: true });
    expect(view.openRuntimes().map((r) => r.sessionId)).toEqual([handle.sessionId]);
    expect(view.activeWorkers()).toBe(1);
    expect(h.activeSessionId).toBe(handle.sessionId);

    const response = await handle.prompt({ text: "say hello" });
    expect(response.queued).toBe(false);
    await rec.until(() => rec.runtimeEvents(handle.sessionId).includes("agent_end") && idle(handle)());
    const types = rec.runtimeEvents(handle.sessionId);
    expect(types.indexOf("agent_start")).toBeLessThan(types.indexOf("agent_end"));
    expect(types).toContain("stream_delta");
    expect(types).not.toContain("message_update");
    const actives = rec.all.filter((e) => e.type === "active_session");
    const revisions = actives.map((e) => (e.data(true) as { snapshotRevision: number }).snapshotRevision);
    expect(revisions.length).toBeGreaterThan(2);
    expect([...revisions].sort((a, b) => a - b)).toEqual(revisions);
    expect(new Set(revisions).size).toBe(revisions.length);
    expect(rec.types()).toContain("runtime_roster");
    // compact sockets do not get the streaming deltas
    const update = rec.all.find(
      (e) => e.type === "runtime_event" && (e.data(true) as { event: { type: string } }).event.type === "stream_delta",
    );
    expect(update?.data(true)).toMatchObject({ activeSessionId: handle.sessionId, event: { type: "stream_delta" } });
    expect(update?.data(false)).toBeNull();
    expect(handle.active().state.model).toMatchObject({ provider: "faux", id: "faux-1", supportsImages: true });
    expect(messageTexts(handle.sessionFile ?? "")).toEqual(["user:say hello", "assistant:Hello from the faux model."]);
    expect(handle.summary()).toMatchObject({ id: handle.sessionId, firstMessage: "say hello", messageCount: 3 });
  });

  it("folds what a runtime streams: liveStream() holds the reply so far; compact sockets get no deltas; a new worker starts empty", async () => {
    const reply = "word ".repeat(100);
    const h = makeHost(
      [
        { match: "stream it", text: reply },
        { match: "again", text: reply },
      ],
      { faux: { tokensPerSecond: 40 } },
    );
    const rec = recordHost(h);
    const handle = await h.open({ new: { cwd: dirs.cwd } });
    const soFar = (): string => {
      const message = handle.liveStream().message;
      return message === null ? "" : streamedText(message);
    };
    await handle.prompt({ text: "stream it" });
    await rec.until(() => soFar().length >= 24, "two chunks streamed");
    expect(reply.startsWith(soFar())).toBe(true);
    expect(soFar().length).toBeLessThan(reply.length);
    expect(isLiveStreamActive(handle.liveStream())).toBe(true);
    const view: RuntimeHostView = h;
    expect(view.openRuntimes()[0]?.liveStream()).toBe(handle.liveStream());
    const deltas = rec.all.filter(
      (e) => e.type === "runtime_event" && (e.data(true) as { event: { type: string } }).event.type === "stream_delta",
    );
    expect(deltas.length).toBeGreaterThan(0);
    for (const delta of deltas) expect(delta.data(false)).toBeNull();
    // The full sockets' events carry the whole reply; once it ended, nothing streams.
    await rec.until(idle(handle), "idle");
    const events = rec.all.flatMap((e) =>
      e.type === "runtime_event" ? [(e.data(true) as { event: { type: string } & Record<string, unknown> }).event] : [],
    );
    expect(streamedReplies(events)).toEqual([reply]);
    expect(handle.liveStream()).toEqual(EMPTY_LIVE_STREAM);

    // A replaced worker never ends the old stream: the handle starts the new one from nothing.
    await handle.prompt({ text: "again" });
    await rec.until(() => soFar().length > 0, "streaming again");
    const before = rec.all.length;
    const recovering = handle.recover("the test replaces the worker");
    expect(handle.liveStream()).toBe(EMPTY_LIVE_STREAM);
    // Full subscribers are told that nothing streams any more (compact ones never saw it stream).
    const told = rec.all
      .slice(before)
      .find((e) => e.type === "runtime_event" && (e.data(true) as { event: { type: string } }).event.type === "stream_snapshot");
    expect(told?.data(true)).toEqual({ activeSessionId: handle.sessionId, event: { type: "stream_snapshot", state: EMPTY_LIVE_STREAM } });
    expect(told?.data(false)).toBeNull();
    await recovering;
    expect(handle.status).toBe("ready");
  });

  it("queues prompts while busy, moves and edits them (409 on a stale revision), dispatches in order", async () => {
    const h = makeHost(
      [
        { match: "long run", text: "word ".repeat(100) }, // ~2.5 s: still streaming while the queue is edited
        { match: "task A", text: "A done" },
        { match: "task B", text: "B done" },
        { match: "task C", text: "C done" },
      ],
      { faux: { tokensPerSecond: 40 } },
    );
    const rec = recordHost(h);
    const handle = await h.open({ new: { cwd: dirs.cwd } });
    expect((await handle.prompt({ text: "long run please" })).queued).toBe(false);
    expect(handle.active().state.isStreaming).toBe(true);
    const a = await handle.prompt({ text: "task A" });
    await handle.prompt({ text: "task B", streamingBehavior: "followUp" });
    const c = await handle.prompt({ text: "task C" });
    expect(a.queued && c.queued).toBe(true);
    const queue = c.active.state.promptQueue;
    expect(queue?.items.map((item) => item.text)).toEqual(["task A", "task B", "task C"]);
    const [idA, idB, idC] = (queue?.items ?? []).map((item) => item.id);
    const revision = queue?.revision ?? -1;

    const moved = await handle.queue({ action: "move", revision, id: idC, direction: "up" });
    expect(moved.state.promptQueue?.items.map((item) => item.id)).toEqual([idA, idC, idB]);
    await expectStatus(handle.queue({ action: "edit", revision, id: idB, text: "task B edited" }), 409);
    const edited = await handle.queue({
      action: "edit",
      revision: moved.state.promptQueue?.revision ?? -1,
      id: idB,
      text: "task B edited",
    });
    expect(edited.state.promptQueue).toMatchObject({ held: true });
    await expectStatus(handle.queue({ action: "move", revision: edited.state.promptQueue?.revision ?? -1, id: idA, direction: "up" }), 400);
    await handle.queue({ action: "resume", revision: edited.state.promptQueue?.revision ?? -1 });

    await rec.until(
      () => handle.promptQueue.items.length === 0 && idle(handle)() && messageTexts(handle.sessionFile ?? "").length === 8,
      "queue drained",
    );
    expect(messageTexts(handle.sessionFile ?? "").filter((text) => text.startsWith("user:"))).toEqual([
      "user:long run please",
      "user:task A",
      "user:task C",
      "user:task B edited",
    ]);
  });

  it("interrupt holds the remaining tasks and stops the run; resume dispatches them", async () => {
    const h = makeHost(
      [
        { match: "long story", text: "Once upon a time ".repeat(40) },
        { match: "after stop", text: "resumed" },
      ],
      { faux: { tokensPerSecond: 40 } },
    );
    const rec = recordHost(h);
    const handle = await h.open({ new: { cwd: dirs.cwd } });
    await handle.prompt({ text: "tell a long story" });
    const queued = await handle.prompt({ text: "after stop" });
    expect(queued.queued).toBe(true);
    const active = await handle.interrupt();
    expect(active.state.isStreaming).toBe(false);
    expect(active.state.promptQueue).toMatchObject({ held: true, items: [{ text: "after stop", status: "pending" }] });
    await handle.queue({ action: "resume", revision: active.state.promptQueue?.revision ?? -1 });
    await rec.until(
      () => handle.promptQueue.items.length === 0 && idle(handle)() && messageTexts(handle.sessionFile ?? "").includes("assistant:resumed"),
    );
  });

  it("changes the thinking level within availableThinkingLevels and rejects others with 400", async () => {
    const h = makeHost([]);
    const handle = await h.open({ new: { cwd: dirs.cwd } });
    expect(handle.active().state.availableThinkingLevels).toContain("high");
    const high = await handle.setThinkingLevel("high");
    expect(high.state.thinkingLevel).toBe("high");
    await expectStatus(handle.setThinkingLevel("ultra"), 400);
    const second = await handle.setModel({ provider: "faux", id: "faux-2" });
    expect(second.state.availableThinkingLevels).toEqual(["off"]);
    await expectStatus(handle.setThinkingLevel("high"), 400);
    await expectStatus(handle.setModel({ provider: "faux", id: "nope" }), 500, /Unknown model/);
    await expectStatus(handle.rename("   "), 400);
    expect((await handle.rename("  My \n  session ")) && handle.sessionName).toBe("My session");
  });

  it("publishes confirmations, delivers a reply, expires another on the injected clock (409 after)", async () => {
    const clock = new ManualClock();
    const h = makeHost([], { clock });
    const rec = recordHost(h);
    const handle = await h.open({ new: { cwd: dirs.cwd } });
    await handle.prompt({ text: "/ask" });
    const pending = () => handle.active().state.extensionUi.confirmations;
    await rec.until(() => pending().length === 1);
    const first = pending()[0];
    expect(first).toMatchObject({ title: "Proceed?", message: "Really proceed?", createdAt: clock.now(), expiresAt: null });
    expect(rec.all.some((e) => e.type === "extension_ui")).toBe(true);
    const compact = handle.snapshot(false) as { state: { pendingConfirmationCount: number; extensionUi: Record<string, unknown> } };
    expect(compact.state.pendingConfirmationCount).toBe(1);
    expect(compact.state.extensionUi["confirmations"]).toBeUndefined();
    await handle.confirm(first?.id ?? "", true);
    await expectStatus(handle.confirm(first?.id ?? "", true), 409, /no longer pending/);

    await rec.until(() => pending().length === 1 && pending()[0]?.title === "Quick?");
    expect(handle.active().state.extensionUi.notifications.map((n) => n.message)).toContain("confirmed:true");
    const quick = pending()[0];
    expect(quick?.expiresAt).toBe(clock.now() + 60_000);
    clock.advance(60_001);
    expect(pending()).toEqual([]);
    await expectStatus(handle.confirm(quick?.id ?? "", true), 409);
    await rec.until(() => handle.active().state.extensionUi.statuses["leyline-test"] === "quick:false");
  });

  it("forks into a second handle with its own file and selects it; the source stays", async () => {
    const h = makeHost([
      { match: "first question", text: "first answer" },
      { match: "second question", text: "second answer" },
      { match: "in the fork", text: "fork answer" },
    ]);
    const rec = recordHost(h);
    const source = await h.open({ new: { cwd: dirs.cwd } }, { select: true });
    await source.prompt({ text: "first question" });
    await rec.until(() => idle(source)() && messageTexts(source.sessionFile ?? "").length === 2);
    await source.prompt({ text: "second question" });
    await rec.until(() => idle(source)() && messageTexts(source.sessionFile ?? "").length === 4);
    const sourceFile = source.sessionFile ?? "";
    const before = fs.readFileSync(sourceFile);
    const firstAnswer = jsonlLines(sourceFile).find(
      (line) => line["type"] === "message" && JSON.stringify(line["message"]).includes("first answer"),
    );

    const fork = await h.fork(source.sessionId, String(firstAnswer?.["id"]));
    expect(fork).not.toBe(source);
    expect(fork.sessionId).not.toBe(source.sessionId);
    expect(fork.sessionFile).not.toBe(sourceFile);
    expect(h.activeSessionId).toBe(fork.sessionId);
    expect(h.openRuntimes().map((r) => r.sessionId)).toEqual([source.sessionId, fork.sessionId]);
    await fork.prompt({ text: "in the fork" });
    await rec.until(() => idle(fork)() && messageTexts(fork.sessionFile ?? "").length === 4);
    expect(messageTexts(fork.sessionFile ?? "")).toEqual([
      "user:first question",
      "assistant:first answer",
      "user:in the fork",
      "assistant:fork answer",
    ]);
    expect(fs.readFileSync(sourceFile).equals(before)).toBe(true);
    expect(h.get(source.sessionId)).toBe(source);
    await expectStatus(h.fork("nope", "x"), 404);
  });

  it("resets to an entry: the file ends there, the trash copy is the original byte for byte, the runtime keeps working", async () => {
    const h = makeHost([
      { match: "one", text: "answer one" },
      { match: "two", text: "answer two" },
      { match: "three", text: "answer three" },
    ]);
    const rec = recordHost(h);
    const handle = await h.open({ new: { cwd: dirs.cwd } });
    for (const [index, text] of ["one", "two"].entries()) {
      await handle.prompt({ text });
      await rec.until(() => idle(handle)() && messageTexts(handle.sessionFile ?? "").length === 2 * (index + 1));
    }
    const file = handle.sessionFile ?? "";
    const original = fs.readFileSync(file);
    const target = jsonlLines(file).find((line) => line["type"] === "message" && JSON.stringify(line["message"]).includes("answer one"));
    const entryId = String(target?.["id"]);
    await expectStatus(handle.resetToEntry("no-such-entry"), 404);

    const { trashPath } = await handle.resetToEntry(entryId);
    expect(path.dirname(trashPath)).toBe(path.join(dirs.agentDir, "leyline-trash"));
    expect(fs.readFileSync(trashPath).equals(original)).toBe(true);
    const lines = jsonlLines(file);
    expect(lines.at(-1)?.["id"]).toBe(entryId);
    expect(original.subarray(0, fs.statSync(file).size).equals(fs.readFileSync(file))).toBe(true);
    expect(handle.status).toBe("ready");

    await handle.prompt({ text: "three" });
    await rec.until(() => idle(handle)() && messageTexts(file).length === 4);
    expect(messageTexts(file)).toEqual(["user:one", "assistant:answer one", "user:three", "assistant:answer three"]);
    const newLines = jsonlLines(file);
    expect(newLines.find((line) => line["type"] === "message" && JSON.stringify(line["message"]).includes('"three"'))?.["parentId"]).toBe(
      entryId,
    );

    // restoring = copying the trash file back
    fs.copyFileSync(trashPath, file);
    expect(fs.readFileSync(file).equals(original)).toBe(true);
  });

  it("evicts the idlest idle runtime at capacity and refuses with 503 when none is idle", async () => {
    const clock = new ManualClock();
    const h = makeHost([], { capacity: 2, clock });
    const rec = recordHost(h);
    const a = await h.open({ new: { cwd: path.join(dirs.root, "cap-a") } });
    clock.advance(10);
    const b = await h.open({ new: { cwd: path.join(dirs.root, "cap-b") } }, { select: true });
    clock.advance(10);
    const c = await h.open({ new: { cwd: path.join(dirs.root, "cap-c") } });
    expect(h.openRuntimes().map((r) => r.sessionId)).toEqual([b.sessionId, c.sessionId]);
    expect(rec.all.find((e) => e.type === "runtime_removed")?.data(true)).toEqual({ id: a.sessionId });
    expect(a.status).toBe("closed");

    const small = makeHostAgain({ capacity: 1 });
    await small.open({ new: { cwd: path.join(dirs.root, "cap-d") } }, { select: true });
    await expectStatus(small.open({ new: { cwd: path.join(dirs.root, "cap-e") } }), 503, /capacity/);
    await small.shutdown();
  });

  it("closes runtimes idle past idleMs on the injected clock, never the selected one", async () => {
    const clock = new ManualClock();
    const h = makeHost([], { clock, idleMs: 60_000, idleSweepMs: 10_000 });
    const rec = recordHost(h);
    const a = await h.open({ new: { cwd: path.join(dirs.root, "idle-a") } });
    const b = await h.open({ new: { cwd: path.join(dirs.root, "idle-b") } }, { select: true });
    clock.advance(50_000);
    expect(h.openRuntimes()).toHaveLength(2);
    clock.advance(20_000);
    await rec.until(() => rec.types().includes("runtime_removed"));
    expect(h.openRuntimes().map((r) => r.sessionId)).toEqual([b.sessionId]);
    expect(a.status).toBe("closed");
    expect(h.activeWorkers()).toBe(1);
  });
});

/** A second host in the same test (the first one stays referenced by `host` for cleanup). */
function makeHostAgain(options: Partial<RuntimeHostOptions>): RuntimeHost {
  return new RuntimeHost({
    agentDir: dirs.agentDir,
    fauxScript: new FauxScript([]),
    createClient: ({ fauxScript }) => InProcessWorkerClient.start({ fauxScript }),
    idleMs: 0,
    watchdogMs: 0,
    ...options,
  });
}

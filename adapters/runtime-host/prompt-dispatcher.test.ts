/**
 * The prompt dispatcher driven by a manual clock (its turns are clock timers of 0 ms here) and a scripted
 * worker whose requests the test answers one by one. The harness folds snapshots the way the snapshot
 * publisher does (newer revisions only, then `dispatchIfIdle`).
 */
import { describe, expect, it } from "vitest";
import type { PromptQueueState } from "../../domain/prompt-queue/prompt-queue-types.ts";
import type { RuntimeRequestType, RuntimeResultMap, RuntimeSnapshot } from "../runtime-protocol/runtime-protocol.ts";
import { idleRuntimeSnapshot } from "../runtime-protocol/runtime-snapshot.fixture.ts";
import { ManualClock } from "./host-clock.ts";
import type { PromptBody } from "./runtime-action-bodies.ts";
import { createPromptDispatcher, type PromptDispatcher } from "./prompt-dispatcher.ts";
import type { PiActivity } from "./prompt-dispatcher.rules.ts";
import type { WorkerCall } from "./runtime-supervision.ts";

interface PendingRequest {
  type: RuntimeRequestType;
  payload: unknown;
  resolve(result: unknown): void;
  reject(error: Error): void;
}

/** Requests to the worker wait here until the test answers them. */
class ScriptedWorker {
  readonly pending: PendingRequest[] = [];
  private waiter: (() => void) | null = null;

  readonly call: WorkerCall = (type, payload) =>
    new Promise<RuntimeResultMap[typeof type]>((resolve, reject) => {
      this.pending.push({ type, payload, resolve: (result) => resolve(result as RuntimeResultMap[typeof type]), reject });
      this.waiter?.();
    });

  /** The next request, once it was made; it must be of `type`. */
  async next(type: RuntimeRequestType): Promise<PendingRequest> {
    if (this.pending.length === 0) await new Promise<void>((resolve) => (this.waiter = resolve));
    this.waiter = null;
    const request = this.pending.shift();
    expect(request?.type).toBe(type);
    return request as PendingRequest;
  }
}

function snapshot(revision: number, pi: Partial<PiActivity> = {}): RuntimeSnapshot {
  return idleRuntimeSnapshot({ revision, isStreaming: pi.isStreaming ?? false, isCompacting: pi.isCompacting ?? false });
}

function prompt(text: string): PromptBody {
  return { text, images: [], streamingBehavior: null, kind: null, handoffId: null };
}

/** Lets every promise continuation that is already due run (a worker answer travels through several). */
function afterPendingCallbacks(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

interface Harness {
  clock: ManualClock;
  worker: ScriptedWorker;
  dispatcher: PromptDispatcher;
  /** A worker snapshot as the publisher folds it. */
  applySnapshot(snapshot: RuntimeSnapshot): void;
  /** pi's flags as a session event sets them in the projection (agent_end clears isStreaming). */
  setPi(pi: PiActivity): void;
  queues: PromptQueueState[];
  progressAt: number[];
}

function harness(): Harness {
  const clock = new ManualClock();
  const worker = new ScriptedWorker();
  let pi: PiActivity = { isStreaming: false, isCompacting: false };
  let revision = 0;
  const queues: PromptQueueState[] = [];
  const progressAt: number[] = [];
  const applySnapshot = (next: RuntimeSnapshot): void => {
    if (next.revision <= revision) return;
    revision = next.revision;
    pi = { isStreaming: next.isStreaming, isCompacting: next.isCompacting };
    dispatcher.dispatchIfIdle();
  };
  const dispatcher = createPromptDispatcher({
    clock,
    nextTurn: (fn) => void clock.schedule(0, fn),
    call: worker.call,
    applySnapshot,
    pi: () => pi,
    runtimeReady: () => true,
    queueChanged: (queue) => queues.push(queue),
    submitted: () => progressAt.push(clock.now()),
  });
  return { clock, worker, dispatcher, applySnapshot, setPi: (next) => (pi = next), queues, progressAt };
}

/** Given pi running its run, when a prompt arrives, then it is queued. */
async function queuedWhileRunning(h: Harness, text = "next"): Promise<void> {
  h.applySnapshot(snapshot(1, { isStreaming: true }));
  expect(await h.dispatcher.prompt(prompt(text), { kind: "session", extensionCommand: false })).toBe(true);
  h.clock.advance(0);
  expect(h.worker.pending).toEqual([]);
}

/** The run ends (agent_end clears isStreaming in the projection before pi is really idle). */
function runEnds(h: Harness): void {
  h.setPi({ isStreaming: false, isCompacting: false });
  h.dispatcher.runEnded();
  h.clock.advance(0);
}

describe("queue dispatch", () => {
  it("a prompt while pi runs is queued with the clock's time and waits", async () => {
    const h = harness();
    await queuedWhileRunning(h);
    expect(h.dispatcher.queue().items).toMatchObject([{ text: "next", status: "pending", queuedAt: h.clock.now() }]);
    expect(h.dispatcher.busy()).toBe(true);
  });

  it("after the run ends, a fresh snapshot confirms pi is idle, then the next task goes to pi and leaves the queue once accepted", async () => {
    const h = harness();
    await queuedWhileRunning(h);
    runEnds(h);

    const probe = await h.worker.next("snapshot");
    expect(h.dispatcher.busy()).toBe(true);
    probe.resolve(snapshot(2));
    const sent = await h.worker.next("prompt");
    expect(sent.payload).toEqual({ text: "next" });
    expect(h.dispatcher.queue().items).toMatchObject([{ status: "sending" }]);
    expect(h.progressAt).toEqual([h.clock.now()]);

    sent.resolve({});
    (await h.worker.next("snapshot")).resolve(snapshot(3, { isStreaming: true }));
    await afterPendingCallbacks();
    expect(h.dispatcher.queue().items).toEqual([]);
  });

  it("when the fresh snapshot shows pi still running, nothing polls: the worker's snapshot at the run's real end brings the task out", async () => {
    const h = harness();
    await queuedWhileRunning(h);
    runEnds(h);
    (await h.worker.next("snapshot")).resolve(snapshot(2, { isStreaming: true }));
    await afterPendingCallbacks();

    h.clock.advance(60_000);
    expect(h.clock.pending()).toBe(0);
    expect(h.worker.pending).toEqual([]);
    expect(h.dispatcher.queue().items).toMatchObject([{ status: "pending" }]);

    h.applySnapshot(snapshot(3));
    h.clock.advance(0);
    (await h.worker.next("snapshot")).resolve(snapshot(4));
    expect((await h.worker.next("prompt")).payload).toEqual({ text: "next" });
  });

  it("an idle snapshot that overtakes the fresh snapshot's reply wins: the older reply is ignored and the task goes", async () => {
    const h = harness();
    await queuedWhileRunning(h);
    runEnds(h);
    const probe = await h.worker.next("snapshot");
    h.applySnapshot(snapshot(3));
    probe.resolve(snapshot(2, { isStreaming: true }));
    expect((await h.worker.next("prompt")).payload).toEqual({ text: "next" });
  });

  it("a failed dispatch holds the queue with the error and sends nothing more", async () => {
    const h = harness();
    await queuedWhileRunning(h);
    runEnds(h);
    (await h.worker.next("snapshot")).resolve(snapshot(2));
    (await h.worker.next("prompt")).reject(new Error("model refused"));
    await afterPendingCallbacks();
    h.clock.advance(0);
    expect(h.dispatcher.queue()).toMatchObject({ held: true, items: [{ status: "pending" }] });
    expect(h.dispatcher.queue().error).toContain("model refused");
    expect(h.worker.pending).toEqual([]);
  });
});

describe("the submission lock", () => {
  it("a model change makes prompts answer 500 and dispatch wait until it ends", async () => {
    const h = harness();
    await queuedWhileRunning(h);
    h.setPi({ isStreaming: false, isCompacting: false });
    let finishChange = (): void => {};
    const change = h.dispatcher.underSubmissionLock("model change", () => new Promise<void>((resolve) => (finishChange = resolve)));

    await expect(h.dispatcher.prompt(prompt("now"), { kind: "session", extensionCommand: false })).rejects.toMatchObject({
      status: 500,
      message: "Cannot send a prompt during the model change",
    });
    expect(() => h.dispatcher.requireIdle("reload")).toThrow("Cannot reload during the model change");
    h.dispatcher.runEnded();
    h.clock.advance(0);
    expect(h.worker.pending).toEqual([]);

    finishChange();
    await change;
    h.clock.advance(0);
    await h.worker.next("snapshot");
  });
});

describe("direct submissions", () => {
  it("an idle runtime submits a prompt at once and counts as setting it up until pi confirmed its run", async () => {
    const h = harness();
    const submitted = h.dispatcher.prompt({ ...prompt("hello"), handoffId: "h1" }, { kind: "session", extensionCommand: false });
    const request = await h.worker.next("prompt");
    expect(() => h.dispatcher.requireIdle("compact")).toThrow("Cannot compact while a prompt is being set up");

    request.resolve({});
    (await h.worker.next("snapshot")).resolve(snapshot(1, { isStreaming: true }));
    expect(await submitted).toBe(false);
    expect(h.dispatcher.handoffId()).toBe("h1");
    expect(() => h.dispatcher.requireIdle("compact")).toThrow("Cannot compact while the session is streaming");

    runEnds(h);
    expect(h.dispatcher.handoffId()).toBeNull();
  });

  it("a direct prompt's failure is thrown as 500 and leaves the runtime idle", async () => {
    const h = harness();
    const submitted = h.dispatcher.prompt(prompt("hello"), { kind: "session", extensionCommand: false });
    (await h.worker.next("prompt")).reject(new Error("no model"));
    await expect(submitted).rejects.toMatchObject({ status: 500, message: "Prompt failed: no model" });
    expect(h.dispatcher.busy()).toBe(false);
  });

  it("Stop in progress blocks other actions until the abort returned", async () => {
    const h = harness();
    let aborted = (): void => {};
    const stop = h.dispatcher.whileStopping(() => new Promise<void>((resolve) => (aborted = resolve)));
    expect(h.dispatcher.stopping()).toBe(true);
    expect(() => h.dispatcher.requireIdle("reset")).toThrow("Cannot reset while Stop is in progress");
    aborted();
    await stop;
    expect(h.dispatcher.stopping()).toBe(false);
  });

  it("one shell command at a time", async () => {
    const h = harness();
    let done = (): void => {};
    const first = h.dispatcher.whileShellCommand(() => new Promise<string>((resolve) => (done = () => resolve("ok"))));
    await expect(h.dispatcher.whileShellCommand(async () => "second")).rejects.toMatchObject({
      status: 500,
      message: "A shell command is already running",
    });
    done();
    expect(await first).toBe("ok");
    expect(h.dispatcher.shellCommandRunning()).toBe(false);
  });
});

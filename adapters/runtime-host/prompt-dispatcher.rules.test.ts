/**
 * The prompt dispatcher's pure decisions, written Given (phase events, pi's state, the queue) / When (an event
 * or a question) / Then (the phase or the answer).
 */
import { describe, expect, it } from "vitest";
import { evolveAll, initialState } from "../../domain/prompt-queue/prompt-queue.decider.ts";
import type { PromptQueueEvent, PromptQueueState, QueuedTask } from "../../domain/prompt-queue/prompt-queue-types.ts";
import {
  canDispatch,
  type DispatchInputs,
  evolvePhase,
  IDLE,
  idleBlocker,
  isBusy,
  lockHolder,
  type PhaseEvent,
  type PiActivity,
  type SubmissionPhase,
} from "./prompt-dispatcher.rules.ts";

const PI_IDLE: PiActivity = { isStreaming: false, isCompacting: false };

function given(...events: PhaseEvent[]) {
  const phase = events.reduce(evolvePhase, IDLE);
  return {
    phase,
    when(event: PhaseEvent) {
      const after = evolvePhase(phase, event);
      return {
        then(expected: SubmissionPhase) {
          expect(after).toEqual(expected);
        },
      };
    },
  };
}

const started: PhaseEvent = { type: "submissionStarted" };
const settled: PhaseEvent = { type: "submissionSettled" };
const modelChange: PhaseEvent = { type: "changeStarted", change: "model change" };
const changeEnded: PhaseEvent = { type: "changeEnded" };

describe("the submission phase", () => {
  it("a submission moves idle to submitting one", () => {
    given().when(started).then({ phase: "submitting", inFlight: 1 });
  });

  it("submissions in flight are counted, and idle returns when the last one settles", () => {
    given(started, started).when(settled).then({ phase: "submitting", inFlight: 1 });
    given(started, started, settled).when(settled).then(IDLE);
  });

  it("a change takes the lock only from idle", () => {
    given().when(modelChange).then({ phase: "changing", change: "model change" });
    given(started).when(modelChange).then({ phase: "submitting", inFlight: 1 });
  });

  it("a submission cannot take the lock from a change", () => {
    given(modelChange).when(started).then({ phase: "changing", change: "model change" });
    given(modelChange).when(settled).then({ phase: "changing", change: "model change" });
  });

  it("the end of a change frees the lock; it ends nothing else", () => {
    given(modelChange).when(changeEnded).then(IDLE);
    given(started).when(changeEnded).then({ phase: "submitting", inFlight: 1 });
  });

  it("a settle without a submission leaves idle as it is", () => {
    given().when(settled).then(IDLE);
  });

  it("the lock holder is the change in progress", () => {
    expect(lockHolder(given({ type: "changeStarted", change: "Ultrafast change" }).phase)).toBe("Ultrafast change");
    expect(lockHolder(given(started).phase)).toBeNull();
  });
});

describe("busy", () => {
  it("pi running or compacting is busy", () => {
    expect(isBusy({ isStreaming: true, isCompacting: false }, IDLE)).toBe(true);
    expect(isBusy({ isStreaming: false, isCompacting: true }, IDLE)).toBe(true);
  });

  it("a submission or a change is busy while pi still looks idle", () => {
    expect(isBusy(PI_IDLE, given(started).phase)).toBe(true);
    expect(isBusy(PI_IDLE, given(modelChange).phase)).toBe(true);
    expect(isBusy(PI_IDLE, IDLE)).toBe(false);
  });
});

describe("idleBlocker: what keeps an action from running", () => {
  it("names pi's run first, then compaction, a submission, Stop and a change", () => {
    expect(idleBlocker("compact", { isStreaming: true, isCompacting: true }, IDLE, true)).toBe(
      "Cannot compact while the session is streaming",
    );
    expect(idleBlocker("compact", { isStreaming: false, isCompacting: true }, IDLE, true)).toBe(
      "Cannot compact while the session is compacting",
    );
    expect(idleBlocker("reload", PI_IDLE, given(started).phase, true)).toBe("Cannot reload while a prompt is being set up");
    expect(idleBlocker("reset", PI_IDLE, given(modelChange).phase, true)).toBe("Cannot reset while Stop is in progress");
    expect(idleBlocker("change the model", PI_IDLE, given(modelChange).phase, false)).toBe(
      "Cannot change the model during the model change",
    );
  });

  it("lets an action run when nothing is going on", () => {
    expect(idleBlocker("compact", PI_IDLE, IDLE, false)).toBeNull();
  });
});

function task(id: string): QueuedTask {
  return { id, text: `task ${id}`, images: [], kind: "session", handoffId: null, queuedAt: 1_000, status: "pending" };
}

function queueOf(...events: PromptQueueEvent[]): PromptQueueState {
  return evolveAll(initialState(), events);
}

const oneTask = queueOf({ type: "taskQueued", task: task("a") });

function inputs(overrides: Partial<DispatchInputs> = {}): DispatchInputs {
  return { runtimeReady: true, pi: PI_IDLE, phase: IDLE, stopping: false, queue: oneTask, ...overrides };
}

describe("canDispatch: may the next queued task go to pi now?", () => {
  it("a pending task on a ready, idle runtime goes", () => {
    expect(canDispatch(inputs())).toBe(true);
  });

  it("an empty queue has nothing to send", () => {
    expect(canDispatch(inputs({ queue: initialState() }))).toBe(false);
  });

  it("a held queue waits", () => {
    expect(canDispatch(inputs({ queue: queueOf({ type: "taskQueued", task: task("a") }, { type: "queueHeld" }) }))).toBe(false);
  });

  it("a task being sent blocks the next one", () => {
    const queue = queueOf(
      { type: "taskQueued", task: task("a") },
      { type: "taskQueued", task: task("b") },
      { type: "submissionStarted", id: "a", via: "prompt" },
    );
    expect(canDispatch(inputs({ queue }))).toBe(false);
  });

  it("pi running or compacting blocks", () => {
    expect(canDispatch(inputs({ pi: { isStreaming: true, isCompacting: false } }))).toBe(false);
    expect(canDispatch(inputs({ pi: { isStreaming: false, isCompacting: true } }))).toBe(false);
  });

  it("a submission in flight or a change holding the lock blocks", () => {
    expect(canDispatch(inputs({ phase: given(started).phase }))).toBe(false);
    expect(canDispatch(inputs({ phase: given({ type: "changeStarted", change: "Ultrafast change" }).phase }))).toBe(false);
  });

  it("Stop in progress blocks", () => {
    expect(canDispatch(inputs({ stopping: true }))).toBe(false);
  });

  it("a runtime that is not ready (starting, recovering, paused, closed) blocks", () => {
    expect(canDispatch(inputs({ runtimeReady: false }))).toBe(false);
  });
});

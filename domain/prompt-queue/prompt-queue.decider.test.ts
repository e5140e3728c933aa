/**
 * The prompt queue rules of spec/api-reference.md ("Prompt", "Editable prompt queue", "Interrupt", "Reload"),
 * one test per rule, written Given (past events) / When (a command) / Then (events, submission, or error).
 */
import { describe, expect, it } from "vitest";
import type { PromptImage } from "../runtime/runtime-types.ts";
import { decide, evolveAll, handle, initialState } from "./prompt-queue.decider.ts";
import type {
  EnqueueCommand,
  PromptQueueCommand,
  PromptQueueDecision,
  PromptQueueErrorCode,
  PromptQueueEvent,
  PromptQueueState,
  QueuedTask,
} from "./prompt-queue-types.ts";
import { selectCompactPromptQueue, selectPromptQueue } from "./prompt-queue.selectors.ts";

const PNG: PromptImage = { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" };

function task(id: string, overrides: Partial<QueuedTask> = {}): QueuedTask {
  return { id, text: `task ${id}`, images: [], kind: "session", handoffId: null, queuedAt: 1_000, status: "pending", ...overrides };
}

const queued = (id: string, overrides: Partial<QueuedTask> = {}): PromptQueueEvent => ({ type: "taskQueued", task: task(id, overrides) });

function enqueue(overrides: Partial<EnqueueCommand> = {}): EnqueueCommand {
  return {
    type: "enqueue",
    id: "new",
    now: 5_000,
    text: "hello",
    images: [],
    streamingBehavior: null,
    kind: "session",
    handoffId: null,
    busy: false,
    extensionCommand: false,
    ...overrides,
  };
}

function given(...events: PromptQueueEvent[]) {
  const state = evolveAll(initialState(), events);
  return {
    state,
    when(command: PromptQueueCommand | ((s: PromptQueueState) => PromptQueueCommand)) {
      const cmd = typeof command === "function" ? command(state) : command;
      const decision: PromptQueueDecision = decide(cmd, state);
      const after = handle(state, cmd).state;
      return {
        decision,
        after,
        thenEvents(expected: PromptQueueEvent[]) {
          expect(decision.ok, JSON.stringify(decision)).toBe(true);
          if (decision.ok) expect(decision.events).toEqual(expected);
          return this;
        },
        thenRejects(code: PromptQueueErrorCode) {
          expect(decision.ok).toBe(false);
          if (!decision.ok) expect(decision.error.code).toBe(code);
          expect(after).toBe(state);
          return this;
        },
        thenState(check: (s: PromptQueueState) => void) {
          check(after);
          return this;
        },
      };
    },
  };
}

describe("enqueue: routing a prompt request", () => {
  it("an idle session with no pending tasks submits a plain prompt now (queued: false)", () => {
    const { decision } = given().when(enqueue()).thenEvents([]);
    expect(decision.ok && decision.queued).toBe(false);
    expect(decision.ok && decision.submission).toEqual({
      via: "prompt",
      taskId: null,
      text: "hello",
      images: [],
      kind: "session",
      handoffId: null,
    });
  });

  it("a busy session retains a plain prompt in the editable queue (queued: true)", () => {
    const { decision } = given()
      .when(enqueue({ busy: true }))
      .thenEvents([{ type: "taskQueued", task: { ...task("new"), text: "hello", queuedAt: 5_000 } }]);
    expect(decision.ok && decision.queued).toBe(true);
    expect(decision.ok && decision.submission).toBeNull();
  });

  it("a nonempty queue retains a plain prompt even when pi is idle", () => {
    given(queued("a"))
      .when(enqueue())
      .thenState((s) => expect(s.items.map((i) => i.id)).toEqual(["a", "new"]));
  });

  it("followUp on an idle, unheld, empty queue dispatches immediately", () => {
    const { decision } = given()
      .when(enqueue({ streamingBehavior: "followUp" }))
      .thenEvents([]);
    expect(decision.ok && decision.submission?.via).toBe("prompt");
  });

  it("followUp while busy goes to the editable queue", () => {
    given()
      .when(enqueue({ streamingBehavior: "followUp", busy: true }))
      .thenState((s) => expect(s.items).toHaveLength(1));
  });

  it("steer while busy takes pi's steering path and counts as queued", () => {
    const { decision } = given()
      .when(enqueue({ streamingBehavior: "steer", busy: true }))
      .thenEvents([]);
    expect(decision.ok && decision.submission?.via).toBe("steer");
    expect(decision.ok && decision.queued).toBe(true);
  });

  it("steer on an idle session starts a new run instead", () => {
    const { decision } = given()
      .when(enqueue({ streamingBehavior: "steer" }))
      .thenEvents([]);
    expect(decision.ok && decision.submission?.via).toBe("prompt");
    expect(decision.ok && decision.queued).toBe(false);
  });

  it("a queue submission in flight counts as busy for steer", () => {
    const { decision } = given(queued("a"), { type: "submissionStarted", id: "a", via: "prompt" })
      .when(enqueue({ streamingBehavior: "steer" }))
      .thenEvents([]);
    expect(decision.ok && decision.submission?.via).toBe("steer");
  });

  it("a held queue retains new prompts, steer included", () => {
    for (const streamingBehavior of [null, "steer", "followUp"] as const) {
      const { decision } = given(queued("a"), { type: "queueHeld" })
        .when(enqueue({ streamingBehavior }))
        .thenState((s) => expect(s.items.map((i) => i.id)).toEqual(["a", "new"]));
      expect(decision.ok && decision.submission).toBeNull();
      expect(decision.ok && decision.queued).toBe(true);
    }
  });

  it("a recognized extension command goes to pi directly, even while held", () => {
    const { decision } = given(queued("a"), { type: "queueHeld" })
      .when(enqueue({ text: "/plan", extensionCommand: true, busy: true }))
      .thenEvents([]);
    expect(decision.ok && decision.submission?.text).toBe("/plan");
    expect(decision.ok && decision.queued).toBe(false);
  });

  it("empty text is valid only with at least one image", () => {
    given()
      .when(enqueue({ text: "  " }))
      .thenRejects("invalid");
    given()
      .when(enqueue({ text: "", images: [PNG], busy: true }))
      .thenState((s) => expect(s.items[0]?.images).toEqual([PNG]));
  });

  it("only PNG, JPEG, GIF and WebP images are accepted", () => {
    given()
      .when(enqueue({ images: [{ type: "image", data: "x", mimeType: "image/bmp" }] }))
      .thenRejects("invalid");
    for (const mimeType of ["image/png", "image/jpeg", "image/gif", "image/webp"]) {
      expect(decide(enqueue({ images: [{ type: "image", data: "x", mimeType }] }), initialState()).ok).toBe(true);
    }
  });

  it("a duplicate task id is rejected", () => {
    given(queued("new"))
      .when(enqueue({ busy: true }))
      .thenRejects("invalid");
  });

  it("the queued task keeps kind, handoff id and the command's time", () => {
    given()
      .when(enqueue({ busy: true, kind: "research", handoffId: "h1", now: 42 }))
      .thenState((s) => expect(s.items[0]).toMatchObject({ kind: "research", handoffId: "h1", queuedAt: 42, status: "pending" }));
  });
});

describe("revisions", () => {
  it("a missing or stale revision is rejected with stale-revision", () => {
    const g = given(queued("a"));
    g.when({ type: "hold", revision: undefined }).thenRejects("stale-revision");
    g.when({ type: "hold", revision: g.state.revision - 1 }).thenRejects("stale-revision");
    g.when({ type: "remove", revision: g.state.revision + 1, id: "a" }).thenRejects("stale-revision");
    g.when({ type: "hold", revision: 0.5 }).thenRejects("stale-revision");
  });

  it("the stale check comes before item checks", () => {
    given(queued("a")).when({ type: "remove", revision: 99, id: "ghost" }).thenRejects("stale-revision");
  });

  it("each event raises the revision by one", () => {
    given(queued("a"))
      .when((s) => ({ type: "edit", revision: s.revision, id: "a", text: "x" }))
      .thenEvents([{ type: "queueHeld" }, { type: "taskEdited", id: "a", text: "x" }])
      .thenState((s) => expect(s.revision).toBe(3));
  });
});

describe("hold and resume", () => {
  it("hold holds a nonempty queue", () => {
    given(queued("a"))
      .when({ type: "hold", revision: 1 })
      .thenEvents([{ type: "queueHeld" }])
      .thenState((s) => expect(s.held).toBe(true));
  });

  it("an empty queue stays unheld", () => {
    given()
      .when({ type: "hold", revision: 0 })
      .thenEvents([])
      .thenState((s) => expect(s).toEqual(initialState()));
  });

  it("hold cancels an unaccepted queue submission", () => {
    given(queued("a"), queued("b"), { type: "submissionStarted", id: "a", via: "prompt" })
      .when((s) => ({ type: "hold", revision: s.revision }))
      .thenEvents([{ type: "submissionCancelled", id: "a" }, { type: "queueHeld" }])
      .thenState((s) => expect(s.items.map((i) => i.status)).toEqual(["pending", "pending"]));
  });

  it("resume releases the hold and clears the error", () => {
    given(queued("a"), { type: "submissionFailed", id: "a", error: "vision model missing" })
      .when((s) => ({ type: "resume", revision: s.revision, stopping: false }))
      .thenEvents([{ type: "queueResumed" }])
      .thenState((s) => expect([s.held, s.error]).toEqual([false, ""]));
  });

  it("resume is rejected while Stop is still in progress", () => {
    given(queued("a"), { type: "queueHeld" })
      .when((s) => ({ type: "resume", revision: s.revision, stopping: true }))
      .thenRejects("blocked");
  });

  it("resume of an unheld queue without error changes nothing", () => {
    given(queued("a"))
      .when((s) => ({ type: "resume", revision: s.revision, stopping: false }))
      .thenEvents([]);
  });
});

describe("edit, remove, move", () => {
  it("edit replaces the text, keeps the images and holds the queue", () => {
    given(queued("a", { images: [PNG] }))
      .when((s) => ({ type: "edit", revision: s.revision, id: "a", text: "better" }))
      .thenState((s) => {
        expect(s.items[0]).toMatchObject({ text: "better", images: [PNG] });
        expect(s.held).toBe(true);
      });
  });

  it("edit cancels an unaccepted submission of another task", () => {
    given(queued("a"), queued("b"), { type: "submissionStarted", id: "a", via: "prompt" })
      .when((s) => ({ type: "edit", revision: s.revision, id: "b", text: "x" }))
      .thenEvents([{ type: "submissionCancelled", id: "a" }, { type: "queueHeld" }, { type: "taskEdited", id: "b", text: "x" }]);
  });

  it("empty replacement text is valid only if the task has images", () => {
    given(queued("a"))
      .when((s) => ({ type: "edit", revision: s.revision, id: "a", text: " " }))
      .thenRejects("invalid");
    given(queued("a", { images: [PNG] }))
      .when((s) => ({ type: "edit", revision: s.revision, id: "a", text: "" }))
      .thenState((s) => expect(s.items[0]?.text).toBe(""));
  });

  it("item mutations require a pending task", () => {
    const g = given(queued("a"), queued("b"), { type: "submissionStarted", id: "a", via: "prompt" });
    const r = g.state.revision;
    g.when({ type: "edit", revision: r, id: "a", text: "x" }).thenRejects("not-pending");
    g.when({ type: "remove", revision: r, id: "a" }).thenRejects("not-pending");
    g.when({ type: "move", revision: r, id: "a", direction: "down" }).thenRejects("not-pending");
    g.when({ type: "steer", revision: r, id: "a" }).thenRejects("not-pending");
  });

  it("steering waits while another task is being sent (its failure would hold a queue with a task in flight)", () => {
    const g = given(queued("a"), queued("b"), { type: "submissionStarted", id: "a", via: "prompt" });
    g.when({ type: "steer", revision: g.state.revision, id: "b" }).thenRejects("blocked");
  });

  it("missing tasks are not-found", () => {
    const g = given(queued("a"));
    g.when({ type: "edit", revision: 1, id: "zz", text: "x" }).thenRejects("not-found");
    g.when({ type: "remove", revision: 1, id: "zz" }).thenRejects("not-found");
    g.when({ type: "move", revision: 1, id: "zz", direction: "up" }).thenRejects("not-found");
    g.when({ type: "steer", revision: 1, id: "zz" }).thenRejects("not-found");
  });

  it("remove drops the task and keeps the hold while tasks remain", () => {
    given(queued("a"), queued("b"), { type: "queueHeld" })
      .when((s) => ({ type: "remove", revision: s.revision, id: "a" }))
      .thenState((s) => expect([s.items.map((i) => i.id), s.held]).toEqual([["b"], true]));
  });

  it("removing the last task clears the hold and the queue error", () => {
    given(queued("a"), { type: "submissionFailed", id: "a", error: "boom" })
      .when((s) => ({ type: "remove", revision: s.revision, id: "a" }))
      .thenState((s) => expect(s).toEqual({ revision: 3, held: false, error: "", items: [] }));
  });

  it("move swaps with the neighbour", () => {
    given(queued("a"), queued("b"), queued("c"))
      .when((s) => ({ type: "move", revision: s.revision, id: "b", direction: "up" }))
      .thenState((s) => expect(s.items.map((i) => i.id)).toEqual(["b", "a", "c"]));
    given(queued("a"), queued("b"), queued("c"))
      .when((s) => ({ type: "move", revision: s.revision, id: "b", direction: "down" }))
      .thenState((s) => expect(s.items.map((i) => i.id)).toEqual(["a", "c", "b"]));
  });

  it("move past either end, or past a task being sent, is invalid", () => {
    given(queued("a"), queued("b"))
      .when((s) => ({ type: "move", revision: s.revision, id: "a", direction: "up" }))
      .thenRejects("invalid");
    given(queued("a"), queued("b"))
      .when((s) => ({ type: "move", revision: s.revision, id: "b", direction: "down" }))
      .thenRejects("invalid");
    given(queued("a"), queued("b"), { type: "submissionStarted", id: "a", via: "prompt" })
      .when((s) => ({ type: "move", revision: s.revision, id: "b", direction: "up" }))
      .thenRejects("invalid");
  });
});

describe("steer a queued task", () => {
  it("submits the task through pi's steering path", () => {
    const { decision } = given(queued("a"), queued("b"))
      .when((s) => ({ type: "steer", revision: s.revision, id: "b" }))
      .thenEvents([{ type: "submissionStarted", id: "b", via: "steer" }])
      .thenState((s) => expect(s.items[1]?.status).toBe("sending"));
    expect(decision.ok && decision.submission).toMatchObject({ via: "steer", taskId: "b", text: "task b" });
  });

  it("requires an unheld queue", () => {
    given(queued("a"), { type: "queueHeld" })
      .when((s) => ({ type: "steer", revision: s.revision, id: "a" }))
      .thenRejects("blocked");
  });
});

describe("dispatch", () => {
  it("dispatchNext sends the first pending task when idle and unheld", () => {
    const { decision } = given(queued("a"), queued("b"))
      .when({ type: "dispatchNext", busy: false })
      .thenEvents([{ type: "submissionStarted", id: "a", via: "prompt" }]);
    expect(decision.ok && decision.submission).toMatchObject({ via: "prompt", taskId: "a" });
  });

  it("dispatchNext sends nothing when held, busy, empty or already sending", () => {
    given(queued("a"), { type: "queueHeld" }).when({ type: "dispatchNext", busy: false }).thenEvents([]);
    given(queued("a")).when({ type: "dispatchNext", busy: true }).thenEvents([]);
    given().when({ type: "dispatchNext", busy: false }).thenEvents([]);
    given(queued("a"), queued("b"), { type: "submissionStarted", id: "a", via: "prompt" })
      .when({ type: "dispatchNext", busy: false })
      .thenEvents([]);
  });

  it("pi acceptance removes the task", () => {
    given(queued("a"), queued("b"), { type: "submissionStarted", id: "a", via: "prompt" })
      .when({ type: "dispatchAccepted", id: "a" })
      .thenState((s) => expect(s.items.map((i) => i.id)).toEqual(["b"]));
  });

  it("a dispatch failure retains the task, holds the queue and sets the error", () => {
    given(queued("a"), { type: "submissionStarted", id: "a", via: "prompt" })
      .when({ type: "dispatchFailed", id: "a", error: "No vision model" })
      .thenState((s) => expect(s).toMatchObject({ held: true, error: "No vision model", items: [{ id: "a", status: "pending" }] }));
  });

  it("an empty failure message still leaves a visible error", () => {
    given(queued("a"), { type: "submissionStarted", id: "a", via: "prompt" })
      .when({ type: "dispatchFailed", id: "a", error: "" })
      .thenState((s) => expect(s.error).not.toBe(""));
  });

  it("a failure reported for a task that is not being sent is rejected (found by the queue laws)", () => {
    // a is in flight; a stale failure for the pending b must not hold the queue with a still "sending".
    given(queued("a"), queued("b"), { type: "submissionStarted", id: "a", via: "prompt" })
      .when({ type: "dispatchFailed", id: "b", error: "" })
      .thenRejects("invalid");
  });

  it("acceptance or failure of an unknown task is not-found", () => {
    given().when({ type: "dispatchAccepted", id: "x" }).thenRejects("not-found");
    given().when({ type: "dispatchFailed", id: "x", error: "e" }).thenRejects("not-found");
  });
});

describe("interrupt and reload", () => {
  it("interrupt holds the remaining unsent tasks and cancels unaccepted submissions", () => {
    given(queued("a"), queued("b"), { type: "submissionStarted", id: "a", via: "prompt" })
      .when({ type: "interrupt" })
      .thenEvents([{ type: "submissionCancelled", id: "a" }, { type: "queueHeld" }])
      .thenState((s) => expect(s.held).toBe(true));
  });

  it("interrupt with no pending tasks leaves the queue unheld", () => {
    given()
      .when({ type: "interrupt" })
      .thenEvents([])
      .thenState((s) => expect(s.held).toBe(false));
  });

  it("reload retains the tasks in a held state", () => {
    given(queued("a"), queued("b"))
      .when({ type: "reload" })
      .thenState((s) => expect([s.held, s.items.map((i) => i.id)]).toEqual([true, ["a", "b"]]));
  });
});

describe("selectors", () => {
  it("the DTO exposes imageCount, never the images", () => {
    const state = given(queued("a", { images: [PNG, PNG] })).state;
    const dto = selectPromptQueue(state);
    expect(dto).toEqual({ revision: 1, held: false, error: "", items: [{ id: "a", text: "task a", imageCount: 2, status: "pending" }] });
    expect(JSON.stringify(dto)).not.toContain(PNG.data);
  });

  it("the compact form has count, held and error only", () => {
    const state = given(queued("a"), queued("b"), { type: "queueHeld" }).state;
    expect(selectCompactPromptQueue(state)).toEqual({ count: 2, held: true, error: "" });
  });
});

/**
 * The editable prompt queue decider: `decide(command, state)` returns events (plus what to submit to pi) or a
 * typed error; `evolve(state, event)` applies one event; `initialState()` is the empty queue. Pure: the clock
 * and ids arrive in commands.
 *
 * Routing of a prompt request (spec "Prompt"):
 * - a recognized extension command goes to pi directly, even while the queue is held;
 * - a held queue retains every other prompt, steer included;
 * - steer: busy (pi running, or a queue submission in flight) → pi's steering path (queued: true);
 *   idle → a normal prompt that starts a run (queued: false);
 * - followUp or none: idle with an empty queue → submitted now (queued: false); otherwise queued.
 *
 * A rejected command changes nothing; an accepted one may emit no events (hold on an empty queue, resume of
 * an unheld queue without error, dispatchNext with nothing to send), and then the revision stays.
 */
import { PROMPT_IMAGE_MIME_TYPES, type PromptImage } from "../runtime/runtime-types.ts";
import type {
  EnqueueCommand,
  PromptQueueCommand,
  PromptQueueDecision,
  PromptQueueError,
  PromptQueueErrorCode,
  PromptQueueEvent,
  PromptQueueState,
  PromptSubmission,
  QueuedTask,
} from "./prompt-queue-types.ts";

export function initialState(): PromptQueueState {
  return { revision: 0, held: false, error: "", items: [] };
}

function reject(code: PromptQueueErrorCode, message: string): PromptQueueDecision {
  return { ok: false, error: { code, message } };
}

function accept(events: PromptQueueEvent[], submission: PromptSubmission | null = null, queued = false): PromptQueueDecision {
  return { ok: true, events, submission, queued };
}

/** Empty text is valid only with at least one image. */
export function isEmptyPromptText(text: string): boolean {
  return text.trim().length === 0;
}

function imageProblem(images: readonly PromptImage[]): string | null {
  for (const image of images) {
    if (image.type !== "image" || typeof image.data !== "string" || image.data.length === 0) return "Invalid image";
    if (!(PROMPT_IMAGE_MIME_TYPES as readonly string[]).includes(image.mimeType)) {
      return `Unsupported image type: ${String(image.mimeType)}`;
    }
  }
  return null;
}

function staleRevision(state: PromptQueueState, revision: number | undefined): PromptQueueError | null {
  if (revision === undefined || !Number.isInteger(revision)) {
    return { code: "stale-revision", message: "Missing prompt queue revision" };
  }
  if (revision !== state.revision) {
    return { code: "stale-revision", message: `Stale prompt queue revision ${revision} (current ${state.revision})` };
  }
  return null;
}

function findPending(state: PromptQueueState, id: string): { task: QueuedTask; index: number } | PromptQueueError {
  const index = state.items.findIndex((item) => item.id === id);
  const task = state.items[index];
  if (!task) return { code: "not-found", message: `No queued task ${id}` };
  if (task.status !== "pending") return { code: "not-pending", message: `Task ${id} is being sent` };
  return { task, index };
}

function isError(value: object): value is PromptQueueError {
  return "code" in value;
}

/** Cancels every unaccepted submission, then holds a nonempty queue (interrupt, reload, hold). */
function holdEvents(state: PromptQueueState): PromptQueueEvent[] {
  if (state.items.length === 0) return [];
  const events: PromptQueueEvent[] = state.items
    .filter((item) => item.status === "sending")
    .map((item) => ({ type: "submissionCancelled", id: item.id }));
  if (!state.held) events.push({ type: "queueHeld" });
  return events;
}

function submissionOf(
  task: Pick<QueuedTask, "text" | "images" | "kind" | "handoffId">,
  via: PromptSubmission["via"],
  taskId: string | null,
): PromptSubmission {
  return { via, taskId, text: task.text, images: task.images, kind: task.kind, handoffId: task.handoffId };
}

function decideEnqueue(command: EnqueueCommand, state: PromptQueueState): PromptQueueDecision {
  const problem = imageProblem(command.images);
  if (problem) return reject("invalid", problem);
  if (isEmptyPromptText(command.text) && command.images.length === 0) {
    return reject("invalid", "Prompt text is empty and has no images");
  }
  const direct = (via: PromptSubmission["via"], queued: boolean): PromptQueueDecision =>
    accept([], submissionOf(command, via, null), queued);
  if (command.extensionCommand) return direct("prompt", false);

  const busy = command.busy || state.items.some((item) => item.status === "sending");
  if (!state.held) {
    if (command.streamingBehavior === "steer") return busy ? direct("steer", true) : direct("prompt", false);
    if (!busy && state.items.length === 0) return direct("prompt", false);
  }
  if (state.items.some((item) => item.id === command.id)) return reject("invalid", `Duplicate task id ${command.id}`);
  const task: QueuedTask = {
    id: command.id,
    text: command.text,
    images: command.images,
    kind: command.kind,
    handoffId: command.handoffId,
    queuedAt: command.now,
    status: "pending",
  };
  return accept([{ type: "taskQueued", task }], null, true);
}

export function decide(command: PromptQueueCommand, state: PromptQueueState): PromptQueueDecision {
  switch (command.type) {
    case "enqueue":
      return decideEnqueue(command, state);

    case "hold": {
      const stale = staleRevision(state, command.revision);
      if (stale) return { ok: false, error: stale };
      return accept(holdEvents(state));
    }

    case "resume": {
      const stale = staleRevision(state, command.revision);
      if (stale) return { ok: false, error: stale };
      if (command.stopping) return reject("blocked", "Stop is still in progress");
      if (!state.held && state.error === "") return accept([]);
      return accept([{ type: "queueResumed" }]);
    }

    case "edit": {
      const stale = staleRevision(state, command.revision);
      if (stale) return { ok: false, error: stale };
      const found = findPending(state, command.id);
      if (isError(found)) return { ok: false, error: found };
      if (isEmptyPromptText(command.text) && found.task.images.length === 0) {
        return reject("invalid", "Replacement text is empty and the task has no images");
      }
      return accept([...holdEvents(state), { type: "taskEdited", id: command.id, text: command.text }]);
    }

    case "remove": {
      const stale = staleRevision(state, command.revision);
      if (stale) return { ok: false, error: stale };
      const found = findPending(state, command.id);
      if (isError(found)) return { ok: false, error: found };
      return accept([{ type: "taskRemoved", id: command.id }]);
    }

    case "move": {
      const stale = staleRevision(state, command.revision);
      if (stale) return { ok: false, error: stale };
      const found = findPending(state, command.id);
      if (isError(found)) return { ok: false, error: found };
      const neighbour = state.items[found.index + (command.direction === "up" ? -1 : 1)];
      if (!neighbour) return reject("invalid", `Task ${command.id} cannot move ${command.direction}`);
      if (neighbour.status !== "pending") return reject("invalid", `Task ${command.id} cannot pass a task being sent`);
      return accept([{ type: "taskMoved", id: command.id, direction: command.direction }]);
    }

    case "steer": {
      const stale = staleRevision(state, command.revision);
      if (stale) return { ok: false, error: stale };
      if (state.held) return reject("blocked", "Resume the queue before steering");
      const found = findPending(state, command.id);
      if (isError(found)) return { ok: false, error: found };
      // One submission at a time, as dispatchNext: a second one in flight would stay "sending" in a queue that
      // the first one's failure holds (fast-check found it: held ⇒ every task pending).
      if (state.items.some((item) => item.status === "sending")) return reject("blocked", "Wait until the task being sent reaches pi");
      return accept([{ type: "submissionStarted", id: command.id, via: "steer" }], submissionOf(found.task, "steer", command.id));
    }

    case "dispatchNext": {
      if (state.held || command.busy || state.items.some((item) => item.status === "sending")) return accept([]);
      const next = state.items.find((item) => item.status === "pending");
      if (!next) return accept([]);
      return accept([{ type: "submissionStarted", id: next.id, via: "prompt" }], submissionOf(next, "prompt", next.id));
    }

    case "dispatchAccepted": {
      // pi has the task whatever its status (an accept can race a cancel): it leaves the queue either way.
      if (!state.items.some((item) => item.id === command.id)) return reject("not-found", `No queued task ${command.id}`);
      return accept([{ type: "submissionAccepted", id: command.id }]);
    }

    case "dispatchFailed": {
      const task = state.items.find((item) => item.id === command.id);
      if (task === undefined) return reject("not-found", `No queued task ${command.id}`);
      // Only the task being sent can fail to send; a failure reported for a pending task is stale, and holding
      // the queue on it would leave the task really in flight marked "sending" in a held queue.
      if (task.status !== "sending") return reject("invalid", `Task ${command.id} is not being sent`);
      const error = command.error.trim() === "" ? "Dispatch failed" : command.error;
      return accept([{ type: "submissionFailed", id: command.id, error }]);
    }

    case "interrupt":
    case "reload":
      return accept(holdEvents(state));

    default:
      return reject("invalid", "Unknown prompt queue command");
  }
}

function withItems(state: PromptQueueState, items: QueuedTask[]): PromptQueueState {
  // Removing the last task clears the hold and the error: an empty queue is unheld and clean.
  if (items.length === 0) return { revision: state.revision + 1, held: false, error: "", items };
  return { ...state, revision: state.revision + 1, items };
}

function updateItem(state: PromptQueueState, id: string, change: (task: QueuedTask) => QueuedTask): PromptQueueState {
  if (!state.items.some((item) => item.id === id)) return state;
  return withItems(
    state,
    state.items.map((item) => (item.id === id ? change(item) : item)),
  );
}

/** Applies one event; an event that names a missing task leaves the state unchanged. Never throws. */
export function evolve(state: PromptQueueState, event: PromptQueueEvent): PromptQueueState {
  switch (event.type) {
    case "taskQueued":
      if (state.items.some((item) => item.id === event.task.id)) return state;
      return withItems(state, [...state.items, event.task]);
    case "queueHeld":
      return { ...state, revision: state.revision + 1, held: state.items.length > 0 };
    case "queueResumed":
      return { ...state, revision: state.revision + 1, held: false, error: "" };
    case "taskEdited":
      return updateItem(state, event.id, (task) => ({ ...task, text: event.text }));
    case "taskRemoved":
    case "submissionAccepted":
      if (!state.items.some((item) => item.id === event.id)) return state;
      return withItems(
        state,
        state.items.filter((item) => item.id !== event.id),
      );
    case "taskMoved": {
      const index = state.items.findIndex((item) => item.id === event.id);
      const other = index + (event.direction === "up" ? -1 : 1);
      const a = state.items[index];
      const b = state.items[other];
      if (!a || !b) return state;
      const items = [...state.items];
      items[index] = b;
      items[other] = a;
      return withItems(state, items);
    }
    case "submissionStarted":
      return updateItem(state, event.id, (task) => ({ ...task, status: "sending" }));
    case "submissionCancelled":
      return updateItem(state, event.id, (task) => ({ ...task, status: "pending" }));
    case "submissionFailed": {
      const next = updateItem(state, event.id, (task) => ({ ...task, status: "pending" }));
      return next === state ? state : { ...next, held: true, error: event.error };
    }
    default:
      return state;
  }
}

/** Applies events in order. */
export function evolveAll(state: PromptQueueState, events: readonly PromptQueueEvent[]): PromptQueueState {
  return events.reduce(evolve, state);
}

/**
 * Decides and applies in one step: the new state (the same object when rejected or when nothing changed)
 * and the decision.
 */
export function handle(state: PromptQueueState, command: PromptQueueCommand): { state: PromptQueueState; decision: PromptQueueDecision } {
  const decision = decide(command, state);
  return { state: decision.ok ? evolveAll(state, decision.events) : state, decision };
}

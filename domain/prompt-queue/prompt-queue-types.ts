/**
 * The editable prompt queue ("Up next", spec/api-reference.md "Prompt" and "Editable prompt queue") as a
 * decider: commands in, events or a typed error out (`prompt-queue.decider.ts`).
 *
 * State is plain JSON and backend-side: it holds the full images of each task. The browser sees the
 * `PromptQueue` DTO (`prompt-queue.selectors.ts`), which exposes `imageCount` only.
 *
 * Invariants the decider keeps (and the property test checks): item ids are unique; an empty queue is
 * unheld with no error; a held queue has no `sending` item; `revision` goes up by one per event.
 */
import type { PromptImage, PromptKind, PromptQueueItemStatus, StreamingBehavior } from "../runtime/runtime-types.ts";

export interface QueuedTask {
  id: string;
  text: string;
  images: PromptImage[];
  kind: PromptKind;
  handoffId: string | null;
  /** When the task was queued (ms since the Unix epoch, from the command's `now`). */
  queuedAt: number;
  /** `sending`: submitted to pi and not yet accepted; `pending`: editable. */
  status: PromptQueueItemStatus;
}

export interface PromptQueueState {
  revision: number;
  held: boolean;
  /** The last dispatch failure, "" when none; cleared by resume and by removing the last task. */
  error: string;
  items: QueuedTask[];
}

export type MoveDirection = "up" | "down";

/** Which pi path a submission takes: a normal prompt (starts a run) or pi's steering path. */
export type SubmissionVia = "prompt" | "steer";

// ---------------------------------------------------------------------------------------------------------
// Commands. API mutations carry the client's `revision` (missing → rejected as stale); host commands do not.
// ---------------------------------------------------------------------------------------------------------

/** A prompt request (POST .../prompt): decides between submitting now and queueing. */
export interface EnqueueCommand {
  type: "enqueue";
  /** Generated task id, used if the prompt is queued. */
  id: string;
  now: number;
  text: string;
  images: PromptImage[];
  streamingBehavior: StreamingBehavior | null;
  kind: PromptKind;
  handoffId: string | null;
  /** pi is streaming, compacting or setting up a prompt (a queue submission counts on its own). */
  busy: boolean;
  /** The text is a recognized extension command: it goes to pi directly, never into the queue. */
  extensionCommand: boolean;
}

export interface HoldCommand {
  type: "hold";
  revision: number | undefined;
}

export interface ResumeCommand {
  type: "resume";
  revision: number | undefined;
  /** An interrupt (Stop) is still in progress: resume is rejected. */
  stopping: boolean;
}

export interface EditCommand {
  type: "edit";
  revision: number | undefined;
  id: string;
  text: string;
}

export interface RemoveCommand {
  type: "remove";
  revision: number | undefined;
  id: string;
}

export interface MoveCommand {
  type: "move";
  revision: number | undefined;
  id: string;
  direction: MoveDirection;
}

export interface SteerCommand {
  type: "steer";
  revision: number | undefined;
  id: string;
}

/** The host asks what to submit next (after pi went idle, after resume, after a task was queued). */
export interface DispatchNextCommand {
  type: "dispatchNext";
  busy: boolean;
}

/** pi accepted the submission of a task: it leaves the editable queue. */
export interface DispatchAcceptedCommand {
  type: "dispatchAccepted";
  id: string;
}

/** Submitting a task failed (for example image preparation): the task stays, the queue holds, error is set. */
export interface DispatchFailedCommand {
  type: "dispatchFailed";
  id: string;
  error: string;
}

/** Stop: holds the remaining unsent tasks and cancels unaccepted submissions. */
export interface InterruptCommand {
  type: "interrupt";
}

/** Runtime reload: unsent tasks stay, held. */
export interface ReloadCommand {
  type: "reload";
}

export type PromptQueueMutation = HoldCommand | ResumeCommand | EditCommand | RemoveCommand | MoveCommand | SteerCommand;

export type PromptQueueCommand =
  | EnqueueCommand
  | PromptQueueMutation
  | DispatchNextCommand
  | DispatchAcceptedCommand
  | DispatchFailedCommand
  | InterruptCommand
  | ReloadCommand;

// ---------------------------------------------------------------------------------------------------------
// Events: each one changes the state and raises `revision` by one.
// ---------------------------------------------------------------------------------------------------------

export type PromptQueueEvent =
  | { type: "taskQueued"; task: QueuedTask }
  | { type: "queueHeld" }
  /** Releases the hold and clears the error. */
  | { type: "queueResumed" }
  | { type: "taskEdited"; id: string; text: string }
  | { type: "taskRemoved"; id: string }
  | { type: "taskMoved"; id: string; direction: MoveDirection }
  /** The task was handed to pi (status `sending`). */
  | { type: "submissionStarted"; id: string; via: SubmissionVia }
  /** An unaccepted submission was cancelled (status back to `pending`); the host aborts the prompt setup. */
  | { type: "submissionCancelled"; id: string }
  /** pi accepted the task: it leaves the queue. */
  | { type: "submissionAccepted"; id: string }
  /** The submission failed: the task is `pending` again, the queue holds and shows the error. */
  | { type: "submissionFailed"; id: string; error: string };

export type PromptQueueEventType = PromptQueueEvent["type"];

// ---------------------------------------------------------------------------------------------------------
// Decisions and errors
// ---------------------------------------------------------------------------------------------------------

/** `stale-revision` is a conflict (409), every other code invalid_request (400) (`promptQueueErrorCode`). */
export type PromptQueueErrorCode = "stale-revision" | "invalid" | "not-found" | "not-pending" | "blocked";

export interface PromptQueueError {
  code: PromptQueueErrorCode;
  message: string;
}

/** What the host must hand to pi. `taskId` is null for a prompt that bypasses the queue. */
export interface PromptSubmission {
  via: SubmissionVia;
  taskId: string | null;
  text: string;
  images: PromptImage[];
  kind: PromptKind;
  handoffId: string | null;
}

export type PromptQueueDecision =
  | {
      ok: true;
      /** Apply with `evolve` in order; empty when the command changes nothing (revision stays). */
      events: PromptQueueEvent[];
      /** Something to submit to pi now, or null. */
      submission: PromptSubmission | null;
      /**
       * The prompt response's `queued`: true when an enqueue went into the editable queue or to pi's native
       * steering queue (steer while busy); false otherwise and for every other command.
       */
      queued: boolean;
    }
  | { ok: false; error: PromptQueueError };

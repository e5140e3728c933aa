/**
 * The prompt dispatcher of one runtime: owns the editable prompt queue (the decider in domain/prompt-queue),
 * the submission phase (prompt-dispatcher.rules.ts), Stop in progress, the `!` shell command in flight and the
 * handoff id of the run it started. It routes prompt requests, hands submissions to pi, and sends the next
 * queued task once pi is idle.
 *
 * Dispatch waits for events, never polls: it is checked once per turn after anything that may have made pi
 * idle (a run's end, a worker snapshot, a submission or change that finished, a queue change). pi emits
 * `agent_end` before its run is really over, so a dispatch first asks the worker for a fresh snapshot; when
 * pi is still running, the worker's snapshot at the run's real end (`agent_settled`) brings dispatch back.
 */
import { randomUUID } from "node:crypto";
import { handle as handleQueue, initialState as initialQueue } from "../../domain/prompt-queue/prompt-queue.decider.ts";
import { promptQueueErrorCode } from "../../domain/prompt-queue/prompt-queue-request.ts";
import type {
  PromptQueueCommand,
  PromptQueueDecision,
  PromptQueueState,
  PromptSubmission,
} from "../../domain/prompt-queue/prompt-queue-types.ts";
import type { PromptKind, StreamingBehavior } from "../../domain/runtime/runtime-types.ts";
import type { RuntimeSnapshot } from "../runtime-protocol/runtime-protocol.ts";
import type { HostClock } from "./host-clock.ts";
import type { PromptBody } from "./runtime-action-bodies.ts";
import { asHostError, errorText, RuntimeHostError } from "./runtime-host-error.ts";
import {
  canDispatch,
  type ConfigChange,
  evolvePhase,
  hasTaskInFlight,
  IDLE,
  idleBlocker,
  isBusy,
  lockHolder,
  type PhaseEvent,
  type PiActivity,
  type SubmissionPhase,
} from "./prompt-dispatcher.rules.ts";
import type { WorkerCall } from "./runtime-supervision.ts";

export type Submission = Pick<PromptSubmission, "via" | "taskId" | "text" | "images" | "handoffId">;

type Accepted = Extract<PromptQueueDecision, { ok: true }>;

export interface PromptDispatcherDeps {
  clock: HostClock;
  /** Runs `fn` once the current event has been handled (dispatch checks are coalesced to one per turn). */
  nextTurn: (fn: () => void) => void;
  call: WorkerCall;
  /** Folds a worker snapshot into the runtime's projection (which calls `dispatchIfIdle`). */
  applySnapshot: (snapshot: RuntimeSnapshot) => void;
  pi: () => PiActivity;
  /** The runtime is ready with its worker started. */
  runtimeReady: () => boolean;
  queueChanged: (queue: PromptQueueState) => void;
  /** A submission went to pi (the watchdog's progress deadline restarts). */
  submitted: () => void;
  /**
   * Runs before a submission with images reaches pi (the vision preparation, runtime-handle.ts
   * `ImagePreparer`); its failure fails the submission like pi's would (a direct prompt 500, a queued task held).
   */
  prepareImages?: (images: Submission["images"]) => Promise<void>;
}

interface DispatcherState {
  queue: PromptQueueState;
  phase: SubmissionPhase;
  /** An interrupt (Stop) is in progress: it can come in any phase, so it is not one. */
  stopping: boolean;
  /** A `!` shell command is running (one at a time; pi runs it beside a run). */
  shellCommand: boolean;
  /** The handoff id of the prompt whose run is going on (sent with its runtime events), until `agent_end`. */
  handoffId: string | null;
  /** A dispatch check is scheduled for the next turn. */
  checkScheduled: boolean;
}

export interface PromptDispatcher {
  queue(): PromptQueueState;
  handoffId(): string | null;
  stopping(): boolean;
  shellCommandRunning(): boolean;
  /** pi is running or compacting, or a submission or change is between request and pi's confirmed state. */
  busy(): boolean;
  /** Throws 500 when pi or a submission, Stop or change keeps the runtime from `action`. */
  requireIdle(action: string): void;
  /** Throws 500 while a queued task is being handed to pi. */
  requireNoTaskInFlight(action: string): void;
  /**
   * A prompt request: submitted now or queued as the queue decider routes it (`queued` as the prompt
   * response says it). Answers 500 under the submission lock; a direct submission's failure is thrown as 500.
   */
  prompt(request: PromptBody, context: { kind: PromptKind; extensionCommand: boolean }): Promise<boolean>;
  /** A queue mutation (or a host command such as interrupt/reload holding it); throws the decider's error. */
  mutate(command: PromptQueueCommand): Promise<void>;
  /** Holds the queue and cancels unaccepted submissions (interrupt, reload, a replaced worker). */
  hold(command: { type: "reload" } | { type: "interrupt" }): void;
  /**
   * The image preparation a submission of these images gets (the vision model check, the attachments), run ahead:
   * edit-prompt checks before it moves the tree, so a refusal leaves the session where it was.
   */
  prepareImages(images: Submission["images"]): Promise<void>;
  /** Hands a submission to pi; a queued task is marked accepted or failed, a direct prompt's failure thrown. */
  submit(submission: Submission, streamingBehavior: StreamingBehavior | null): Promise<void>;
  /** Runs `run` counted as a prompt being set up (busy for dispatch, eviction and the other actions). */
  whileSettingUp<T>(run: () => Promise<T>): Promise<T>;
  /** Runs a model or Ultrafast change under the submission lock, then lets queue dispatch resume. */
  underSubmissionLock(change: ConfigChange, run: () => Promise<void>): Promise<void>;
  whileStopping(run: () => Promise<void>): Promise<void>;
  /** Runs a `!` shell command; a second one while it runs answers 500. */
  whileShellCommand<T>(run: () => Promise<T>): Promise<T>;
  /** pi's run ended (`agent_end`): its handoff is over; the next task may follow. */
  runEnded(): void;
  /** Checks for the next task in the next turn. */
  scheduleDispatch(): void;
  /** Checks for the next task in the next turn when nothing is busy (after a snapshot or a submission). */
  dispatchIfIdle(): void;
}

export function createPromptDispatcher(deps: PromptDispatcherDeps): PromptDispatcher {
  let state: DispatcherState = {
    queue: initialQueue(),
    phase: IDLE,
    stopping: false,
    shellCommand: false,
    handoffId: null,
    checkScheduled: false,
  };

  const busy = (): boolean => isBusy(deps.pi(), state.phase);

  const advance = (event: PhaseEvent): void => {
    state = { ...state, phase: evolvePhase(state.phase, event) };
  };

  /** Runs a queue command through the decider, applies its events, reports the new queue. */
  const run = (command: PromptQueueCommand): PromptQueueDecision => {
    const { state: queue, decision } = handleQueue(state.queue, command);
    if (queue !== state.queue) {
      state = { ...state, queue };
      deps.queueChanged(queue);
    }
    return decision;
  };

  const accepted = (decision: PromptQueueDecision): Accepted => {
    if (!decision.ok) throw new RuntimeHostError(promptQueueErrorCode(decision.error.code), decision.error.message);
    return decision;
  };

  const whileSettingUp = async <T>(work: () => Promise<T>): Promise<T> => {
    advance({ type: "submissionStarted" });
    try {
      return await work();
    } finally {
      advance({ type: "submissionSettled" });
    }
  };

  const refresh = async (): Promise<void> => {
    deps.applySnapshot(await deps.call("snapshot", {}));
  };

  const scheduleDispatch = (): void => {
    if (state.checkScheduled) return;
    state = { ...state, checkScheduled: true };
    deps.nextTurn(() => {
      state = { ...state, checkScheduled: false };
      void dispatchNext().catch(() => {});
    });
  };

  const dispatchIfIdle = (): void => {
    if (!busy()) scheduleDispatch();
  };

  const dispatchable = (): boolean =>
    canDispatch({ runtimeReady: deps.runtimeReady(), pi: deps.pi(), phase: state.phase, stopping: state.stopping, queue: state.queue });

  const submit = async (submission: Submission, streamingBehavior: StreamingBehavior | null): Promise<void> => {
    const images = submission.images.length > 0 ? { images: submission.images } : {};
    deps.submitted();
    // The image preparation runs before pi gets the submission; a prompt counts as being set up meanwhile.
    const prepare = async (): Promise<void> => {
      if (submission.images.length > 0) await deps.prepareImages?.(submission.images);
    };
    try {
      if (submission.via === "steer") {
        await prepare();
        deps.applySnapshot(await deps.call("steer", { text: submission.text, ...images }));
      } else {
        await whileSettingUp(async () => {
          await prepare();
          await deps.call("prompt", { text: submission.text, ...images, ...(streamingBehavior ? { streamingBehavior } : {}) });
          state = { ...state, handoffId: submission.handoffId };
          // pi sets isStreaming right after preflight; this snapshot is ordered after it.
          await refresh();
        });
      }
    } catch (error) {
      if (submission.taskId === null) throw asHostError(error, "Prompt failed");
      run({ type: "dispatchFailed", id: submission.taskId, error: errorText(error) });
      return;
    }
    if (submission.taskId !== null) run({ type: "dispatchAccepted", id: submission.taskId });
    dispatchIfIdle();
  };

  const dispatchNext = async (): Promise<void> => {
    if (!dispatchable()) return;
    // The fresh snapshot confirms pi is idle; folded, it is the newest state unless a later one arrived first.
    const snapshot = await whileSettingUp(() => deps.call("snapshot", {}));
    deps.applySnapshot(snapshot);
    if (!dispatchable()) return;
    const decision = run({ type: "dispatchNext", busy: busy() });
    if (decision.ok && decision.submission) await submit(decision.submission, null).catch(() => {});
  };

  return {
    queue: () => state.queue,
    handoffId: () => state.handoffId,
    stopping: () => state.stopping,
    shellCommandRunning: () => state.shellCommand,
    busy,
    requireIdle(action) {
      const blocker = idleBlocker(action, deps.pi(), state.phase, state.stopping);
      if (blocker !== null) throw new RuntimeHostError("action_blocked", blocker);
    },
    async prepareImages(images) {
      if (images.length > 0) await deps.prepareImages?.(images);
    },
    requireNoTaskInFlight(action) {
      if (hasTaskInFlight(state.queue)) throw new RuntimeHostError("action_blocked", `Cannot ${action} while a prompt is being set up`);
    },
    async prompt(request, context) {
      const change = lockHolder(state.phase);
      if (change !== null) throw new RuntimeHostError("action_blocked", `Cannot send a prompt during the ${change}`);
      const decision = accepted(
        run({
          type: "enqueue",
          id: randomUUID(),
          now: deps.clock.now(),
          text: request.text,
          images: request.images,
          streamingBehavior: request.streamingBehavior,
          kind: context.kind,
          handoffId: request.handoffId,
          busy: busy(),
          extensionCommand: context.extensionCommand,
        }),
      );
      if (decision.submission) await submit(decision.submission, request.streamingBehavior);
      else scheduleDispatch();
      return decision.queued;
    },
    async mutate(command) {
      const decision = accepted(run(command));
      if (decision.submission) await submit(decision.submission, null);
      scheduleDispatch();
    },
    hold(command) {
      run(command);
    },
    submit,
    whileSettingUp,
    async underSubmissionLock(change, work) {
      advance({ type: "changeStarted", change });
      try {
        await work();
      } finally {
        advance({ type: "changeEnded" });
      }
      scheduleDispatch();
    },
    async whileStopping(work) {
      state = { ...state, stopping: true };
      try {
        await work();
      } finally {
        state = { ...state, stopping: false };
      }
    },
    async whileShellCommand(work) {
      if (state.shellCommand) throw new RuntimeHostError("action_blocked", "A shell command is already running");
      state = { ...state, shellCommand: true };
      try {
        return await work();
      } finally {
        state = { ...state, shellCommand: false };
      }
    },
    runEnded() {
      state = { ...state, handoffId: null };
      scheduleDispatch();
    },
    scheduleDispatch,
    dispatchIfIdle,
  };
}

/**
 * The prompt dispatcher's decisions as pure functions: the submission phase (one discriminated union and
 * `evolvePhase`), whether the runtime is busy, which action a phase blocks, and whether the next queued task
 * may be dispatched now. prompt-dispatcher.ts holds the state and does the I/O.
 */
import type { PromptQueueState } from "../../domain/prompt-queue/prompt-queue-types.ts";

/** What holds the per-runtime submission lock (spec "Prompt"): prompts answer 500 and dispatch waits meanwhile. */
export type ConfigChange = "model change" | "Ultrafast change" | "tree navigation";

/**
 * Where the runtime stands between a request and pi's own state.
 * - `submitting`: prompts handed to pi whose run pi has not confirmed yet (pi flips `isStreaming` only after
 *   its preflight). The dispatcher's check with a fresh snapshot before it sends a queued task is the first
 *   step of such a submission and counts as one. Several can be in flight (an extension command sent while
 *   an edit is being set up, for instance).
 * - `changing`: a model or Ultrafast change holds the submission lock. It starts only from `idle`.
 */
export type SubmissionPhase =
  | { readonly phase: "idle" }
  | { readonly phase: "submitting"; readonly inFlight: number }
  | { readonly phase: "changing"; readonly change: ConfigChange };

export type PhaseEvent =
  | { readonly type: "submissionStarted" }
  | { readonly type: "submissionSettled" }
  | { readonly type: "changeStarted"; readonly change: ConfigChange }
  | { readonly type: "changeEnded" };

export const IDLE: SubmissionPhase = { phase: "idle" };

/**
 * Applies one event. Events a phase does not allow leave it unchanged: a submission cannot take the lock
 * from a change, and a change cannot start over submissions (the actions check `idleBlocker` first).
 */
export function evolvePhase(phase: SubmissionPhase, event: PhaseEvent): SubmissionPhase {
  switch (event.type) {
    case "submissionStarted":
      if (phase.phase === "changing") return phase;
      return { phase: "submitting", inFlight: phase.phase === "submitting" ? phase.inFlight + 1 : 1 };
    case "submissionSettled":
      if (phase.phase !== "submitting") return phase;
      return phase.inFlight > 1 ? { phase: "submitting", inFlight: phase.inFlight - 1 } : IDLE;
    case "changeStarted":
      return phase.phase === "idle" ? { phase: "changing", change: event.change } : phase;
    case "changeEnded":
      return phase.phase === "changing" ? IDLE : phase;
    default:
      return phase;
  }
}

/** pi's own run state, as the last worker snapshot and events reported it. */
export interface PiActivity {
  readonly isStreaming: boolean;
  readonly isCompacting: boolean;
}

/** The change holding the submission lock, or null. */
export function lockHolder(phase: SubmissionPhase): ConfigChange | null {
  return phase.phase === "changing" ? phase.change : null;
}

/** pi is running or compacting, or a submission or change is between request and pi's confirmed state. */
export function isBusy(pi: PiActivity, phase: SubmissionPhase): boolean {
  return pi.isStreaming || pi.isCompacting || phase.phase !== "idle";
}

/**
 * Why `action` (a phrase such as "compact") cannot run now, or null when the runtime is idle enough for it:
 * pi streaming, pi compacting, a prompt being set up, Stop in progress, or a change holding the lock.
 */
export function idleBlocker(action: string, pi: PiActivity, phase: SubmissionPhase, stopping: boolean): string | null {
  if (pi.isStreaming) return `Cannot ${action} while the session is streaming`;
  if (pi.isCompacting) return `Cannot ${action} while the session is compacting`;
  if (phase.phase === "submitting") return `Cannot ${action} while a prompt is being set up`;
  if (stopping) return `Cannot ${action} while Stop is in progress`;
  if (phase.phase === "changing") return `Cannot ${action} during the ${phase.change}`;
  return null;
}

/** A queued task was handed to pi and not yet accepted. */
export function hasTaskInFlight(queue: PromptQueueState): boolean {
  return queue.items.some((item) => item.status === "sending");
}

export interface DispatchInputs {
  /** The runtime is ready with its worker started (not starting, recovering, paused or closed). */
  readonly runtimeReady: boolean;
  readonly pi: PiActivity;
  readonly phase: SubmissionPhase;
  readonly stopping: boolean;
  readonly queue: PromptQueueState;
}

/** The next pending task may go to pi now: nothing runs, nothing is being sent, the queue is not held. */
export function canDispatch(inputs: DispatchInputs): boolean {
  const { queue } = inputs;
  return (
    inputs.runtimeReady &&
    !inputs.stopping &&
    !isBusy(inputs.pi, inputs.phase) &&
    !queue.held &&
    !hasTaskInFlight(queue) &&
    queue.items.some((item) => item.status === "pending")
  );
}

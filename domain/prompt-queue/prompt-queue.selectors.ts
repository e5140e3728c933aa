/**
 * Read views of the prompt queue: the spec's `PromptQueue` DTO (images reduced to `imageCount`) and the
 * compact `{ count, held, error }` form that WS /api/pi/events sends for non-selected sessions.
 */
import type { CompactPromptQueue, PromptQueue } from "../runtime/runtime-types.ts";
import type { PromptQueueState } from "./prompt-queue-types.ts";

export function selectPromptQueue(state: PromptQueueState): PromptQueue {
  return {
    revision: state.revision,
    held: state.held,
    error: state.error,
    items: state.items.map((item) => ({ id: item.id, text: item.text, imageCount: item.images.length, status: item.status })),
  };
}

/** The compact form of a prompt queue DTO. */
export function compactPromptQueue(queue: PromptQueue): CompactPromptQueue {
  return { count: queue.items.length, held: queue.held, error: queue.error };
}

export function selectCompactPromptQueue(state: PromptQueueState): CompactPromptQueue {
  return { count: state.items.length, held: state.held, error: state.error };
}

/** True when pi is idle enough for `dispatchNext` to have something to send. */
export function hasDispatchableTask(state: PromptQueueState): boolean {
  return !state.held && !state.items.some((item) => item.status === "sending") && state.items.some((item) => item.status === "pending");
}

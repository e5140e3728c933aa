/**
 * The body of POST /api/pi/sessions/:id/queue as a decider command, and the error code of each queue error.
 *
 * The body's shape (a known action, an integer revision, string fields) is checked by its schema
 * (domain/contract/http-runtime-actions.ts QueueBody: an unknown action 400, then a missing or non-integer
 * revision 409 as a stale one). What depends on the action is checked here: the id every action but hold and
 * resume needs, edit's text, move's direction. Comparing the revision with the queue's is the decider's job,
 * so a current-looking but stale revision also becomes 409 there.
 */
import type { ErrorCode } from "../contract/error-codes.ts";
import type { MoveDirection, PromptQueueError, PromptQueueErrorCode, PromptQueueMutation } from "./prompt-queue-types.ts";

export const PROMPT_QUEUE_ACTIONS = ["hold", "resume", "edit", "remove", "move", "steer"] as const;
export type PromptQueueAction = (typeof PROMPT_QUEUE_ACTIONS)[number];

/** The queue request as its schema admits it. */
export interface QueueRequestBody {
  action: PromptQueueAction;
  revision: number;
  id?: string;
  text?: string;
  direction?: string;
}

const CODE: Record<PromptQueueErrorCode, ErrorCode> = {
  "stale-revision": "conflict",
  invalid: "invalid_request",
  "not-found": "invalid_request",
  "not-pending": "invalid_request",
  blocked: "invalid_request",
};

export function promptQueueErrorCode(code: PromptQueueErrorCode): ErrorCode {
  return CODE[code];
}

export interface QueueRequestContext {
  /** An interrupt is still in progress (resume is rejected). */
  stopping: boolean;
}

function invalid(message: string): { ok: false; error: PromptQueueError } {
  return { ok: false, error: { code: "invalid", message } };
}

export function queueCommand(
  body: QueueRequestBody,
  context: QueueRequestContext,
): { ok: true; command: PromptQueueMutation } | { ok: false; error: PromptQueueError } {
  const { action, revision, id } = body;
  const needsId = action !== "hold" && action !== "resume";
  if (needsId && (id === undefined || id.length === 0)) return invalid("id must be a non-empty string");
  const taskId = id ?? "";
  switch (action) {
    case "hold":
      return { ok: true, command: { type: "hold", revision } };
    case "resume":
      return { ok: true, command: { type: "resume", revision, stopping: context.stopping } };
    case "edit":
      if (body.text === undefined) return invalid("text must be a string");
      return { ok: true, command: { type: "edit", revision, id: taskId, text: body.text } };
    case "remove":
      return { ok: true, command: { type: "remove", revision, id: taskId } };
    case "move": {
      const direction = body.direction;
      if (direction !== "up" && direction !== "down") return invalid("direction must be up or down");
      return { ok: true, command: { type: "move", revision, id: taskId, direction: direction satisfies MoveDirection } };
    }
    case "steer":
      return { ok: true, command: { type: "steer", revision, id: taskId } };
  }
}

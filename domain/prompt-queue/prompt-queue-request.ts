/**
 * The body of POST /api/pi/sessions/:id/queue as a decider command, and the HTTP status of each error code.
 *
 * Order of checks: an unknown or missing action is invalid (400); then a missing or non-integer revision is
 * stale (409); then the fields the action needs (400). Comparing the revision with the queue's is the
 * decider's job, so a current-looking but stale revision also becomes 409 there.
 */
import type { MoveDirection, PromptQueueError, PromptQueueErrorCode, PromptQueueMutation } from "./prompt-queue-types.ts";

export const PROMPT_QUEUE_ACTIONS = ["hold", "resume", "edit", "remove", "move", "steer"] as const;
export type PromptQueueAction = (typeof PROMPT_QUEUE_ACTIONS)[number];

const STATUS: Record<PromptQueueErrorCode, 400 | 409> = {
  "stale-revision": 409,
  invalid: 400,
  "not-found": 400,
  "not-pending": 400,
  blocked: 400,
};

export function promptQueueErrorStatus(code: PromptQueueErrorCode): 400 | 409 {
  return STATUS[code];
}

export interface QueueRequestContext {
  /** An interrupt is still in progress (resume is rejected). */
  stopping: boolean;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function invalid(message: string): { ok: false; error: PromptQueueError } {
  return { ok: false, error: { code: "invalid", message } };
}

export function parseQueueRequest(
  body: unknown,
  context: QueueRequestContext,
): { ok: true; command: PromptQueueMutation } | { ok: false; error: PromptQueueError } {
  if (!isRecord(body)) return invalid("Request body must be an object");
  const action = body["action"];
  if (typeof action !== "string" || !(PROMPT_QUEUE_ACTIONS as readonly string[]).includes(action)) {
    return invalid("action must be one of hold, resume, edit, remove, move, steer");
  }
  const rawRevision = body["revision"];
  if (typeof rawRevision !== "number" || !Number.isInteger(rawRevision)) {
    return { ok: false, error: { code: "stale-revision", message: "Missing prompt queue revision" } };
  }
  const revision = rawRevision;
  const id = body["id"];
  const needsId = action !== "hold" && action !== "resume";
  if (needsId && (typeof id !== "string" || id.length === 0)) return invalid("id must be a non-empty string");
  const taskId = typeof id === "string" ? id : "";
  switch (action as PromptQueueAction) {
    case "hold":
      return { ok: true, command: { type: "hold", revision } };
    case "resume":
      return { ok: true, command: { type: "resume", revision, stopping: context.stopping } };
    case "edit": {
      const text = body["text"];
      if (typeof text !== "string") return invalid("text must be a string");
      return { ok: true, command: { type: "edit", revision, id: taskId, text } };
    }
    case "remove":
      return { ok: true, command: { type: "remove", revision, id: taskId } };
    case "move": {
      const direction = body["direction"];
      if (direction !== "up" && direction !== "down") return invalid("direction must be up or down");
      return { ok: true, command: { type: "move", revision, id: taskId, direction: direction as MoveDirection } };
    }
    case "steer":
      return { ok: true, command: { type: "steer", revision, id: taskId } };
  }
}

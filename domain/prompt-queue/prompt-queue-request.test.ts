import { describe, expect, it } from "vitest";
import { contractChecker } from "../contract/contract-check.ts";
import { ERROR_STATUS } from "../contract/error-codes.ts";
import { QueueBody } from "../contract/http-runtime-actions.ts";
import { promptQueueErrorCode, queueCommand, type QueueRequestBody } from "./prompt-queue-request.ts";

const ctx = { stopping: false };
const schema = contractChecker(QueueBody, "body");

/** The whole request path: the schema first (its code), then the action's own fields (the queue's code). */
function code(body: unknown): string {
  const failure = schema.failure(body);
  if (failure !== null) return failure.code;
  const result = queueCommand(body as QueueRequestBody, ctx);
  return result.ok ? "ok" : result.error.code;
}

describe("queueCommand", () => {
  it("maps each action to its command", () => {
    expect(queueCommand({ action: "hold", revision: 3 }, ctx)).toEqual({ ok: true, command: { type: "hold", revision: 3 } });
    expect(queueCommand({ action: "resume", revision: 3 }, { stopping: true })).toEqual({
      ok: true,
      command: { type: "resume", revision: 3, stopping: true },
    });
    expect(queueCommand({ action: "edit", revision: 3, id: "a", text: "" }, ctx)).toEqual({
      ok: true,
      command: { type: "edit", revision: 3, id: "a", text: "" },
    });
    expect(queueCommand({ action: "remove", revision: 3, id: "a" }, ctx)).toEqual({
      ok: true,
      command: { type: "remove", revision: 3, id: "a" },
    });
    expect(queueCommand({ action: "move", revision: 3, id: "a", direction: "down" }, ctx)).toEqual({
      ok: true,
      command: { type: "move", revision: 3, id: "a", direction: "down" },
    });
    expect(queueCommand({ action: "steer", revision: 3, id: "a" }, ctx)).toEqual({
      ok: true,
      command: { type: "steer", revision: 3, id: "a" },
    });
  });

  it("an unknown or missing action is invalid (400)", () => {
    expect(code({ action: "clear", revision: 1 })).toBe("invalid_request");
    expect(code({ revision: 1 })).toBe("invalid_request");
    expect(code(null)).toBe("invalid_request");
    expect(code([])).toBe("invalid_request");
  });

  it("a missing or non-integer revision is stale (409)", () => {
    expect(code({ action: "hold" })).toBe("conflict");
    expect(code({ action: "hold", revision: "3" })).toBe("conflict");
    expect(code({ action: "remove", revision: 1.5, id: "a" })).toBe("conflict");
    expect(ERROR_STATUS[promptQueueErrorCode("stale-revision")]).toBe(409);
  });

  it("missing fields are invalid (400)", () => {
    expect(code({ action: "edit", revision: 1, id: "a" })).toBe("invalid");
    expect(code({ action: "edit", revision: 1, text: "x" })).toBe("invalid");
    expect(code({ action: "move", revision: 1, id: "a", direction: "left" })).toBe("invalid");
    expect(code({ action: "steer", revision: 1, id: "" })).toBe("invalid");
    for (const c of ["invalid", "not-found", "not-pending", "blocked"] as const) expect(ERROR_STATUS[promptQueueErrorCode(c)]).toBe(400);
  });
});

import { describe, expect, it } from "vitest";
import { parseQueueRequest, promptQueueErrorStatus } from "./prompt-queue-request.ts";

const ctx = { stopping: false };

function code(body: unknown): string {
  const result = parseQueueRequest(body, ctx);
  return result.ok ? "ok" : result.error.code;
}

describe("parseQueueRequest", () => {
  it("maps each action to its command", () => {
    expect(parseQueueRequest({ action: "hold", revision: 3 }, ctx)).toEqual({ ok: true, command: { type: "hold", revision: 3 } });
    expect(parseQueueRequest({ action: "resume", revision: 3 }, { stopping: true })).toEqual({ ok: true, command: { type: "resume", revision: 3, stopping: true } });
    expect(parseQueueRequest({ action: "edit", revision: 3, id: "a", text: "" }, ctx)).toEqual({ ok: true, command: { type: "edit", revision: 3, id: "a", text: "" } });
    expect(parseQueueRequest({ action: "remove", revision: 3, id: "a" }, ctx)).toEqual({ ok: true, command: { type: "remove", revision: 3, id: "a" } });
    expect(parseQueueRequest({ action: "move", revision: 3, id: "a", direction: "down" }, ctx)).toEqual({ ok: true, command: { type: "move", revision: 3, id: "a", direction: "down" } });
    expect(parseQueueRequest({ action: "steer", revision: 3, id: "a" }, ctx)).toEqual({ ok: true, command: { type: "steer", revision: 3, id: "a" } });
  });

  it("an unknown or missing action is invalid (400)", () => {
    expect(code({ action: "clear", revision: 1 })).toBe("invalid");
    expect(code({ revision: 1 })).toBe("invalid");
    expect(code(null)).toBe("invalid");
    expect(code([])).toBe("invalid");
  });

  it("a missing or non-integer revision is stale (409)", () => {
    expect(code({ action: "hold" })).toBe("stale-revision");
    expect(code({ action: "hold", revision: "3" })).toBe("stale-revision");
    expect(code({ action: "remove", revision: 1.5, id: "a" })).toBe("stale-revision");
    expect(promptQueueErrorStatus("stale-revision")).toBe(409);
  });

  it("missing fields are invalid (400)", () => {
    expect(code({ action: "edit", revision: 1, id: "a" })).toBe("invalid");
    expect(code({ action: "edit", revision: 1, text: "x" })).toBe("invalid");
    expect(code({ action: "move", revision: 1, id: "a", direction: "left" })).toBe("invalid");
    expect(code({ action: "steer", revision: 1, id: "" })).toBe("invalid");
    for (const c of ["invalid", "not-found", "not-pending", "blocked"] as const) expect(promptQueueErrorStatus(c)).toBe(400);
  });
});

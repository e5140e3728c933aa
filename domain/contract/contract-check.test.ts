import { describe, expect, it } from "vitest";
import { contractChecker } from "./contract-check.ts";
import { ERROR_CODES, ERROR_STATUS, errorCodeOfStatus } from "./error-codes.ts";
import { PromptBody, QueueBody } from "./http-runtime-actions.ts";
import { createSession, renameSession } from "./http-sessions.ts";
import { failsWith, literals, Type } from "./schema-kit.ts";

describe("a failing value is told the spec's message of the nearest annotated node", () => {
  const prompt = contractChecker(PromptBody, "body");

  it.each([
    [{}, "text must be a string"],
    [{ text: 1 }, "text must be a string"],
    [{ text: "a", images: 3 }, "images must be an array"],
    [
      { text: "a", images: [{ type: "image", data: "x", mimeType: "image/png" }, { type: "x" }] },
      'images[1] must be { type: "image", data: string, mimeType: string }',
    ],
    [{ text: "a", streamingBehavior: "now" }, "streamingBehavior must be steer or followUp"],
    [{ text: "a", kind: "z" }, "kind must be session or research"],
    [{ text: "a", handoffId: 2 }, "handoffId must be a string"],
  ])("prompt %j → %s", (value, message) => {
    expect(prompt.failure(value)).toEqual({ message, code: "invalid_request" });
  });

  it("passes a good value", () => {
    expect(prompt.failure({ text: "hi", images: [], kind: "research" })).toBeNull();
    expect(prompt.is({ text: "hi" })).toBe(true);
  });

  it("checks fields in the order the schema declares them, whatever order the errors come in", () => {
    const queue = contractChecker(QueueBody, "body");
    // Both fields are wrong: the action (declared first) is told, as the hand-written parser did.
    expect(queue.failure({ action: "bogus" })).toEqual({
      message: "action must be one of hold, resume, edit, remove, move, steer",
      code: "invalid_request",
    });
    // A missing revision is a stale one: its own code (409).
    expect(queue.failure({ action: "hold" })).toEqual({ message: "Missing prompt queue revision", code: "conflict" });
    expect(queue.failure({ action: "hold", revision: 1.5 })?.code).toBe("conflict");
    expect(queue.failure({ action: "hold", revision: 3 })).toBeNull();
  });

  it("tells a missing field, a wrong type and a blank value apart where the spec does", () => {
    const create = contractChecker(createSession.schema.body, "body");
    expect(create.failure({})?.message).toBe("cwd must be a non-empty string");
    expect(create.failure({ cwd: "  " })?.message).toBe("cwd must be a non-empty string");
    expect(create.failure({ cwd: 5 })?.message).toBe("cwd must be a string");
    const rename = contractChecker(renameSession.schema.body, "body");
    expect(rename.failure({ name: 5 })?.message).toBe("name must be a string");
    expect(rename.failure({ name: " \t" })?.message).toBe("name must not be empty");
  });

  it("names the part and path when no node says more", () => {
    const plain = contractChecker(Type.Object({ a: Type.Object({ b: Type.Number() }) }), "querystring");
    expect(plain.failure({ a: { b: "x" } })).toEqual({ message: "querystring/a/b must be number", code: "invalid_request" });
    const annotated = contractChecker(Type.Object({ a: failsWith(Type.Object({ b: Type.Number() }), "a needs a number b") }), "body");
    expect(annotated.failure({ a: { b: "x" } })?.message).toBe("a needs a number b");
  });
});

describe("the path style names the field and says what it got (messages between processes)", () => {
  const Item = Type.Object({ name: Type.String(), tags: Type.Array(Type.String()) }, { additionalProperties: false });
  const Shape = Type.Union([
    Type.Object({ kind: failsWith(Type.Literal("a"), "must be a or b (got {type})"), size: Type.Number() }),
    Type.Object({ kind: failsWith(Type.Literal("b"), "must be a or b (got {type})"), items: Type.Array(Item) }),
  ]);
  const Message = Type.Object(
    {
      id: Type.String({ pattern: "\\S" }),
      level: Type.Optional(literals(["low", "high"])),
      shape: Shape,
      note: Type.Union([Type.String(), Type.Null()]),
      inner: Type.Optional(failsWith(Type.Object({ on: Type.Boolean() }), { type: "must be an object" })),
      file: Type.Optional(Type.String()),
      target: Type.Optional(Type.String()),
    },
    { additionalProperties: false, oneOf: [{ required: ["file"] }, { required: ["target"] }] },
  );
  const checker = contractChecker(failsWith(Message, { oneOf: "needs exactly one of file or target" }), "message", { style: "path" });
  const good = { id: "1", shape: { kind: "b", items: [{ name: "n", tags: ["t"] }] }, note: null, file: "f" };

  it.each([
    ["text", "message must be an object (got a string)"],
    [{ ...good, id: 3 }, "message.id must be a string (got a number)"],
    [{ ...good, level: "mid" }, 'message.level must be one of low, high (got "mid")'],
    [{ ...good, level: null }, "message.level must be one of low, high (got null)"],
    [{ ...good, shape: { kind: "c" } }, "message.shape.kind must be a or b (got a string)"],
    [{ ...good, shape: { kind: "a" } }, "message.shape.size must be a finite number (got undefined)"],
    [{ ...good, shape: { kind: "a", size: Number.NaN } }, "message.shape.size must be a finite number (got a number)"],
    [
      {
        ...good,
        shape: {
          kind: "b",
          items: [
            { name: "n", tags: [] },
            { name: "m", tags: "t" },
          ],
        },
      },
      "message.shape.items[1].tags must be an array of strings (got a string)",
    ],
    [{ ...good, shape: { kind: "b", items: [{ name: "n", tags: [], x: 1, y: 2 }] } }, "message.shape.items[0] has unknown field(s): x, y"],
    [{ ...good, note: 5 }, "message.note must be a string (got a number)"],
    [{ ...good, inner: [] }, "message.inner must be an object"],
    [{ ...good, inner: { on: "yes" } }, "message.inner.on must be a boolean (got a string)"],
    // No x-error on a rule: TypeBox's own words.
    [{ ...good, id: " " }, 'message.id must match pattern "\\S"'],
  ])("%j → %s", (value, message) => {
    expect(checker.failure(value)).toEqual({ message, code: "invalid_request" });
  });

  it("reads unknown fields first, then which shape the value is, then the fields in declared order", () => {
    expect(checker.failure({ ...good, extra: 1, id: 3 })?.message).toBe("message has unknown field(s): extra");
    expect(checker.failure({ ...good, target: "t", id: 3 })?.message).toBe("message needs exactly one of file or target");
    expect(checker.failure({ ...good, note: 5, id: 3 })?.message).toBe("message.id must be a string (got a number)");
    expect(checker.failure(good)).toBeNull();
    expect(checker.is(good)).toBe(true);
  });

  it("finds the first failure in declared order even past TypeBox's 8 collected errors", () => {
    const Wide = Type.Object(Object.fromEntries(Array.from({ length: 12 }, (_, index) => [`f${index}`, Type.String()])));
    const wide = contractChecker(Wide, "wide", { style: "path" });
    const value = Object.fromEntries(Array.from({ length: 12 }, (_, index) => [`f${index}`, index < 11 ? "s" : 1]));
    expect(wide.failure(value)?.message).toBe("wide.f11 must be a string (got a number)");
    expect(wide.failure({ ...value, f3: 2 })?.message).toBe("wide.f3 must be a string (got a number)");
  });
});

describe("the error code table", () => {
  it("gives every code a client or server status", () => {
    for (const code of ERROR_CODES) expect(ERROR_STATUS[code]).toBeGreaterThanOrEqual(400);
    expect(ERROR_STATUS.internal).toBe(500);
  });

  it("finds the code of a bare status, and calls unknown client statuses invalid_request", () => {
    expect(errorCodeOfStatus(413)).toBe("body_too_large");
    expect(errorCodeOfStatus(415)).toBe("unsupported_media_type");
    expect(errorCodeOfStatus(418)).toBe("invalid_request");
    expect(errorCodeOfStatus(502)).toBe("internal");
    for (const code of ERROR_CODES) {
      // Every status of the table maps back to a code with that same status.
      expect(ERROR_STATUS[errorCodeOfStatus(ERROR_STATUS[code])]).toBe(ERROR_STATUS[code]);
    }
  });
});

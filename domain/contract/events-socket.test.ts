import { describe, expect, it } from "vitest";
import { parseClientMessage, serverMessageFailure } from "./events-socket.ts";

describe("client messages", () => {
  it("reads the literal pong and a focus change; anything else is ignored (null)", () => {
    expect(parseClientMessage('{"type":"pong"}')).toEqual({ type: "pong" });
    expect(parseClientMessage('{"type":"focus","sessionId":"s1"}')).toEqual({ type: "focus", sessionId: "s1" });
    expect(parseClientMessage('{"type":"focus","sessionId":""}')).toEqual({ type: "focus", sessionId: "" });
    expect(parseClientMessage('{"type":"focus","sessionId":5}')).toBeNull();
    expect(parseClientMessage('{"type":"focus"}')).toBeNull();
    expect(parseClientMessage('{"type":"reset"}')).toBeNull();
    expect(parseClientMessage("[1]")).toBeNull();
    expect(parseClientMessage("not json")).toBeNull();
  });
});

describe("server messages", () => {
  it("accepts each message with the data its type declares", () => {
    expect(serverMessageFailure({ type: "hello", data: { stream: "a", resumed: false, latestSeq: 2 }, seq: 0, epoch: "e" })).toBeNull();
    expect(serverMessageFailure({ type: "ping", seq: 4 })).toBeNull();
    expect(serverMessageFailure({ type: "runtime_roster", data: { sessionIds: ["s1"] }, seq: 1 })).toBeNull();
    expect(
      serverMessageFailure({ type: "session_unavailable", data: { sessionId: "s", reason: "gone", message: "m" }, seq: 3 }),
    ).toBeNull();
  });

  it("names what breaks: the envelope, an unknown type, data off its schema, data where none belongs", () => {
    expect(serverMessageFailure({ type: "hello", data: { stream: "a", resumed: false, latestSeq: 2 } })).toMatch(/seq/);
    expect(serverMessageFailure({ type: "gossip", seq: 1 })).not.toBeNull();
    expect(serverMessageFailure({ type: "session_unavailable", data: { sessionId: "s", reason: "lost", message: "m" }, seq: 3 })).toMatch(
      /^session_unavailable\.data/,
    );
    expect(serverMessageFailure({ type: "runtime_event", data: { activeSessionId: "s" }, seq: 3 })).toMatch(/event/);
    expect(serverMessageFailure({ type: "ping", data: {}, seq: 4 })).toBe("ping carries no data");
  });
});

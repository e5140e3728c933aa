import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  connectionStatusOf,
  decodeEnvelope,
  DEFAULT_BACKOFF,
  initialMachineState,
  PONG_TEXT,
  reconnectDelay,
  step,
  type MachineEffect,
  type MachineInput,
  type MachineState,
} from "./events-machine.ts";

const EPOCH = "epoch-1";

function msg(seq: number, type = "runtime_roster", epoch = EPOCH, data: unknown = { sessionIds: [] }): MachineInput {
  return { type: "message", text: JSON.stringify(type === "ping" ? { type, seq, epoch } : { type, data, seq, epoch }) };
}

/** Runs inputs from a state; returns the final state and every effect in order. */
function run(inputs: MachineInput[], from: MachineState = initialMachineState()): { state: MachineState; effects: MachineEffect[] } {
  let state = from;
  const effects: MachineEffect[] = [];
  for (const input of inputs) {
    const next = step(state, input);
    state = next.state;
    effects.push(...next.effects);
  }
  return { state, effects };
}

/** An open connection that has received messages 1..n. */
function connected(n = 1, sessionId = ""): MachineState {
  const inputs: MachineInput[] = [{ type: "start", sessionId }, { type: "opened" }];
  for (let seq = 1; seq <= n; seq++) inputs.push(msg(seq));
  return run(inputs).state;
}

const types = (effects: MachineEffect[]) => effects.map((e) => e.type);

describe("events machine: heartbeat", () => {
  it("answers a ping with the exact text {\"type\":\"pong\"} and delivers nothing", () => {
    const { effects } = run([msg(2, "ping")], connected(1));
    expect(effects).toEqual([{ type: "send", text: '{"type":"pong"}' }, { type: "heartbeat" }]);
    expect(PONG_TEXT).toBe('{"type":"pong"}');
  });

  it("delivers other messages with their data", () => {
    const { effects } = run([msg(2, "runtime_removed", EPOCH, { id: "s1" })], connected(1));
    expect(effects).toEqual([{ type: "deliver", message: { type: "runtime_removed", data: { id: "s1" }, seq: 2, epoch: EPOCH } }]);
  });

  it("ignores text that is not an envelope (and counts it)", () => {
    const { state, effects } = run([{ type: "message", text: "not json" }, { type: "message", text: '{"type":"x"}' }], connected(1));
    expect(effects).toEqual([]);
    expect(state.malformed).toBe(2);
    expect(state.lastSeq).toBe(1);
  });
});

describe("events machine: seq and epoch", () => {
  it("starts a snapshot generation on the first message of every connection, without resync the first time", () => {
    const { effects } = run([{ type: "start", sessionId: "s1" }, { type: "opened" }, msg(1)]);
    expect(effects[0]).toEqual({ type: "connect", sessionId: "s1" });
    expect(effects.slice(1)).toEqual([
      { type: "connectionStarted", epoch: EPOCH, restart: false },
      { type: "deliver", message: expect.objectContaining({ seq: 1 }) },
    ]);
  });

  it("a gap in seq reopens the socket at once and resyncs when the new connection starts", () => {
    const gap = run([msg(5)], connected(3));
    expect(gap.effects).toEqual([{ type: "disconnect" }, { type: "connect", sessionId: "" }]);
    expect(gap.state.phase).toBe("connecting");
    const after = run([{ type: "opened" }, msg(1)], gap.state);
    expect(types(after.effects)).toEqual(["connectionStarted", "resync", "deliver"]);
    expect(after.effects[1]).toEqual({ type: "resync", reason: "gap" });
    // A second gap-free message does not resync again.
    expect(types(run([msg(2)], after.state).effects)).toEqual(["deliver"]);
  });

  it("a repeated or older seq is a gap too", () => {
    expect(types(run([msg(3)], connected(3)).effects)).toEqual(["disconnect", "connect"]);
    expect(types(run([msg(1)], connected(3)).effects)).toEqual(["disconnect", "connect"]);
  });

  it("a first message that is not seq 1 resyncs without reopening", () => {
    const { effects } = run([{ type: "start", sessionId: "" }, { type: "opened" }, msg(4)]);
    expect(types(effects)).toEqual(["connect", "connectionStarted", "resync", "deliver"]);
    expect(effects[2]).toEqual({ type: "resync", reason: "gap" });
  });

  it("a new epoch after reconnecting is a server restart: new generation flagged restart, resync", () => {
    const dropped = run([{ type: "closed", random: 0 }, { type: "retry" }, { type: "opened" }, msg(1, "runtime_roster", "epoch-2")], connected(2));
    const started = dropped.effects.find((e) => e.type === "connectionStarted");
    expect(started).toEqual({ type: "connectionStarted", epoch: "epoch-2", restart: true });
    expect(dropped.effects).toContainEqual({ type: "resync", reason: "restart" });
    expect(dropped.state.epoch).toBe("epoch-2");
  });

  it("the same epoch after a drop resyncs as a reconnect", () => {
    const { effects } = run([{ type: "closed", random: 0.5 }, { type: "retry" }, { type: "opened" }, msg(1)], connected(2));
    expect(effects).toContainEqual({ type: "connectionStarted", epoch: EPOCH, restart: false });
    expect(effects).toContainEqual({ type: "resync", reason: "reconnect" });
  });

  it("messages before `opened` or after `stop` are ignored", () => {
    const connecting = run([{ type: "start", sessionId: "" }]).state;
    expect(run([msg(1)], connecting).effects).toEqual([]);
    const stopped = run([{ type: "stop" }], connected(1)).state;
    expect(run([msg(2)], stopped).effects).toEqual([]);
  });
});

describe("events machine: reconnect with backoff and jitter", () => {
  it("schedules growing delays, capped, and resets the attempt count once a connection delivers", () => {
    let state = connected(1);
    const delays: number[] = [];
    for (let i = 0; i < 9; i++) {
      const closed = step(state, { type: "closed", random: 1 });
      const scheduled = closed.effects.find((e) => e.type === "schedule");
      if (scheduled?.type !== "schedule") throw new Error("no schedule");
      delays.push(scheduled.delayMs);
      state = step(closed.state, { type: "retry" }).state;
      expect(state.phase).toBe("connecting");
    }
    expect(delays).toEqual([500, 1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000]);
    expect(state.attempt).toBe(9);
    state = run([{ type: "opened" }], state).state;
    expect(state.attempt).toBe(9); // opening alone is not enough
    state = run([msg(1)], state).state;
    expect(state.attempt).toBe(0);
  });

  it("jitter keeps every delay within [half, full] of the exponential ceiling", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 40 }), fc.double({ min: 0, max: 1, noNaN: true }), (attempt, random) => {
        const ceiling = Math.min(DEFAULT_BACKOFF.maxMs, DEFAULT_BACKOFF.baseMs * 2 ** (attempt - 1));
        const delay = reconnectDelay(attempt, random);
        return delay >= Math.floor(ceiling / 2) && delay <= ceiling;
      }),
    );
    expect(reconnectDelay(3, 0)).toBe(1000);
    expect(reconnectDelay(3, 0.5)).toBe(1500);
  });

  it("a close while waiting changes nothing; retryNow skips the wait", () => {
    const waiting = step(connected(1), { type: "closed", random: 0 }).state;
    expect(waiting.phase).toBe("backoff");
    expect(connectionStatusOf(waiting)).toBe("offline");
    expect(step(waiting, { type: "closed", random: 0 }).effects).toEqual([]);
    const now = step(waiting, { type: "retryNow" });
    expect(now.effects).toEqual([{ type: "cancelSchedule" }, { type: "connect", sessionId: "" }]);
    expect(connectionStatusOf(now.state)).toBe("connecting");
  });

  it("a connection that fails before any message does not owe a resync", () => {
    const failed = run([{ type: "start", sessionId: "" }, { type: "closed", random: 0 }, { type: "retry" }, { type: "opened" }, msg(1)]);
    expect(types(failed.effects)).not.toContain("resync");
  });

  it("stop cancels the schedule and closes; start opens again", () => {
    const stopped = step(step(connected(1), { type: "closed", random: 0 }).state, { type: "stop" });
    expect(stopped.effects).toEqual([{ type: "cancelSchedule" }, { type: "disconnect" }]);
    expect(step(stopped.state, { type: "retry" }).effects).toEqual([]);
    expect(step(stopped.state, { type: "start", sessionId: "x" }).effects).toEqual([{ type: "connect", sessionId: "x" }]);
  });
});

describe("events machine: focus", () => {
  it("reopens the socket with the new ?sessionId and resyncs as a focus change", () => {
    const focused = step(connected(2, ""), { type: "focus", sessionId: "s2" });
    expect(focused.effects).toEqual([{ type: "disconnect" }, { type: "connect", sessionId: "s2" }]);
    const after = run([{ type: "opened" }, msg(1)], focused.state);
    expect(after.effects).toContainEqual({ type: "resync", reason: "focus" });
  });

  it("the same focus does nothing; a focus while waiting connects now", () => {
    expect(step(connected(1, "s1"), { type: "focus", sessionId: "s1" }).effects).toEqual([]);
    const waiting = step(connected(1, "s1"), { type: "closed", random: 0 }).state;
    const focused = step(waiting, { type: "focus", sessionId: "s2" });
    expect(focused.effects).toEqual([{ type: "cancelSchedule" }, { type: "connect", sessionId: "s2" }]);
    // The drop still owes a reconnect resync, which outranks "focus".
    expect(run([{ type: "opened" }, msg(1)], focused.state).effects).toContainEqual({ type: "resync", reason: "reconnect" });
  });
});

describe("decodeEnvelope", () => {
  it("accepts { type, seq, epoch } with optional data and rejects the rest", () => {
    expect(decodeEnvelope('{"type":"ping","seq":3,"epoch":"e"}')).toEqual({ type: "ping", seq: 3, epoch: "e" });
    expect(decodeEnvelope('{"type":"x","data":null,"seq":1,"epoch":"e"}')).toEqual({ type: "x", data: null, seq: 1, epoch: "e" });
    for (const text of ["", "[]", '{"type":"x","seq":"1","epoch":"e"}', '{"type":"x","seq":1.5,"epoch":"e"}', '{"seq":1,"epoch":"e"}']) {
      expect(decodeEnvelope(text)).toBeNull();
    }
  });
});

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  behindOf,
  connectionStatusOf,
  decodeEnvelope,
  DEFAULT_BACKOFF,
  focusText,
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

function hello(stream: string, resumed: boolean, latestSeq = 0, epoch = EPOCH): MachineInput {
  return msg(0, "hello", epoch, { stream, resumed, latestSeq });
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

/** An open connection on stream "s1" that has applied messages 1..n. */
function connected(n = 1, sessionId = ""): MachineState {
  const inputs: MachineInput[] = [{ type: "start", sessionId }, { type: "opened" }, hello("s1", false)];
  for (let seq = 1; seq <= n; seq++) inputs.push(msg(seq));
  return run(inputs).state;
}

/** The state after the socket dropped and the backoff fired: connecting again. */
function reconnecting(from: MachineState): { state: MachineState; effects: MachineEffect[] } {
  return run([{ type: "closed", random: 0 }, { type: "retry" }], from);
}

const types = (effects: MachineEffect[]) => effects.map((e) => e.type);
const delivered = (effects: MachineEffect[]) => effects.flatMap((e) => (e.type === "deliver" ? [e.message.seq] : []));
const sends = (effects: MachineEffect[]) => effects.flatMap((e) => (e.type === "send" ? [e.text] : []));

describe("events machine: hello and streams", () => {
  it("connects without a resume point the first time; the hello of a fresh stream starts generation 1", () => {
    const { state, effects } = run([{ type: "start", sessionId: "a" }, { type: "opened" }, hello("s1", false, 4)]);
    expect(effects).toEqual([
      { type: "connect", sessionId: "a", resume: null },
      { type: "freshStream", epoch: EPOCH, reason: "start" },
    ]);
    expect(state).toMatchObject({ stream: "s1", applied: 0, generation: 1, greeted: true, epoch: EPOCH });
    // A fresh stream's latestSeq is not "behind": the snapshots rebuild the state.
    expect(behindOf(state)).toBe(0);
  });

  it("reconnects after a drop asking to resume after the last applied seq; a resumed hello keeps the generation", () => {
    const again = reconnecting(connected(5, "a"));
    expect(again.effects.at(-1)).toEqual({ type: "connect", sessionId: "a", resume: { stream: "s1", after: 5 } });
    const resumed = run([{ type: "opened" }, hello("s1", true, 8), msg(6), msg(7), msg(8)], again.state);
    expect(resumed.effects[0]).toEqual({ type: "resumed", after: 5, latestSeq: 8 });
    expect(types(resumed.effects)).not.toContain("freshStream");
    expect(delivered(resumed.effects)).toEqual([6, 7, 8]);
    expect(resumed.state).toMatchObject({ generation: 1, applied: 8, stream: "s1" });
  });

  it("counts how far behind a resumed stream is, down to 0 as the missed messages are applied", () => {
    let state = run([{ type: "opened" }, hello("s1", true, 8)], reconnecting(connected(5)).state).state;
    const counts = [behindOf(state)];
    for (const seq of [6, 7, 8, 9]) {
      state = step(state, msg(seq)).state;
      counts.push(behindOf(state));
    }
    expect(counts).toEqual([3, 2, 1, 0, 0]);
    // Offline, nothing is counted as behind.
    expect(behindOf(step(state, { type: "closed", random: 0 }).state)).toBe(0);
  });

  it("a hello that does not resume (expired, slow reader) is a fresh stream: generation + 1, numbering from 1", () => {
    const { state, effects } = run([{ type: "opened" }, hello("s2", false, 3), msg(1), msg(2)], reconnecting(connected(5)).state);
    expect(effects[0]).toEqual({ type: "freshStream", epoch: EPOCH, reason: "not-resumed" });
    expect(delivered(effects)).toEqual([1, 2]);
    expect(state).toMatchObject({ stream: "s2", applied: 2, generation: 2 });
    // The next drop resumes the new stream.
    expect(reconnecting(state).effects.at(-1)).toEqual({ type: "connect", sessionId: "", resume: { stream: "s2", after: 2 } });
  });

  it("a resumed hello for another stream than the one asked for is taken as fresh", () => {
    const { effects } = run([{ type: "opened" }, hello("other", true, 9)], reconnecting(connected(2)).state);
    expect(effects[0]).toEqual({ type: "freshStream", epoch: EPOCH, reason: "not-resumed" });
  });

  it("a new epoch (the server restarted) is a fresh generation flagged restart, even if the hello claims to resume", () => {
    const { state, effects } = run([{ type: "opened" }, hello("s1", true, 9, "epoch-2")], reconnecting(connected(2)).state);
    expect(effects).toEqual([{ type: "freshStream", epoch: "epoch-2", reason: "restart" }]);
    expect(state).toMatchObject({ epoch: "epoch-2", applied: 0, generation: 2 });
  });

  it("a numbered message before the hello breaks the protocol: back off and start a fresh stream next time", () => {
    const { state, effects } = run([{ type: "start", sessionId: "" }, { type: "opened" }, msg(1)]);
    expect(types(effects)).toEqual(["connect", "disconnect", "schedule"]);
    expect(state).toMatchObject({ phase: "backoff", stream: null });
    const broken = run([{ type: "opened" }, msg(1)], reconnecting(connected(3)).state);
    expect(broken.state.stream).toBeNull();
    expect(run([{ type: "retry" }], broken.state).effects).toEqual([{ type: "connect", sessionId: "", resume: null }]);
  });

  it("numbered messages without an epoch are the norm; a hello without one breaks the protocol", () => {
    const numbered = run(
      [{ type: "message", text: JSON.stringify({ type: "runtime_roster", data: { sessionIds: [] }, seq: 2 }) }],
      connected(1),
    );
    expect(numbered.effects).toEqual([{ type: "deliver", message: { type: "runtime_roster", data: { sessionIds: [] }, seq: 2 } }]);
    const opened = run([{ type: "start", sessionId: "" }, { type: "opened" }]).state;
    const noEpoch = run(
      [{ type: "message", text: JSON.stringify({ type: "hello", data: { stream: "s", resumed: false, latestSeq: 0 }, seq: 0 }) }],
      opened,
    );
    expect(noEpoch.state.phase).toBe("backoff");
  });

  it("an epoch change on one connection breaks the protocol too", () => {
    const { state, effects } = run([msg(2, "runtime_roster", "epoch-2")], connected(1));
    expect(types(effects)).toEqual(["disconnect", "schedule"]);
    expect(state.stream).toBeNull();
  });
});

describe("events machine: seq continuity", () => {
  it("applies applied + 1 and delivers it with its data", () => {
    const { state, effects } = run([msg(2, "runtime_removed", EPOCH, { id: "x" })], connected(1));
    expect(effects).toEqual([{ type: "deliver", message: { type: "runtime_removed", data: { id: "x" }, seq: 2, epoch: EPOCH } }]);
    expect(state.applied).toBe(2);
  });

  it("skips a seq at or below the applied one (never applies a message twice)", () => {
    const { state, effects } = run([msg(3), msg(1), msg(4)], connected(3));
    expect(delivered(effects)).toEqual([4]);
    expect(state).toMatchObject({ applied: 4, duplicates: 2, phase: "open" });
  });

  it("a gap drops the socket and reconnects after the backoff, asking to resume after the last applied seq", () => {
    const gap = run([msg(5)], connected(3, "a"));
    expect(gap.effects).toEqual([{ type: "disconnect" }, { type: "schedule", delayMs: reconnectDelay(1, 0.5) }]);
    expect(gap.state).toMatchObject({ phase: "backoff", applied: 3, stream: "s1" });
    const retried = run([{ type: "retry" }], gap.state);
    expect(retried.effects).toEqual([{ type: "connect", sessionId: "a", resume: { stream: "s1", after: 3 } }]);
    // The server replays 4 and 5.
    const replay = run([{ type: "opened" }, hello("s1", true, 5), msg(4), msg(5)], retried.state);
    expect(delivered(replay.effects)).toEqual([4, 5]);
  });

  it("ignores text that is not an envelope (and counts it)", () => {
    const { state, effects } = run(
      [
        { type: "message", text: "not json" },
        { type: "message", text: '{"type":"x"}' },
      ],
      connected(1),
    );
    expect(effects).toEqual([]);
    expect(state.malformed).toBe(2);
    expect(state.applied).toBe(1);
  });

  it("messages before `opened` or after `stop` are ignored", () => {
    const connecting = run([{ type: "start", sessionId: "" }]).state;
    expect(run([hello("s1", false)], connecting).effects).toEqual([]);
    const stopped = run([{ type: "stop" }], connected(1)).state;
    expect(run([msg(2)], stopped).effects).toEqual([]);
  });

  it("law: whatever the drops, losses, duplicates and resumes, each generation applies 1, 2, 3, … once each, in order", () => {
    // A model server: a stream is a log of numbered messages; a connection replays after `after` when it can.
    type Action =
      | { kind: "send" }
      | { kind: "lose" }
      | { kind: "duplicate" }
      | { kind: "close" }
      | { kind: "connect"; resumable: boolean; restart: boolean }
      | { kind: "ping" };
    const action = fc.oneof(
      fc.constant<Action>({ kind: "send" }),
      fc.constant<Action>({ kind: "send" }),
      fc.constant<Action>({ kind: "lose" }),
      fc.constant<Action>({ kind: "duplicate" }),
      fc.constant<Action>({ kind: "close" }),
      fc.constant<Action>({ kind: "ping" }),
      fc.record({ kind: fc.constant("connect" as const), resumable: fc.boolean(), restart: fc.boolean() }),
    );
    fc.assert(
      fc.property(fc.array(action, { maxLength: 80 }), (actions) => {
        let state = run([{ type: "start", sessionId: "" }]).state;
        let server = { stream: "", epoch: EPOCH, seq: 0, streams: 0 };
        /** Per generation, the seqs delivered. */
        const delivered: number[][] = [];
        const feed = (input: MachineInput) => {
          const before = state;
          const out = step(state, input);
          state = out.state;
          for (const effect of out.effects) {
            if (effect.type === "freshStream") delivered.push([]);
            if (effect.type === "deliver") delivered.at(-1)?.push(effect.message.seq);
          }
          // Within a generation the applied seq only ever moves on by one; a new generation starts from 0.
          if (state.generation === before.generation) expect([before.applied, before.applied + 1]).toContain(state.applied);
          else expect(state.applied).toBe(0);
        };
        const numbered = (seq: number, type = "x") => ({
          type: "message" as const,
          text: JSON.stringify({ type, data: null, seq, epoch: server.epoch }),
        });
        for (const a of actions) {
          if (a.kind === "connect") {
            if (state.phase === "backoff") feed({ type: "retry" });
            if (state.phase !== "connecting") continue;
            if (a.restart) server = { stream: "", epoch: `${server.epoch}+`, seq: 0, streams: server.streams };
            const resume = state.stream !== null && state.stream === server.stream && a.resumable && state.applied <= server.seq;
            if (!resume) server = { ...server, stream: `st${++server.streams}`, seq: 0 };
            feed({ type: "opened" });
            feed({
              type: "message",
              text: JSON.stringify({
                type: "hello",
                data: { stream: server.stream, resumed: resume, latestSeq: server.seq },
                seq: 0,
                epoch: server.epoch,
              }),
            });
            // The replay of what the client missed (a fresh stream has nothing to replay yet).
            const open = (): boolean => state.phase === "open";
            for (let seq = state.applied + 1; resume && open() && seq <= server.seq; seq++) feed(numbered(seq));
          } else if (state.phase === "open" && state.greeted) {
            if (a.kind === "send" || a.kind === "ping") {
              server.seq += 1;
              feed(numbered(server.seq, a.kind === "ping" ? "ping" : "x"));
            } else if (a.kind === "lose") {
              server.seq += 1; // written, never received
            } else if (a.kind === "duplicate" && server.seq > 0) {
              feed(numbered(server.seq));
            } else if (a.kind === "close") {
              feed({ type: "closed", random: 0.3 });
            }
          }
        }
        for (const generation of delivered) {
          // Never one twice, never one out of order (pings are applied, not delivered).
          for (let i = 1; i < generation.length; i++) expect(generation[i] as number).toBeGreaterThan(generation[i - 1] as number);
        }
        // Never a seq applied beyond what the stream holds, never a gap accepted.
        expect(state.applied).toBeLessThanOrEqual(server.seq);
      }),
      { numRuns: 300 },
    );
  });
});

describe("events machine: heartbeat", () => {
  it('answers a ping with the exact text {"type":"pong"}, applies its seq and delivers nothing', () => {
    const { state, effects } = run([msg(2, "ping")], connected(1));
    expect(effects).toEqual([{ type: "send", text: '{"type":"pong"}' }, { type: "heartbeat" }]);
    expect(PONG_TEXT).toBe('{"type":"pong"}');
    expect(state.applied).toBe(2);
  });
});

describe("events machine: focus", () => {
  it("on a greeted socket sends a focus message instead of reconnecting, and the next URL carries it", () => {
    const focused = step(connected(2, ""), { type: "focus", sessionId: "b" });
    expect(focused.effects).toEqual([{ type: "send", text: '{"type":"focus","sessionId":"b"}' }]);
    expect(focused.state).toMatchObject({ sessionId: "b", serverFocus: "b", phase: "open" });
    expect(reconnecting(focused.state).effects.at(-1)).toEqual({ type: "connect", sessionId: "b", resume: { stream: "s1", after: 2 } });
    // The same focus again sends nothing.
    expect(step(focused.state, { type: "focus", sessionId: "b" }).effects).toEqual([]);
  });

  it("while connecting, a changed focus is sent after the hello; while offline, the URL carries it", () => {
    const connecting = run([{ type: "start", sessionId: "a" }, { type: "opened" }]).state;
    const changed = run([{ type: "focus", sessionId: "b" }], connecting);
    expect(changed.effects).toEqual([]);
    const greeted = run([hello("s1", false)], changed.state);
    expect(greeted.effects).toEqual([
      { type: "freshStream", epoch: EPOCH, reason: "start" },
      { type: "send", text: focusText("b") },
    ]);

    const offline = step(connected(1, "a"), { type: "closed", random: 0 }).state;
    const remembered = run([{ type: "focus", sessionId: "c" }, { type: "retry" }], offline);
    expect(remembered.effects).toEqual([{ type: "connect", sessionId: "c", resume: { stream: "s1", after: 1 } }]);
  });

  it("asks for a snapshot of the focus the server already has by clearing and setting it again", () => {
    const { effects, state } = run([{ type: "focus", sessionId: "a", snapshot: true }], connected(1, "a"));
    expect(sends(effects)).toEqual([focusText("a")]);
    expect(state.snapshotOwed).toBe(false);
    // A changed focus brings its snapshot by itself: one message.
    expect(sends(run([{ type: "focus", sessionId: "b", snapshot: true }], state).effects)).toEqual([focusText("b")]);
    // No session: no snapshot to ask for.
    expect(run([{ type: "focus", sessionId: "", snapshot: true }], connected(1, "")).effects).toEqual([]);
  });

  it("a snapshot owed while offline is asked for after a resume, and settled by a fresh stream", () => {
    const offline = step(connected(1, "a"), { type: "closed", random: 0 }).state;
    const owed = run([{ type: "focus", sessionId: "a", snapshot: true }], offline).state;
    expect(owed.snapshotOwed).toBe(true);
    const resumed = run([{ type: "retry" }, { type: "opened" }, hello("s1", true, 1)], owed);
    expect(sends(resumed.effects)).toEqual([focusText("a")]);
    const fresh = run([{ type: "retry" }, { type: "opened" }, hello("s9", false)], owed);
    expect(sends(fresh.effects)).toEqual([]);
    expect(fresh.state.snapshotOwed).toBe(false);
  });

  it("a focus too large for a client message reconnects with it in the URL", () => {
    const huge = "x".repeat(2000);
    const { effects } = run([{ type: "focus", sessionId: huge }], connected(1));
    expect(effects).toEqual([{ type: "disconnect" }, { type: "connect", sessionId: huge, resume: { stream: "s1", after: 1 } }]);
  });
});

describe("events machine: reconnect with backoff and jitter", () => {
  it("schedules growing delays, capped, and resets the attempt count once a connection says hello", () => {
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
    state = run([hello("s1", true, 1)], state).state;
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
    expect(now.effects).toEqual([{ type: "cancelSchedule" }, { type: "connect", sessionId: "", resume: { stream: "s1", after: 1 } }]);
    expect(connectionStatusOf(now.state)).toBe("connecting");
  });

  it("stop cancels the schedule and closes, keeping the stream; start resumes it", () => {
    const stopped = step(step(connected(2), { type: "closed", random: 0 }).state, { type: "stop" });
    expect(stopped.effects).toEqual([{ type: "cancelSchedule" }, { type: "disconnect" }]);
    expect(step(stopped.state, { type: "retry" }).effects).toEqual([]);
    expect(step(stopped.state, { type: "start", sessionId: "x" }).effects).toEqual([
      { type: "connect", sessionId: "x", resume: { stream: "s1", after: 2 } },
    ]);
  });
});

describe("decodeEnvelope", () => {
  it("accepts { type, seq } with optional data and epoch (only hello has one) and rejects the rest", () => {
    expect(decodeEnvelope('{"type":"ping","seq":3}')).toEqual({ type: "ping", seq: 3 });
    expect(decodeEnvelope('{"type":"ping","seq":3,"epoch":"e"}')).toEqual({ type: "ping", seq: 3, epoch: "e" });
    expect(decodeEnvelope('{"type":"x","data":null,"seq":1}')).toEqual({ type: "x", data: null, seq: 1 });
    for (const text of [
      "",
      "[]",
      '{"type":"x","seq":"1"}',
      '{"type":"x","seq":1.5}',
      '{"seq":1}',
      '{"type":"x","seq":-1}',
      '{"type":"x","seq":1,"epoch":7}',
    ]) {
      expect(decodeEnvelope(text)).toBeNull();
    }
  });
});

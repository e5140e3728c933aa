import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  decodeReviewMessage,
  initialReviewSocketState,
  PONG_TEXT,
  REVIEW_BACKOFF,
  reviewLinkOf,
  reviewReconnectDelay,
  step,
  type ReviewSocketEffect,
  type ReviewSocketInput,
  type ReviewSocketState,
} from "./review-socket-machine.ts";

const CWD = "/work/app";

const message = (type: string, data?: unknown): ReviewSocketInput => ({
  type: "message",
  text: JSON.stringify(data === undefined ? { type } : { type, data }),
});
const ready = message("review_ready", {});
const change = message("review_change", { root: CWD });
const unavailable = message("review_unavailable", {});
const watchError = (text = "EMFILE: too many open files") => message("review_watch_error", { message: text });

/** Given a state, when these inputs arrive: the final state and every effect in order. */
function run(inputs: ReviewSocketInput[], from: ReviewSocketState = initialReviewSocketState()) {
  let state = from;
  const effects: ReviewSocketEffect[] = [];
  for (const input of inputs) {
    const next = step(state, input);
    state = next.state;
    effects.push(...next.effects);
  }
  return { state, effects };
}

/** A socket whose watcher is ready, with no fetch in flight. */
function readyState(cwd = CWD): ReviewSocketState {
  return run([{ type: "start", cwd, watch: true }, { type: "opened" }, ready, { type: "fetched", available: true }]).state;
}

const types = (effects: ReviewSocketEffect[]) => effects.map((effect) => effect.type);
const fetches = (effects: ReviewSocketEffect[]) => effects.filter((effect) => effect.type === "fetch").length;

describe("review socket machine: connecting and fetching", () => {
  it("given a watching backend, when it starts, then it connects and fetches only once the watcher is ready", () => {
    const started = run([{ type: "start", cwd: CWD, watch: true }, { type: "opened" }]);
    expect(started.effects).toEqual([{ type: "connect", cwd: CWD }]);
    expect(reviewLinkOf(started.state)).toBe("connecting");

    const readied = run([ready], started.state);
    expect(readied.effects).toEqual([{ type: "fetch", cwd: CWD }]);
    expect(readied.state).toMatchObject({ phase: "ready", fetching: true });
    expect(reviewLinkOf(readied.state)).toBe("live");
  });

  it("given no watch capability, when it starts, then it fetches at once and on every refresh, never opening a socket", () => {
    const { state, effects } = run([{ type: "start", cwd: CWD, watch: false }, { type: "fetched", available: true }, { type: "refresh" }]);
    expect(effects).toEqual([
      { type: "fetch", cwd: CWD },
      { type: "fetch", cwd: CWD },
    ]);
    expect(reviewLinkOf(state)).toBe("manual");
  });

  it("given a fetch in flight, when changes keep coming, then they collapse into one pending fetch run after it", () => {
    const busy = run([change], readyState());
    expect(busy.effects).toEqual([{ type: "fetch", cwd: CWD }]);
    const burst = run([change, change, { type: "refresh" }, change], busy.state);
    expect(burst.effects).toEqual([]);
    expect(burst.state).toMatchObject({ fetching: true, fetchPending: true });

    const first = run([{ type: "fetched", available: true }], burst.state);
    expect(first.effects).toEqual([{ type: "fetch", cwd: CWD }]);
    expect(first.state).toMatchObject({ fetching: true, fetchPending: false });
    const second = run([{ type: "fetched", available: true }], first.state);
    expect(second.effects).toEqual([]);
    expect(second.state.fetching).toBe(false);
  });

  it("answers a ping with exactly the pong text", () => {
    const { effects, state } = run([message("ping")], readyState());
    expect(effects).toEqual([{ type: "send", text: '{"type":"pong"}' }]);
    expect(PONG_TEXT).toBe('{"type":"pong"}');
    expect(state.fetching).toBe(false);
  });

  it("ignores texts that are not messages (counted) and types it does not know", () => {
    const { effects, state } = run(
      [{ type: "message", text: "nope" }, { type: "message", text: "[1]" }, message("review_future")],
      readyState(),
    );
    expect(effects).toEqual([]);
    expect(state.malformed).toBe(2);
  });

  it("ignores messages before the socket opened and after it stopped", () => {
    const connecting = run([{ type: "start", cwd: CWD, watch: true }]).state;
    expect(run([ready], connecting).effects).toEqual([]);
    const stopped = run([{ type: "stop" }], readyState()).state;
    expect(run([change, { type: "refresh" }], stopped).effects).toEqual([]);
  });
});

describe("review socket machine: unavailable", () => {
  it("given a ready socket, when the folder is not a repository any more, then it closes, fetches once and never reconnects", () => {
    const { state, effects } = run([unavailable], readyState());
    expect(effects).toEqual([{ type: "disconnect" }, { type: "fetch", cwd: CWD }]);
    expect(reviewLinkOf(state)).toBe("unavailable");
    const after = run([{ type: "closed" }, { type: "retry" }, { type: "fetched", available: false }, { type: "closed" }], state);
    expect(types(after.effects)).not.toContain("connect");
    expect(types(after.effects)).not.toContain("schedule");
  });

  it("given an unavailable folder, when a later fetch finds a repository, then it subscribes again after the backoff", () => {
    const gone = run([unavailable, { type: "fetched", available: false }], readyState()).state;
    const again = run([{ type: "refresh" }, { type: "fetched", available: true }], gone);
    expect(again.effects).toEqual([
      { type: "fetch", cwd: CWD },
      { type: "schedule", delayMs: 1000 },
    ]);
    expect(run([{ type: "retry" }], again.state).effects).toEqual([{ type: "connect", cwd: CWD }]);
  });
});

describe("review socket machine: reconnecting", () => {
  it("given a watcher error, then it drops the socket at once and reconnects after 1 s, saying why while it waits", () => {
    const { state, effects } = run([watchError("watch failed")], readyState());
    expect(effects).toEqual([{ type: "disconnect" }, { type: "schedule", delayMs: 1000 }]);
    expect(state).toMatchObject({ phase: "backoff", watchError: "watch failed" });
    expect(reviewLinkOf(state)).toBe("reconnecting");
    // The server's 1011 close that follows changes nothing.
    expect(run([{ type: "closed" }], state).effects).toEqual([]);
  });

  it("given a watcher error with retry: false (too many folders), then it stops the socket for good and fetches on Refresh only", () => {
    const tooMany = message("review_watch_error", { message: "This repository has more than 3 folders to watch", retry: false });
    const { state, effects } = run([tooMany], readyState());
    expect(effects).toEqual([{ type: "disconnect" }, { type: "fetch", cwd: CWD }]);
    expect(state).toMatchObject({ phase: "manual", watchError: "This repository has more than 3 folders to watch" });
    expect(reviewLinkOf(state)).toBe("manual");
    // The close that follows schedules nothing; Refresh fetches.
    const after = run([{ type: "fetched", available: true }, { type: "closed" }, { type: "refresh" }], state);
    expect(after.effects).toEqual([{ type: "fetch", cwd: CWD }]);
    expect(after.state.phase).toBe("manual");
  });

  it("backs off 1 s, 2 s, 4 s … up to 30 s, and starts over once a connection is ready", () => {
    let state = readyState();
    const delays: number[] = [];
    for (let i = 0; i < 8; i++) {
      const closed = step(state, { type: "closed" });
      const scheduled = closed.effects.find((effect) => effect.type === "schedule");
      if (scheduled?.type !== "schedule") throw new Error("no schedule");
      delays.push(scheduled.delayMs);
      state = step(closed.state, { type: "retry" }).state;
      expect(reviewLinkOf(state)).toBe("reconnecting");
    }
    expect(delays).toEqual([1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000]);
    state = run([{ type: "opened" }, ready], state).state;
    expect(state.attempt).toBe(0);
    expect(step(state, { type: "closed" }).effects).toEqual([{ type: "schedule", delayMs: 1000 }]);
  });

  it("fetches again after every reconnect (changes may have happened meanwhile)", () => {
    const { effects } = run([{ type: "closed" }, { type: "retry" }, { type: "opened" }, ready], readyState());
    expect(effects).toEqual([
      { type: "schedule", delayMs: 1000 },
      { type: "connect", cwd: CWD },
      { type: "fetch", cwd: CWD },
    ]);
  });

  it("given another folder, then it restarts the subscription there (cancelling a wait, closing a socket)", () => {
    expect(run([{ type: "cwd", cwd: "/other" }], readyState()).effects).toEqual([
      { type: "disconnect" },
      { type: "connect", cwd: "/other" },
    ]);
    const waiting = run([{ type: "closed" }], readyState()).state;
    const moved = run([{ type: "cwd", cwd: "/other" }], waiting);
    expect(moved.effects).toEqual([{ type: "cancelSchedule" }, { type: "connect", cwd: "/other" }]);
    expect(moved.state.attempt).toBe(0);
    expect(run([{ type: "cwd", cwd: "/other" }], moved.state).effects).toEqual([]);
  });

  it("stop closes the socket or cancels the wait", () => {
    expect(run([{ type: "stop" }], readyState()).effects).toEqual([{ type: "disconnect" }]);
    expect(run([{ type: "closed" }, { type: "stop" }], readyState()).effects).toEqual([
      { type: "schedule", delayMs: 1000 },
      { type: "cancelSchedule" },
    ]);
  });

  it("reviewReconnectDelay doubles from the base and stops at the cap", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 60 }), (attempt) => {
        const delay = reviewReconnectDelay(attempt);
        return delay >= REVIEW_BACKOFF.baseMs && delay <= REVIEW_BACKOFF.maxMs && delay <= reviewReconnectDelay(attempt + 1);
      }),
    );
  });
});

describe("decodeReviewMessage", () => {
  it("reads { type, data? } and refuses the rest", () => {
    expect(decodeReviewMessage('{"type":"ping"}')).toEqual({ type: "ping" });
    expect(decodeReviewMessage('{"type":"review_change","data":{"root":"/r"}}')).toEqual({ type: "review_change", data: { root: "/r" } });
    for (const text of ["", "null", "[]", '{"type":1}', "{"]) expect(decodeReviewMessage(text)).toBeNull();
  });
});

describe("review socket machine: laws", () => {
  type Event =
    | { kind: "open" }
    | { kind: "ready" }
    | { kind: "change" }
    | { kind: "ping" }
    | { kind: "unavailable" }
    | { kind: "watchError" }
    | { kind: "close" }
    | { kind: "retry" }
    | { kind: "refresh" }
    | { kind: "finish"; available: boolean }
    | { kind: "cwd"; n: number }
    | { kind: "stop" }
    | { kind: "start"; watch: boolean };
  const event: fc.Arbitrary<Event> = fc.oneof(
    fc.constant<Event>({ kind: "open" }),
    fc.constant<Event>({ kind: "ready" }),
    fc.constant<Event>({ kind: "change" }),
    fc.constant<Event>({ kind: "change" }),
    fc.constant<Event>({ kind: "ping" }),
    fc.constant<Event>({ kind: "unavailable" }),
    fc.constant<Event>({ kind: "watchError" }),
    fc.constant<Event>({ kind: "close" }),
    fc.constant<Event>({ kind: "retry" }),
    fc.constant<Event>({ kind: "refresh" }),
    fc.record({ kind: fc.constant("finish" as const), available: fc.boolean() }),
    fc.record({ kind: fc.constant("cwd" as const), n: fc.integer({ min: 0, max: 2 }) }),
    fc.constant<Event>({ kind: "stop" }),
    fc.record({ kind: fc.constant("start" as const), watch: fc.boolean() }),
  );

  function inputOf(e: Event): ReviewSocketInput {
    switch (e.kind) {
      case "open":
        return { type: "opened" };
      case "ready":
        return ready;
      case "change":
        return change;
      case "ping":
        return message("ping");
      case "unavailable":
        return unavailable;
      case "watchError":
        return watchError();
      case "close":
        return { type: "closed" };
      case "retry":
        return { type: "retry" };
      case "refresh":
        return { type: "refresh" };
      case "finish":
        return { type: "fetched", available: e.available };
      case "cwd":
        return { type: "cwd", cwd: `/repo-${e.n}` };
      case "stop":
        return { type: "stop" };
      case "start":
        return { type: "start", cwd: CWD, watch: e.watch };
    }
  }

  it("never two fetches in flight; a fetch is asked for only when none runs; nothing is lost (a pending fetch runs)", () => {
    fc.assert(
      fc.property(fc.array(event, { maxLength: 120 }), (events) => {
        let state = run([{ type: "start", cwd: CWD, watch: true }]).state;
        let inFlight = 0;
        for (const e of events) {
          // The driver answers only fetches that are in flight.
          if (e.kind === "finish" && inFlight === 0) continue;
          const before = state;
          const next = step(state, inputOf(e));
          state = next.state;
          if (e.kind === "finish") inFlight -= 1;
          inFlight += fetches(next.effects);
          expect(inFlight).toBeLessThanOrEqual(1);
          expect(state.fetching).toBe(inFlight === 1);
          if (state.fetchPending) expect(state.fetching).toBe(true);
          // A finished fetch with one pending starts it.
          if (e.kind === "finish" && before.fetchPending) expect(fetches(next.effects)).toBe(1);
        }
      }),
      { numRuns: 400 },
    );
  });

  it("never reconnects after unavailable (until a fetch finds a repository, or a new start or folder)", () => {
    fc.assert(
      fc.property(fc.array(event, { maxLength: 120 }), (events) => {
        let state = run([{ type: "start", cwd: CWD, watch: true }]).state;
        let inFlight = 0;
        /** Set by review_unavailable; cleared by what may legitimately subscribe again. */
        let gone = false;
        for (const e of events) {
          if (e.kind === "finish" && inFlight === 0) continue;
          const wasUnavailable = state.phase === "unavailable";
          const next = step(state, inputOf(e));
          if (e.kind === "finish") inFlight -= 1;
          inFlight += fetches(next.effects);
          if (next.state.phase === "unavailable" && !wasUnavailable) gone = true;
          const reopens = e.kind === "finish" ? e.available : e.kind === "start" || e.kind === "cwd";
          if (gone && reopens) gone = false;
          if (gone) {
            expect(types(next.effects)).not.toContain("connect");
            expect(types(next.effects)).not.toContain("schedule");
          }
          // Never a socket without the watch: manual mode connects nowhere.
          if (state.phase === "manual") expect(types(next.effects)).not.toContain("connect");
          state = next.state;
        }
      }),
      { numRuns: 400 },
    );
  });

  it("every connect is preceded by closing the previous socket (never two sockets at once)", () => {
    fc.assert(
      fc.property(fc.array(event, { maxLength: 120 }), (events) => {
        let state = initialReviewSocketState();
        let open = false;
        let inFlight = 0;
        for (const e of events) {
          if (e.kind === "finish" && inFlight === 0) continue;
          const next = step(state, inputOf(e));
          if (e.kind === "finish") inFlight -= 1;
          inFlight += fetches(next.effects);
          for (const effect of next.effects) {
            if (effect.type === "connect") {
              expect(open).toBe(false);
              open = true;
            }
            if (effect.type === "disconnect") open = false;
          }
          // A socket that closed by itself is gone too (the driver feeds `closed`).
          if (e.kind === "close" && state.phase !== "stopped") open = open && next.state.phase !== "backoff";
          state = next.state;
          // Without a live phase there is no socket.
          if (!["connecting", "open", "ready"].includes(state.phase)) expect(open).toBe(false);
        }
      }),
      { numRuns: 400 },
    );
  });
});

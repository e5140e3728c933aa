/**
 * Worker supervision's pure decisions: the watchdog's verdict and where a replacement worker reopens the
 * session. (Replacing real workers is covered by watchdog.int.test.ts and runtime-host.*.int.test.ts.)
 */
import { describe, expect, it } from "vitest";
import { SUBAGENT_MARKER_VERSION } from "../../domain/subagent/subagent-marker.ts";
import type { ChildSessionOptions } from "../runtime-protocol/runtime-protocol.ts";
import { type ProbeInputs, probeVerdict, type ReopenIdentity, reopenTarget } from "./runtime-supervision.ts";

const LIMITS = { livenessMs: 30_000, noProgressMs: 900_000 };

function inputs(overrides: Partial<ProbeInputs> = {}): ProbeInputs {
  return { now: 1_000_000, lastMessageAt: 1_000_000, lastProgressAt: 1_000_000, piBusy: false, waitingForUser: false, ...overrides };
}

describe("probeVerdict", () => {
  it("a worker that sent something within the liveness limit and makes progress is ok", () => {
    expect(probeVerdict(inputs({ lastMessageAt: 1_000_000 - 30_000, piBusy: true }), LIMITS)).toEqual({ verdict: "ok" });
  });

  it("a worker silent for longer than the liveness limit is unresponsive", () => {
    expect(probeVerdict(inputs({ lastMessageAt: 1_000_000 - 30_001 }), LIMITS)).toEqual({
      verdict: "unresponsive",
      reason: "worker sent nothing for 30001 ms",
    });
  });

  it("pi busy without progress for longer than the limit is stalled", () => {
    expect(probeVerdict(inputs({ piBusy: true, lastProgressAt: 1_000_000 - 900_001 }), LIMITS)).toEqual({
      verdict: "stalled",
      reason: "no progress for 900001 ms while busy",
    });
  });

  it("no progress is expected from an idle pi or while a confirmation waits for the user", () => {
    const old = 1_000_000 - 2_000_000;
    expect(probeVerdict(inputs({ lastProgressAt: old }), LIMITS).verdict).toBe("ok");
    expect(probeVerdict(inputs({ piBusy: true, waitingForUser: true, lastProgressAt: old }), LIMITS).verdict).toBe("ok");
  });

  it("non-positive limits disable their check", () => {
    const stale = inputs({ lastMessageAt: 0, lastProgressAt: 0, piBusy: true });
    expect(probeVerdict(stale, { livenessMs: 0, noProgressMs: -1 })).toEqual({ verdict: "ok" });
  });
});

describe("reopenTarget", () => {
  const identity: ReopenIdentity = { sessionId: "s1", sessionFile: "/sessions/s1.jsonl", cwd: "/project", kind: "research", child: null };

  it("a session pi has written reopens from its file", () => {
    expect(reopenTarget(identity, () => true)).toEqual({ sessionFile: "/sessions/s1.jsonl" });
  });

  it("a never-saved session reopens as a new one with the same id, kind and child options", () => {
    const child: ChildSessionOptions = {
      parentSession: "/sessions/parent.jsonl",
      marker: {
        version: SUBAGENT_MARKER_VERSION,
        parentSessionId: "p1",
        parentSessionPath: "/sessions/parent.jsonl",
        toolCallId: null,
        agent: null,
        readOnlyBash: false,
      },
    };
    expect(reopenTarget({ ...identity, child }, () => false)).toEqual({
      new: { cwd: "/project", kind: "research", child, sessionId: "s1" },
    });
  });

  it("before the worker reported an id, the new session gets a fresh one", () => {
    expect(reopenTarget({ ...identity, sessionId: "", sessionFile: null, kind: null }, () => true)).toEqual({ new: { cwd: "/project" } });
  });
});

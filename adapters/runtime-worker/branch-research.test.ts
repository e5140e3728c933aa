/**
 * branchResearchState and watchResearchAppends on pi's real in-memory SessionManager.
 */
import { SessionManager } from "@earendil-works/pi-coding-agent";
import { describe, expect, it } from "vitest";
import { researchEventEntryData } from "../../domain/research/research-event.ts";
import { RESEARCH_CUSTOM_TYPE, type ResearchEvent } from "../../domain/research/research-types.ts";
import { branchResearchState, watchResearchAppends } from "./branch-research.ts";

function append(manager: SessionManager, event: ResearchEvent): string {
  return manager.appendCustomEntry(RESEARCH_CUSTOM_TYPE, researchEventEntryData(event));
}

function userMessage(manager: SessionManager, text: string): string {
  return manager.appendMessage({ role: "user", content: text, timestamp: 1 });
}

describe("branchResearchState", () => {
  it("is null for a session without research entries, also after it grows", () => {
    const manager = SessionManager.inMemory("/tmp/project");
    expect(branchResearchState(manager)).toBeNull();
    userMessage(manager, "hello");
    manager.appendCustomEntry("other-extension", { x: 1 });
    expect(branchResearchState(manager)).toBeNull();
  });

  it("folds the current branch, reuses the result while nothing changed and follows appends and branch moves", () => {
    const manager = SessionManager.inMemory("/tmp/project");
    const sessionId = manager.getSessionId();
    append(manager, { kind: "session", sessionId });
    const planned = append(manager, { kind: "plan", sessionId, strategy: "s", threads: [{ id: "T1", title: "One", task: "t" }] });
    const first = branchResearchState(manager);
    expect(first).toMatchObject({ sessionId, phase: "plan", threadCount: 1, objective: "" });
    expect(branchResearchState(manager)).toBe(first);

    append(manager, { kind: "objective", sessionId, objective: "Why is the sky blue?" });
    append(manager, { kind: "objective", sessionId: "someone-else", objective: "ignored" });
    const second = branchResearchState(manager);
    expect(second).not.toBe(first);
    expect(second?.objective).toBe("Why is the sky blue?");

    // Branch-local: back at the plan, the objective is not on the branch.
    manager.branch(planned);
    expect(branchResearchState(manager)?.objective).toBe("");
  });

  it("starts over for a new session in the same manager", () => {
    const manager = SessionManager.inMemory("/tmp/project");
    append(manager, { kind: "session", sessionId: manager.getSessionId() });
    expect(branchResearchState(manager)).not.toBeNull();
    manager.newSession();
    expect(branchResearchState(manager)).toBeNull();
  });
});

describe("watchResearchAppends", () => {
  it("reports research appends only, never breaks an append, and can be undone", () => {
    const manager = SessionManager.inMemory("/tmp/project");
    const sessionId = manager.getSessionId();
    let calls = 0;
    const undo = watchResearchAppends(manager, () => {
      calls += 1;
      throw new Error("listener failure");
    });
    const id = append(manager, { kind: "session", sessionId });
    manager.appendCustomEntry("other-extension", {});
    expect(calls).toBe(1);
    expect(manager.getEntry(id)).toMatchObject({ type: "custom", customType: RESEARCH_CUSTOM_TYPE });

    undo();
    append(manager, { kind: "objective", sessionId, objective: "x" });
    expect(calls).toBe(1);
    expect(Object.hasOwn(manager, "appendCustomEntry")).toBe(false);
    expect(branchResearchState(manager)?.objective).toBe("x");
  });
});

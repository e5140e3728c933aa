/** The agent gate and the commit message rules. */
import { describe, expect, it } from "vitest";
import { agentGate, COMMIT_MESSAGE_MAX_BYTES, commitMessageFailure, commitSummary, utf8Length } from "./review-action-rules.ts";

describe("agentGate", () => {
  it("lets an action run when no agent is mid-turn, or when the person confirmed", () => {
    expect(agentGate([], undefined)).toBeNull();
    expect(agentGate([], false)).toBeNull();
    expect(agentGate(["s1"], true)).toBeNull();
  });

  it("names the busy sessions otherwise", () => {
    expect(agentGate(["s1"], undefined)).toBe(
      "The agent is working in this repository (session s1). Wait for its turn to end, or confirm to act anyway.",
    );
    expect(agentGate(["s1", "s2"], false)).toMatch(/\(sessions s1, s2\)/);
  });
});

describe("commit message rules", () => {
  it("needs text, no NUL, at most 64 KiB of UTF-8", () => {
    expect(commitMessageFailure("Fix the parser")).toBeNull();
    expect(commitMessageFailure(" \n\t ")).toBe("Write a commit message.");
    expect(commitMessageFailure("a\0b")).toMatch(/NUL/);
    expect(commitMessageFailure("x".repeat(COMMIT_MESSAGE_MAX_BYTES))).toBeNull();
    expect(commitMessageFailure("x".repeat(COMMIT_MESSAGE_MAX_BYTES + 1))).toMatch(/too long/);
    expect(commitMessageFailure("é".repeat(COMMIT_MESSAGE_MAX_BYTES / 2 + 1))).toMatch(/too long/);
  });

  it("counts UTF-8 bytes as an encoder does", () => {
    for (const text of ["", "abc", "é", "€", "😀", "a\ud800b", "mixed ünï 😀 €"]) {
      expect(utf8Length(text), JSON.stringify(text)).toBe(new TextEncoder().encode(text).length);
    }
  });

  it("summarises a stored message by its first non-blank line", () => {
    expect(commitSummary("Fix the parser\n\nDetails\n")).toBe("Fix the parser");
    expect(commitSummary("\n\n  Title  \nbody")).toBe("Title");
    expect(commitSummary("")).toBe("");
  });
});

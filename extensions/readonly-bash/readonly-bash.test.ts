import { SessionManager, type ToolCallEvent } from "@earendil-works/pi-coding-agent";
import { describe, expect, it } from "vitest";
import { SUBAGENT_CUSTOM_TYPE } from "../../domain/session-summary.ts";
import type { SubagentMarkerData } from "../../domain/subagent/subagent-marker.ts";
import { guardToolCall, isReadOnlyBashSession } from "./index.ts";

function session(marker: SubagentMarkerData | null): { sessionManager: SessionManager } {
  const sessionManager = SessionManager.inMemory("/tmp");
  if (marker !== null) sessionManager.appendCustomEntry(SUBAGENT_CUSTOM_TYPE, marker);
  return { sessionManager };
}

function marker(readOnlyBash: boolean): SubagentMarkerData {
  return { version: 1, parentSessionId: "p", parentSessionPath: null, toolCallId: null, agent: "researcher", readOnlyBash };
}

function bash(command: unknown): ToolCallEvent {
  return { type: "tool_call", toolCallId: "c1", toolName: "bash", input: { command } } as ToolCallEvent;
}

describe("the read-only bash guard", () => {
  it("does nothing without the marker or when the marker does not ask for read-only bash", () => {
    expect(isReadOnlyBashSession(session(null))).toBe(false);
    expect(guardToolCall(bash("rm -rf x"), session(null))).toBeUndefined();
    expect(guardToolCall(bash("rm -rf x"), session(marker(false)))).toBeUndefined();
  });

  it("blocks bash commands that are not read-only in a read-only session and lets read-only ones run", () => {
    const ctx = session(marker(true));
    expect(isReadOnlyBashSession(ctx)).toBe(true);
    const blocked = guardToolCall(bash("rm -rf x"), ctx);
    expect(blocked?.block).toBe(true);
    expect(blocked?.reason).toContain("read-only");
    expect(blocked?.reason).toContain("rm");
    expect(guardToolCall(bash("ls"), ctx)).toBeUndefined();
    expect(guardToolCall(bash(42), ctx)).toMatchObject({ block: true });
  });

  it("refuses pi 1.x's powershell tool in a read-only session (its commands are not classified), and only there", () => {
    const powershell = {
      type: "tool_call",
      toolCallId: "c3",
      toolName: "powershell",
      input: { command: "Get-ChildItem" },
    } as ToolCallEvent;
    expect(guardToolCall(powershell, session(marker(true)))).toMatchObject({ block: true, reason: expect.stringContaining("PowerShell") });
    expect(guardToolCall(powershell, session(marker(false)))).toBeUndefined();
  });

  it("leaves other tools alone", () => {
    const write = { type: "tool_call", toolCallId: "c2", toolName: "write", input: { path: "x", content: "y" } } as ToolCallEvent;
    expect(guardToolCall(write, session(marker(true)))).toBeUndefined();
  });
});

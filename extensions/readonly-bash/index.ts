/**
 * Leyline's bundled read-only bash guard (spec/deep-research.md "Research workers": a researcher may run bash
 * only for commands that create, modify, move, rename or delete no file).
 *
 * Loaded in every runtime, it does nothing unless the session's current branch carries the subagent marker
 * (`leyline-subagent`, written by the worker before extensions bind) with `readOnlyBash: true`. In such a
 * session every `bash` tool call goes through `classifyBashCommand`; a command that is not read-only is
 * blocked (`{ block: true, reason }`: pi answers the model with an error tool result and runs nothing). pi 1.x's
 * `powershell` tool (its shell on Windows) is refused whole there: its commands are not classified. The marker is
 * looked up at each call, so the guard follows the session the runtime currently hosts.
 */
import type { ExtensionAPI, ExtensionContext, ToolCallEvent, ToolCallEventResult } from "@earendil-works/pi-coding-agent";
import { classifyBashCommand } from "../../domain/readonly-commands/readonly-bash.ts";
import { subagentMarkerOf } from "../../domain/subagent/subagent-marker.ts";

/** The `reason` pi reports to the model for a blocked command. */
export function readOnlyBashRefusal(reason: string, command: string): string {
  return `This session may only run read-only bash commands; refused \`${command}\`: ${reason}`;
}

/** Whether the session the context belongs to is a subagent child limited to read-only bash. */
export function isReadOnlyBashSession(ctx: Pick<ExtensionContext, "sessionManager">): boolean {
  return subagentMarkerOf(ctx.sessionManager.getBranch())?.readOnlyBash === true;
}

/** The guard's decision for one tool call (undefined lets it run). */
export function guardToolCall(event: ToolCallEvent, ctx: Pick<ExtensionContext, "sessionManager">): ToolCallEventResult | undefined {
  const toolName: string = event.toolName;
  if ((toolName !== "bash" && toolName !== "powershell") || !isReadOnlyBashSession(ctx)) return undefined;
  if (toolName === "powershell") {
    return {
      block: true,
      reason: "This session may only run read-only bash commands; PowerShell commands are not checked, so none may run.",
    };
  }
  const input: unknown = event.input;
  const command = typeof input === "object" && input !== null ? (input as { command?: unknown }).command : undefined;
  if (typeof command !== "string") return { block: true, reason: readOnlyBashRefusal("the command is missing", "") };
  const verdict = classifyBashCommand(command);
  if (verdict.readOnly) return undefined;
  return { block: true, reason: readOnlyBashRefusal(verdict.reason, verdict.command) };
}

export default function readOnlyBashExtension(pi: ExtensionAPI): void {
  pi.on("tool_call", (event, ctx) => guardToolCall(event, ctx));
}

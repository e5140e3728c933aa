/**
 * Leyline's bundled subagent extension: the `subagent` tool (single task, parallel `tasks` with at most four
 * running at once, or a `chain`), run through Leyline's execution route POST /api/pi/subagent at
 * `LEYLINE_API_URL` (the runtime worker's environment). The name `researcher` always means the reserved
 * built-in research worker (domain/subagent/researcher-agent.ts): every discovered tool except write and
 * edit, read-only bash, the parent's model and thinking level unless the task names them; in a research
 * session its runs update the research threads and register their sources (subagent-run.ts). Other names are
 * user (`<agentDir>/agents/*.md`) or project (`.pi/agents/*.md`) agents; their model and thinking come from
 * POST /api/pi/subagents/resolve (stored overrides, then the definition). At session start, research threads
 * left running by an interrupted run are completed from their finished child session or marked interrupted
 * (thread-recovery.ts).
 */
import { getAgentDir, type ExtensionAPI, type ToolDefinition } from "@earendil-works/pi-coding-agent";
import { appendResearchEvents, currentResearchState } from "../research/research-session.ts";
import { leylineApiUrl, postJson, runSubagentRequest } from "./subagent-client.ts";
import { SubagentSchema } from "./subagent-params.ts";
import { runSubagentTool, type SubagentDetails, type SubagentRunDeps } from "./subagent-run.ts";
import { findRecoveredChildren, interruptedThreadEvents, type RecoveredChild } from "./thread-recovery.ts";

export const SUBAGENT_TOOL = "subagent";

function text(value: unknown): string | undefined {
  return typeof value === "string" && value.trim() !== "" ? value : undefined;
}

/** The production wiring of a call's surroundings. */
export function subagentDeps(pi: Pick<ExtensionAPI, "appendEntry" | "getThinkingLevel">): SubagentRunDeps {
  return {
    appendEvents: (events) => appendResearchEvents(pi, events),
    thinkingLevel: () => pi.getThinkingLevel(),
    agentDir: () => getAgentDir(),
    now: () => Date.now(),
    run: (request, signal) => runSubagentRequest(request, signal),
    resolve: async (input) => {
      const body = await postJson(leylineApiUrl(), "/api/pi/subagents/resolve", input);
      const record = typeof body === "object" && body !== null ? (body as Record<string, unknown>) : {};
      const model = text(record["model"]);
      const thinking = text(record["thinking"]);
      return { ...(model ? { model } : {}), ...(thinking ? { thinking } : {}) };
    },
  };
}

export function subagentTool(deps: SubagentRunDeps): ToolDefinition<typeof SubagentSchema, SubagentDetails> {
  return {
    name: SUBAGENT_TOOL,
    label: "Subagent",
    description: [
      "Delegate tasks to subagents, each in its own child session with an isolated context.",
      "Modes: single ({agent, task}), parallel ({tasks: [{agent, task}, ...]}, at most four run at once, the rest wait), chain ({chain: [{agent, task}, ...]}, {previous} is replaced by the previous step's output).",
      'The reserved agent "researcher" investigates one research thread read-only; give its task as "<thread id>: <task>". Other agents come from user and project agent files.',
    ].join(" "),
    promptSnippet: "Delegate tasks to subagents (single, parallel or chain); researcher runs research threads",
    parameters: SubagentSchema,
    execute: (toolCallId, params, signal, onUpdate, ctx) => runSubagentTool(deps, toolCallId, params, signal, onUpdate, ctx),
  };
}

export default function subagentExtension(pi: ExtensionAPI): void {
  pi.registerTool(subagentTool(subagentDeps(pi)));

  // Threads still running when a session starts were interrupted (thread-recovery.ts). The research
  // extension's session_start (fork replay) runs first: extensions load in folder-name order.
  pi.on("session_start", (_event, ctx) => {
    const sessionManager = ctx.sessionManager;
    const running = currentResearchState(sessionManager)?.threads.filter((thread) => thread.status === "running") ?? [];
    if (running.length === 0) return;
    const file = sessionManager.getSessionFile();
    const children = file ? findRecoveredChildren(file, sessionManager.getSessionId(), running) : new Map<string, RecoveredChild>();
    for (const thread of running) {
      const state = currentResearchState(sessionManager);
      if (state === null) return;
      appendResearchEvents(pi, interruptedThreadEvents(state, thread, children.get(thread.id) ?? null, Date.now()));
    }
  });
}

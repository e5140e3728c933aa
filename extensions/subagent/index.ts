/**
 * Leyline's bundled subagent extension: the `subagent` tool (single task, parallel `tasks` with at most four
 * running at once, or a `chain`), run through Leyline's execution route POST /api/pi/subagent at
 * `LEYLINE_API_URL` (the runtime worker's environment). The name `researcher` always means the reserved
 * built-in research worker (domain/subagent/researcher-agent.ts): every discovered tool except write and
 * edit, read-only bash, the parent's model and thinking level unless the task names them; in a research
 * session its runs update the research threads and register their sources (subagent-run.ts). Other names are
 * user (`<agentDir>/agents/*.md`) or project (`.pi/agents/*.md`) agents; their model and thinking come from
 * POST /api/pi/subagents/resolve (stored overrides, then the definition). At session start, research threads
 * left running by an interrupted run are completed from their finished child session, re-run in the
 * background, or marked interrupted (thread-recovery.ts decides, thread-rerun.ts runs). At session shutdown
 * the re-runs are aborted, and runs cut from then on record nothing (their threads stay running).
 */
import { getAgentDir, type ExtensionAPI, type ToolDefinition } from "@earendil-works/pi-coding-agent";
import { RESEARCH_CUSTOM_TYPE } from "../../domain/research/research-types.ts";
import { STOPPING_SESSIONS_KEY } from "../../domain/runtime/stopping-sessions.ts";
import { appendResearchEvents, currentResearchState } from "../research/research-session.ts";
import { hasLeylineApiUrl, leylineApiUrl, postJson, runSubagentRequest } from "./subagent-client.ts";
import { SubagentSchema } from "./subagent-params.ts";
import { runSubagentTool, type SubagentDetails, type SubagentRunDeps } from "./subagent-run.ts";
import { findRecoveredChildren, planThreadRecovery, type RecoveredChild } from "./thread-recovery.ts";
import { recoverThreads, runReruns, type ThreadRerunDeps } from "./thread-rerun.ts";

export const SUBAGENT_TOOL = "subagent";

function text(value: unknown): string | undefined {
  return typeof value === "string" && value.trim() !== "" ? value : undefined;
}

/** The production wiring of a call's surroundings. */
export function subagentDeps(
  pi: Pick<ExtensionAPI, "appendEntry" | "getThinkingLevel">,
  stopping: () => boolean = () => false,
): SubagentRunDeps {
  return {
    stopping,
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

/** Whether Leyline's worker host is shutting the session down (domain/runtime/stopping-sessions.ts). */
function hostStopping(sessionId: string): boolean {
  const stopping = (globalThis as Record<symbol, unknown>)[Symbol.for(STOPPING_SESSIONS_KEY)];
  return stopping instanceof Set && stopping.has(sessionId);
}

export default function subagentExtension(pi: ExtensionAPI): void {
  let shutdown = false;
  let sessionId = "";
  const stopping = (): boolean => shutdown || (sessionId !== "" && hostStopping(sessionId));
  const reruns = new AbortController();
  pi.registerTool(subagentTool(subagentDeps(pi, stopping)));

  // Threads still running when a session starts were interrupted (thread-recovery.ts). The research
  // extension's session_start (fork replay) runs first: extensions load in folder-name order.
  pi.on("session_start", (_event, ctx) => {
    const sessionManager = ctx.sessionManager;
    sessionId = sessionManager.getSessionId();
    const state = currentResearchState(sessionManager);
    const running = state?.threads.filter((thread) => thread.status === "running") ?? [];
    if (state === null || running.length === 0) return;
    const file = sessionManager.getSessionFile();
    const children = file ? findRecoveredChildren(file, sessionManager.getSessionId(), running) : new Map<string, RecoveredChild>();
    const deps: ThreadRerunDeps = {
      state: () => currentResearchState(sessionManager),
      appendEvents: (events) => appendResearchEvents(pi, events),
      appendData: (data) => pi.appendEntry(RESEARCH_CUSTOM_TYPE, data),
      run: (request, signal) => runSubagentRequest(request, signal),
      now: () => Date.now(),
      stopping,
    };
    const plan = planThreadRecovery(state, sessionManager.getBranch(), children, hasLeylineApiUrl());
    const started = recoverThreads(deps, plan);
    if (started.length === 0) return;
    const parent = {
      cwd: ctx.cwd,
      ...(file ? { sessionFile: file } : {}),
      sessionId: sessionManager.getSessionId(),
      model: ctx.model ? { provider: ctx.model.provider, id: ctx.model.id } : undefined,
      thinkingLevel: pi.getThinkingLevel(),
    };
    void runReruns(deps, parent, started, reruns.signal);
  });

  pi.on("session_shutdown", () => {
    shutdown = true;
    reruns.abort();
  });
}

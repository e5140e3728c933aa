/**
 * One call of the `subagent` tool: resolves the agents, runs the tasks through Leyline's execution route
 * (single, parallel through a four-slot semaphore, or chain), streams progress, and — for the reserved
 * researcher in a research session — keeps the research threads and the source ledger up to date
 * (researcher-threads.ts). Every research write folds the branch and appends in one synchronous step, so
 * parallel workers finishing together never register a source twice.
 *
 * A researcher run cut because the session or the server is stopping (`deps.stopping()`, or the route's 503)
 * records nothing: its thread stays `running` in the file, so that the next start of the session recovers it
 * (thread-recovery.ts: completed from its child, re-run, or marked interrupted).
 */
import type { AgentToolResult, AgentToolUpdateCallback, ExtensionContext } from "@earendil-works/pi-coding-agent";
import {
  RESEARCH_RESULT_TAG,
  RESEARCHER_AGENT_NAME,
  RESEARCHER_EXCLUDED_TOOLS,
  RESEARCHER_SYSTEM_PROMPT,
} from "../../domain/subagent/researcher-agent.ts";
import type { ResearchEvent, ResearchState } from "../../domain/research/research-types.ts";
import { currentResearchState } from "../research/research-session.ts";
import { agentNames, discoverFileAgents, findAgent, type RunnableAgent } from "./agent-files.ts";
import { concurrencyLimit } from "./concurrency-limit.ts";
import { MAX_CONCURRENT_TASKS, subagentPlan, type SubagentMode, type SubagentTaskSpec } from "./subagent-params.ts";
import { finalOutput, isServerStopping, type SubagentRequest, type SubagentResponse, type SubagentUsage } from "./subagent-client.ts";
import {
  researcherTask,
  threadCompletion,
  threadQueuedEvents,
  threadStartEvents,
  type ResearcherOutcome,
  type ResearcherTask,
} from "./researcher-threads.ts";

export type SubagentTaskStatus = "queued" | "running" | "done" | "error";

export interface SubagentTaskResult {
  agent: string;
  task: string;
  status: SubagentTaskStatus;
  /** The research thread (researcher tasks in a research session). */
  threadId?: string;
  /** The child's final text (bounded). */
  output: string;
  error?: string;
  childSession?: { path: string; id: string; cwd: string };
  usage?: SubagentUsage;
  model?: string;
  thinkingLevel?: string;
  stopReason?: string;
  /** Ledger ids of the sources registered from this result. */
  sourceIds?: number[];
  /** Sources the ledger did not take, with the reason. */
  rejected?: string[];
}

export interface SubagentDetails {
  mode: SubagentMode;
  results: SubagentTaskResult[];
}

/** What a call needs from its surroundings (the extension wires the real ones; tests may too). */
export interface SubagentRunDeps {
  appendEvents: (events: readonly ResearchEvent[]) => void;
  thinkingLevel: () => string;
  agentDir: () => string;
  now: () => number;
  run: (request: SubagentRequest, signal?: AbortSignal) => Promise<SubagentResponse>;
  /** Effective model and thinking of a file agent (stored overrides; POST /api/pi/subagents/resolve). */
  resolve: (input: {
    agentKey: string;
    cwd: string;
    sessionPath?: string;
    staticModel?: string;
    staticThinking?: string;
  }) => Promise<{ model?: string; thinking?: string }>;
  /** True once the session is shutting down (its runs are being cut, not failing). */
  stopping?: () => boolean;
}

/** Where a subagent request comes from: the parent session and its tool call. */
export interface SubagentRequestBase {
  cwd: string;
  parentSessionPath?: string;
  parentSessionId: string;
  toolCallId: string;
}

/**
 * The execution-route request of a reserved researcher task: every tool but write and edit, read-only bash,
 * the researcher prompt, and the task's model and thinking level, else the parent's (`parentModel`,
 * `parentThinking`). Shared by the tool and the re-run of interrupted threads (thread-rerun.ts).
 */
export function researcherRequest(
  base: SubagentRequestBase,
  task: string,
  spec: { model?: string; thinking?: string },
  parentModel: { provider: string; id: string } | undefined,
  parentThinking: string,
): SubagentRequest {
  const model = spec.model ?? parentModel;
  return {
    task,
    cwd: base.cwd,
    ...(base.parentSessionPath ? { parentSessionPath: base.parentSessionPath } : {}),
    parentSessionId: base.parentSessionId,
    _toolCallId: base.toolCallId,
    agent: RESEARCHER_AGENT_NAME,
    excludeTools: [...RESEARCHER_EXCLUDED_TOOLS],
    systemPrompt: RESEARCHER_SYSTEM_PROMPT,
    readOnlyBash: true,
    ...(model !== undefined ? { model } : {}),
    thinkingLevel: spec.thinking ?? parentThinking,
  };
}

const OUTPUT_LIMIT = 20_000;
const LEAD_OUTPUT_LIMIT = 8_000;

interface Job {
  index: number;
  spec: SubagentTaskSpec;
  agent: RunnableAgent;
  research: ResearcherTask | null;
}

function bounded(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}\n[… ${text.length - max} more characters]`;
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

const RESULT_BLOCK = new RegExp(`<${RESEARCH_RESULT_TAG}>[\\s\\S]*?</${RESEARCH_RESULT_TAG}>`, "g");

export async function runSubagentTool(
  deps: SubagentRunDeps,
  toolCallId: string,
  params: unknown,
  signal: AbortSignal | undefined,
  onUpdate: AgentToolUpdateCallback<SubagentDetails> | undefined,
  ctx: ExtensionContext,
): Promise<AgentToolResult<SubagentDetails>> {
  const plan = subagentPlan(params);
  const fileAgents = discoverFileAgents(deps.agentDir(), ctx.cwd);
  if (!plan.ok) throw new Error(`${plan.error}. Available agents: ${agentNames(fileAgents).join(", ")}`);
  const { mode } = plan;

  const unknown = plan.tasks.filter((spec) => findAgent(spec.agent, fileAgents) === null).map((spec) => spec.agent);
  if (unknown.length > 0)
    throw new Error(
      `Unknown agent${unknown.length === 1 ? "" : "s"}: ${[...new Set(unknown)].join(", ")}. Available agents: ${agentNames(fileAgents).join(", ")}`,
    );

  const sessionManager = ctx.sessionManager;
  const researchAtStart = currentResearchState(sessionManager);
  const taken: string[] = [];
  const jobs: Job[] = plan.tasks.map((spec, index) => {
    const agent = findAgent(spec.agent, fileAgents) as RunnableAgent;
    let research: ResearcherTask | null = null;
    if (agent.kind === "researcher" && researchAtStart !== null) {
      research = researcherTask(researchAtStart, spec.task, taken, spec.threadId);
      taken.push(research.threadId);
    }
    return { index, spec, agent, research };
  });

  const results: SubagentTaskResult[] = jobs.map((job) => ({
    agent: job.agent.name,
    task: job.research?.task ?? job.spec.task,
    status: "queued",
    output: "",
    ...(job.research ? { threadId: job.research.threadId } : {}),
  }));

  // Research writes: fold the current branch and append, in one synchronous step.
  const writeResearch = (decide: (state: ResearchState) => ResearchEvent[]): void => {
    const state = currentResearchState(sessionManager);
    if (state === null) return;
    deps.appendEvents(decide(state));
  };
  for (const job of jobs) {
    const research = job.research;
    if (research) writeResearch((state) => threadQueuedEvents(state, research));
  }

  const progress = (): void => {
    if (!onUpdate) return;
    const count = (status: SubagentTaskStatus): number => results.filter((r) => r.status === status).length;
    const done = count("done") + count("error");
    onUpdate({
      content: [
        { type: "text", text: `Subagents: ${done}/${results.length} finished, ${count("running")} running, ${count("queued")} queued` },
      ],
      details: { mode, results: results.map((r) => ({ ...r })) },
    });
  };

  /** The bookkeeping line(s) of researcher tasks, by task index. */
  const leadNotes = new Map<number, string>();
  const parentModel = ctx.model ? { provider: ctx.model.provider, id: ctx.model.id } : undefined;
  const sessionFile = sessionManager.getSessionFile();

  const requestFor = async (job: Job, task: string): Promise<SubagentRequest> => {
    const cwd = job.spec.cwd ?? ctx.cwd;
    const base: SubagentRequest = {
      task,
      cwd,
      ...(sessionFile ? { parentSessionPath: sessionFile } : {}),
      parentSessionId: sessionManager.getSessionId(),
      _toolCallId: toolCallId,
      agent: job.agent.name,
    };
    if (job.agent.kind === "researcher") {
      const origin = {
        cwd,
        ...(sessionFile ? { parentSessionPath: sessionFile } : {}),
        parentSessionId: sessionManager.getSessionId(),
        toolCallId,
      };
      return { ...researcherRequest(origin, task, job.spec, parentModel, deps.thinkingLevel()), agent: job.agent.name };
    }
    const definition = job.agent.definition;
    let resolved: { model?: string; thinking?: string } = {};
    if (job.spec.model === undefined || job.spec.thinking === undefined) {
      try {
        resolved = await deps.resolve({
          agentKey: definition.key,
          cwd,
          ...(sessionFile ? { sessionPath: sessionFile } : {}),
          ...(definition.model ? { staticModel: definition.model } : {}),
          ...(definition.thinking ? { staticThinking: definition.thinking } : {}),
        });
      } catch {
        resolved = {
          ...(definition.model ? { model: definition.model } : {}),
          ...(definition.thinking ? { thinking: definition.thinking } : {}),
        };
      }
    }
    const model = job.spec.model ?? resolved.model;
    const thinkingLevel = job.spec.thinking ?? resolved.thinking;
    return {
      ...base,
      ...(definition.tools.length > 0 ? { tools: [...definition.tools] } : {}),
      ...(definition.systemPrompt ? { systemPrompt: definition.systemPrompt } : {}),
      ...(model !== undefined ? { model } : {}),
      ...(thinkingLevel !== undefined ? { thinkingLevel } : {}),
    };
  };

  /** Runs one task; `previous` replaces `{previous}` in its text (chain). */
  const runJob = async (job: Job, previous?: string): Promise<SubagentTaskResult> => {
    const result = results[job.index] as SubagentTaskResult;
    const research = job.research;
    const given = research?.task ?? job.spec.task;
    const task = previous === undefined ? given : given.replace(/\{previous\}/g, previous);
    if (signal?.aborted) {
      Object.assign(result, { status: "error", error: "Subagent run aborted" });
      progress();
      return result;
    }
    result.status = "running";
    result.task = task;
    if (research) writeResearch((state) => threadStartEvents(state, research, deps.now()));
    progress();

    let response: SubagentResponse | null = null;
    let failure: string | null = null;
    let cut = false;
    try {
      response = await deps.run(await requestFor(job, result.task), signal);
      if (response.stopReason === "error" || response.stopReason === "aborted") {
        failure = response.errorMessage || `The subagent stopped: ${response.stopReason}`;
      }
    } catch (error) {
      failure = errorText(error);
      cut = isServerStopping(error);
    }
    cut ||= failure !== null && (deps.stopping?.() ?? false);
    const output = response ? finalOutput(response) : "";
    if (response) {
      Object.assign(result, {
        output: bounded(output, OUTPUT_LIMIT),
        childSession: { ...response.childSession },
        usage: { ...response.usage },
        ...(response.model ? { model: response.model } : {}),
        ...(response.thinkingLevel ? { thinkingLevel: response.thinkingLevel } : {}),
        ...(response.stopReason ? { stopReason: response.stopReason } : {}),
      });
    }
    // A run cut by a stop leaves its thread running in the file (see the module comment).
    const state = research && !cut ? currentResearchState(sessionManager) : null;
    if (research && state) {
      // Fold and append in one synchronous step (see the module comment).
      const childSession = response ? { ...response.childSession } : null;
      const outcome: ResearcherOutcome =
        failure === null && childSession !== null
          ? { ok: true, output, childSession }
          : { ok: false, error: failure ?? "The subagent failed", childSession };
      const completion = threadCompletion(state, research, outcome, deps.now());
      deps.appendEvents(completion.events);
      result.status = completion.status;
      if (completion.status === "error") result.error = completion.error;
      result.sourceIds = completion.sourceIds;
      result.rejected = completion.rejected;
      leadNotes.set(job.index, completion.text);
    } else {
      result.status = failure === null ? "done" : "error";
      if (failure !== null) result.error = failure;
    }
    progress();
    return result;
  };

  const lead = (result: SubagentTaskResult, index: number): string => {
    const head = `[${result.agent}${result.threadId ? ` ${result.threadId}` : ""}] ${result.status === "done" ? "done" : `failed: ${result.error ?? "unknown error"}`}`;
    const note = leadNotes.get(index);
    const findings = bounded(result.output.replace(RESULT_BLOCK, "").trim(), LEAD_OUTPUT_LIMIT);
    return [head, note, findings ? `Findings:\n${findings}` : ""].filter((part) => part).join("\n");
  };

  progress();
  if (mode === "parallel") {
    const limit = concurrencyLimit(MAX_CONCURRENT_TASKS);
    await Promise.all(jobs.map((job) => limit.run(() => runJob(job))));
  } else if (mode === "chain") {
    let previous = "";
    for (const job of jobs) {
      const step = await runJob(job, previous);
      if (step.status !== "done") break;
      previous = step.output;
    }
  } else {
    const job = jobs[0];
    if (job) await runJob(job);
  }

  if (signal?.aborted) throw new Error("Subagent run aborted");
  const details: SubagentDetails = { mode, results };
  const ran = results.filter((r) => r.status !== "queued");
  const failed = ran.filter((r) => r.status === "error");
  if (mode !== "parallel" && failed.length > 0) {
    throw new Error(
      results
        .map((r, i) => (r.status === "queued" ? "" : lead(r, i)))
        .filter((t) => t)
        .join("\n\n"),
    );
  }
  const header =
    mode === "parallel"
      ? `Parallel: ${results.length - failed.length}/${results.length} succeeded`
      : mode === "chain"
        ? `Chain: ${ran.length} step${ran.length === 1 ? "" : "s"} done`
        : "";
  const body =
    mode === "chain" ? lead(results[results.length - 1] as SubagentTaskResult, results.length - 1) : results.map(lead).join("\n\n");
  return { content: [{ type: "text", text: [header, body].filter((t) => t).join("\n\n") }], details };
}

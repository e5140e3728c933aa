/**
 * Recovery of the research threads a session finds `running` when it starts (thread-recovery.ts decides;
 * this module writes and runs). Beyond spec/deep-research.md ("In-flight worker calls do not restart
 * automatically"): issue 4 asks that workers in flight when the server stopped are re-run after a restart
 * without registering their sources twice.
 *
 * `recoverThreads` runs synchronously inside session_start: threads with a finished child are completed,
 * the others that cannot be re-run become interrupted errors, and each thread to re-run is marked running
 * again (a new `startedAt`, entry data marked `"rerun": true`). It returns the re-runs, which `runReruns`
 * then performs in the background, at most four at once, through the same execution route as the subagent
 * tool (POST /api/pi/subagent at LEYLINE_API_URL) with the same request (`researcherRequest`: read-only
 * researcher, the original call's model, thinking level and folder, else the parent's model and thinking).
 *
 * A finished re-run completes its thread exactly as a live researcher result would (`threadCompletion`: its
 * sources are registered through the ledger, merged by canonical key, so a source the interrupted run or
 * another thread already registered is never registered twice). A re-run whose request fails becomes the
 * interrupted error, naming the failure. A re-run cut because the session or the server is stopping writes
 * nothing (its thread stays running; being a re-run, the next start marks it interrupted). Results land only
 * while the thread is still that re-run (same `startedAt`): if the lead ran the thread again meanwhile, its own
 * run decides.
 */
import type { ResearchEvent, ResearchState, ResearchThread } from "../../domain/research/research-types.ts";
import { concurrencyLimit } from "./concurrency-limit.ts";
import { finalOutput, isServerStopping, type SubagentRequest, type SubagentResponse } from "./subagent-client.ts";
import { MAX_CONCURRENT_TASKS } from "./subagent-params.ts";
import { researcherRequest, type SubagentRequestBase } from "./subagent-run.ts";
import { interruptedThreadEvents, rerunStartEntryData, type ThreadRecovery, type ThreadTaskOrigin } from "./thread-recovery.ts";
import { threadCompletion } from "./researcher-threads.ts";

/** What recovery needs from the session it runs in (the extension wires pi's; tests may too). */
export interface ThreadRerunDeps {
  /** The research state of the current branch (folded again on every call), or null. */
  state: () => ResearchState | null;
  appendEvents: (events: readonly ResearchEvent[]) => void;
  /** Appends raw research entry data (the marked re-run start). */
  appendData: (data: object) => void;
  run: (request: SubagentRequest, signal?: AbortSignal) => Promise<SubagentResponse>;
  now: () => number;
  /** True once the session is shutting down. */
  stopping: () => boolean;
}

/** One thread to re-run: its id, the `startedAt` of the re-run, and the original call's settings. */
export interface ThreadRerun {
  threadId: string;
  task: string;
  startedAt: number;
  origin: ThreadTaskOrigin;
}

/** Where the re-runs come from: the parent session and its current model and thinking level. */
export interface RerunParent {
  cwd: string;
  sessionFile?: string;
  sessionId: string;
  model: { provider: string; id: string } | undefined;
  thinkingLevel: string;
}

function currentThread(deps: ThreadRerunDeps, threadId: string): { state: ResearchState; thread: ResearchThread } | null {
  const state = deps.state();
  const thread = state?.threads.find((t) => t.id === threadId);
  return state && thread ? { state, thread } : null;
}

/** Writes the synchronous part of the recovery (see the module comment); returns the threads to re-run. */
export function recoverThreads(deps: ThreadRerunDeps, plan: readonly ThreadRecovery[]): ThreadRerun[] {
  const reruns: ThreadRerun[] = [];
  for (const item of plan) {
    const found = currentThread(deps, item.thread.id);
    if (found === null || found.thread.status !== "running") continue;
    const { state, thread } = found;
    if (item.action === "complete") deps.appendEvents(interruptedThreadEvents(state, thread, item.child, deps.now()));
    else if (item.action === "interrupted") deps.appendEvents(interruptedThreadEvents(state, thread, null, deps.now(), item.detail));
    else {
      const startedAt = deps.now();
      deps.appendData(rerunStartEntryData(state, thread, startedAt));
      reruns.push({ threadId: thread.id, task: `${thread.id}: ${thread.task}`, startedAt, origin: item.origin });
    }
  }
  return reruns;
}

/** Performs the re-runs (see the module comment); resolves when all ended. Never rejects. */
export async function runReruns(
  deps: ThreadRerunDeps,
  parent: RerunParent,
  reruns: readonly ThreadRerun[],
  signal?: AbortSignal,
): Promise<void> {
  const limit = concurrencyLimit(MAX_CONCURRENT_TASKS);
  await Promise.all(reruns.map((rerun) => limit.run(() => runOne(deps, parent, rerun, signal)).catch(() => undefined)));
}

async function runOne(deps: ThreadRerunDeps, parent: RerunParent, rerun: ThreadRerun, signal?: AbortSignal): Promise<void> {
  if (deps.stopping() || signal?.aborted) return;
  const base: SubagentRequestBase = {
    cwd: rerun.origin.cwd ?? parent.cwd,
    ...(parent.sessionFile ? { parentSessionPath: parent.sessionFile } : {}),
    parentSessionId: parent.sessionId,
    toolCallId: rerun.origin.toolCallId,
  };
  const request = researcherRequest(base, rerun.task, rerun.origin, parent.model, parent.thinkingLevel);
  let response: SubagentResponse | null = null;
  let failure: string | null = null;
  let cut = false;
  try {
    response = await deps.run(request, signal);
    if (response.stopReason === "error" || response.stopReason === "aborted")
      failure = response.errorMessage || `The subagent stopped: ${response.stopReason}`;
  } catch (error) {
    failure = error instanceof Error ? error.message : String(error);
    cut = isServerStopping(error);
  }
  if (cut || deps.stopping() || signal?.aborted) return;

  // Fold and append in one synchronous step, and only while the thread is still this re-run.
  const found = currentThread(deps, rerun.threadId);
  if (found === null || found.thread.status !== "running" || found.thread.startedAt !== rerun.startedAt) return;
  const { state, thread } = found;
  if (failure !== null || response === null) {
    deps.appendEvents(
      interruptedThreadEvents(state, thread, null, deps.now(), `Re-running it after a restart failed: ${failure ?? "no answer"}`),
    );
    return;
  }
  const task = { threadId: thread.id, task: rerun.task, body: thread.task };
  const completion = threadCompletion(
    state,
    task,
    { ok: true, output: finalOutput(response), childSession: { ...response.childSession } },
    deps.now(),
  );
  deps.appendEvents(completion.events);
}

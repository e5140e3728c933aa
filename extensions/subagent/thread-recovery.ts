/**
 * Research threads left `running` when a session starts (beyond spec/deep-research.md, which only says that
 * in-flight worker calls do not restart automatically). A fresh extension instance has no run in flight, so
 * such a thread was interrupted: Leyline stopped, the worker process was replaced, or this session is a fork
 * taken while the source's researchers ran.
 *
 * For each, the child session of that run is looked for (a session file beside the parent's whose header
 * names the parent file, whose `leyline-subagent` marker names the researcher, whose first user message is
 * the thread's task, started at or after the thread). When its last assistant message already ends with a
 * valid research_result, the thread is completed from it exactly as a live run would (sources registered once:
 * the thread is done afterwards).
 *
 * Otherwise (`planThreadRecovery`) the thread is re-run — its task run again by a new researcher in the
 * background (thread-rerun.ts), with the model, thinking level and folder of the original subagent call —
 * when all of these hold: Leyline's execution route is reachable (LEYLINE_API_URL), the thread's interrupted
 * run was not itself a re-run (a re-run starts with a `thread` event marked `"rerun": true` in its entry data,
 * beside the event fields, which readers ignore), and the thread was not merely replayed into a fork (a fork's
 * replayed `running` thread belongs to the source's worker). Anything else becomes `error` ("interrupted"),
 * so that the state never shows a worker that is not running and the lead can run the thread again. So a
 * thread is re-run at most once per interrupted run, however often the session is reopened.
 */
import fs from "node:fs";
import path from "node:path";
import { isResearchEntry, parseResearchEvent, researchEventEntryData } from "../../domain/research/research-event.ts";
import { isRecord } from "../../domain/research/research-normalize.ts";
import { finalAssistantText } from "../../domain/research/research-replay.ts";
import type {
  ResearchChildSession,
  ResearchEvent,
  ResearchEventData,
  ResearchState,
  ResearchThread,
} from "../../domain/research/research-types.ts";
import { decodeSessionText } from "../../domain/session-decoder.ts";
import type { SessionEntry } from "../../domain/session-log.ts";
import { activeBranch, addEntry, emptySessionTree } from "../../domain/session-tree.ts";
import { RESEARCHER_AGENT_NAME } from "../../domain/subagent/researcher-agent.ts";
import { subagentMarkerOf } from "../../domain/subagent/subagent-marker.ts";
import { researcherTask, threadCompletion } from "./researcher-threads.ts";
import { subagentPlan } from "./subagent-params.ts";

export const INTERRUPTED_THREAD_ERROR =
  "The research worker was interrupted (Leyline stopped or the session was forked during its run); run the thread again";

/** The entry-data field of a `thread` event that starts an automatic re-run. */
export const RERUN_DATA_FIELD = "rerun";

/** A finished child run found for a thread. */
export interface RecoveredChild {
  output: string;
  childSession: ResearchChildSession;
}

/**
 * The events for one interrupted thread, against the current state: its completion from `child`, else the
 * interrupted error (`detail`, when given, is appended to the error text).
 */
export function interruptedThreadEvents(
  state: ResearchState,
  thread: ResearchThread,
  child: RecoveredChild | null,
  now: number,
  detail = "",
): ResearchEvent[] {
  const task = { threadId: thread.id, task: `${thread.id}: ${thread.task}`, body: thread.task };
  if (child !== null) {
    const completion = threadCompletion(state, task, { ok: true, output: child.output, childSession: child.childSession }, now);
    if (completion.status === "done") return completion.events;
  }
  return [
    {
      kind: "thread",
      sessionId: state.sessionId,
      thread: {
        id: thread.id,
        status: "error",
        error: detail ? `${INTERRUPTED_THREAD_ERROR}. ${detail}` : INTERRUPTED_THREAD_ERROR,
        completedAt: now,
        ...(child ? { childSession: child.childSession } : {}),
      },
    },
  ];
}

/** What the original subagent call gave a thread's researcher task (the re-run uses the same). */
export interface ThreadTaskOrigin {
  model?: string;
  thinking?: string;
  cwd?: string;
  /** The tool call that ran the thread ("" when the call is not on the branch). */
  toolCallId: string;
}

/** How one thread left running is recovered. */
export type ThreadRecovery =
  | { thread: ResearchThread; action: "complete"; child: RecoveredChild }
  | { thread: ResearchThread; action: "rerun"; origin: ThreadTaskOrigin }
  | { thread: ResearchThread; action: "interrupted"; detail: string };

/**
 * The recovery of each `running` thread (see the module comment): completed from its finished child, re-run
 * (when `canRerun`, the execution route being reachable), or interrupted.
 */
export function planThreadRecovery(
  state: ResearchState,
  branch: readonly SessionEntry[],
  children: ReadonlyMap<string, RecoveredChild>,
  canRerun: boolean,
): ThreadRecovery[] {
  return state.threads
    .filter((thread) => thread.status === "running")
    .map((thread): ThreadRecovery => {
      const child = children.get(thread.id);
      if (child !== undefined) return { thread, action: "complete", child };
      if (!canRerun) return { thread, action: "interrupted", detail: "" };
      if (lastStartWasRerun(branch, state.sessionId, thread.id)) {
        return { thread, action: "interrupted", detail: "Its automatic re-run after a restart was interrupted too" };
      }
      if (replayedIntoFork(branch, state.sessionId, thread.id)) return { thread, action: "interrupted", detail: "" };
      return { thread, action: "rerun", origin: threadTaskOrigin(state, branch, thread.id) };
    });
}

/** The `thread` event that starts the re-run of `thread` at `now`, as entry data (marked as a re-run). */
export function rerunStartEntryData(
  state: ResearchState,
  thread: ResearchThread,
  now: number,
): ResearchEventData & { [RERUN_DATA_FIELD]: true } {
  const event: ResearchEvent = {
    kind: "thread",
    sessionId: state.sessionId,
    thread: { id: thread.id, status: "running", error: "", startedAt: now, completedAt: 0 },
  };
  return { ...researchEventEntryData(event), [RERUN_DATA_FIELD]: true };
}

/** The index of the last `thread` event of `sessionId` that set `threadId` running, or -1. */
function lastStartIndex(branch: readonly SessionEntry[], sessionId: string, threadId: string): number {
  for (let i = branch.length - 1; i >= 0; i--) {
    const entry = branch[i];
    const event = entry ? parseResearchEvent(entry) : null;
    if (event?.kind === "thread" && event.sessionId === sessionId && event.thread.id === threadId && event.thread.status === "running")
      return i;
  }
  return -1;
}

/** Whether the thread's last start was an automatic re-run. */
export function lastStartWasRerun(branch: readonly SessionEntry[], sessionId: string, threadId: string): boolean {
  const entry = branch[lastStartIndex(branch, sessionId, threadId)];
  return entry?.type === "custom" && isRecord(entry.data) && entry.data[RERUN_DATA_FIELD] === true;
}

/**
 * Whether the thread's last start is part of a fork's replay: the branch holds another session's marker
 * before this session's, and the start lies in the run of research entries that follows this session's
 * marker (the replay), before anything the fork did itself.
 */
export function replayedIntoFork(branch: readonly SessionEntry[], sessionId: string, threadId: string): boolean {
  let foreign = false;
  let marker = -1;
  for (let i = 0; i < branch.length && marker === -1; i++) {
    const entry = branch[i];
    const event = entry ? parseResearchEvent(entry) : null;
    if (event?.kind !== "session") continue;
    if (event.sessionId === sessionId) marker = i;
    else foreign = true;
  }
  if (!foreign || marker === -1) return false;
  const start = lastStartIndex(branch, sessionId, threadId);
  if (start < marker) return false;
  for (let i = marker; i < start; i++) {
    const entry = branch[i];
    if (entry !== undefined && !isResearchEntry(entry)) return false;
  }
  return true;
}

/**
 * The model, thinking level, folder and tool call that the last `subagent` call on the branch running a
 * researcher on `threadId` gave it (none of them when no such call is on the branch).
 */
export function threadTaskOrigin(state: ResearchState, branch: readonly SessionEntry[], threadId: string): ThreadTaskOrigin {
  let origin: ThreadTaskOrigin = { toolCallId: "" };
  for (const entry of branch) {
    if (entry.type !== "message" || entry.message.role !== "assistant") continue;
    for (const block of entry.message.content) {
      if (block.type !== "toolCall" || block.name !== "subagent") continue;
      const plan = subagentPlan(block.arguments);
      if (!plan.ok) continue;
      const taken: string[] = [];
      for (const spec of plan.tasks) {
        if (spec.agent !== RESEARCHER_AGENT_NAME) continue;
        const { threadId: id } = researcherTask(state, spec.task, taken, spec.threadId);
        taken.push(id);
        if (id !== threadId) continue;
        origin = {
          toolCallId: block.id,
          ...(spec.model !== undefined ? { model: spec.model } : {}),
          ...(spec.thinking !== undefined ? { thinking: spec.thinking } : {}),
          ...(spec.cwd !== undefined ? { cwd: spec.cwd } : {}),
        };
      }
    }
  }
  return origin;
}

interface ChildFile {
  file: string;
  id: string;
  cwd: string;
  startedAt: number;
  firstUserText: string;
  output: string | null;
}

function readChild(file: string, parentFile: string, parentSessionId: string): ChildFile | null {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch {
    return null;
  }
  const firstLine = text.slice(0, text.indexOf("\n") === -1 ? text.length : text.indexOf("\n"));
  // Cheap filter before decoding: the header must name the parent file.
  if (!firstLine.includes('"parentSession"')) return null;
  const decoded = decodeSessionText(text);
  const header = decoded.records.find((r) => r.kind === "header");
  if (header?.kind !== "header" || header.header.parentSession !== parentFile) return null;
  const tree = emptySessionTree();
  for (const record of decoded.records) if (record.kind === "entry") addEntry(tree, record.entry);
  const branch = activeBranch(tree);
  const marker = subagentMarkerOf(branch);
  if (
    marker === null ||
    marker.agent !== RESEARCHER_AGENT_NAME ||
    (marker.parentSessionId !== null && marker.parentSessionId !== parentSessionId)
  )
    return null;
  let firstUserText = "";
  let output: string | null = null;
  for (const entry of branch) {
    if (entry.type !== "message") continue;
    const message = entry.message as { role?: unknown; content?: unknown };
    if (message.role === "user" && firstUserText === "") {
      firstUserText =
        typeof message.content === "string"
          ? message.content
          : Array.isArray(message.content)
            ? message.content.map((b: { type?: string; text?: string }) => (b.type === "text" ? (b.text ?? "") : "")).join("")
            : "";
    }
    if (message.role === "assistant") output = finalAssistantText(entry.message);
  }
  const started = Date.parse(header.header.timestamp);
  return { file, id: header.header.id, cwd: header.header.cwd, startedAt: Number.isFinite(started) ? started : 0, firstUserText, output };
}

/**
 * The finished child run of each thread, from the session files in `dirs` (by default the parent file's
 * folder, where children of the same cwd live). Threads without one are absent from the result.
 */
export function findRecoveredChildren(
  parentFile: string,
  parentSessionId: string,
  threads: readonly ResearchThread[],
  dirs: readonly string[] = [path.dirname(parentFile)],
): Map<string, RecoveredChild> {
  const found = new Map<string, RecoveredChild>();
  if (threads.length === 0) return found;
  const children: ChildFile[] = [];
  for (const dir of new Set(dirs)) {
    let names: string[];
    try {
      names = fs.readdirSync(dir).filter((name) => name.endsWith(".jsonl"));
    } catch {
      continue;
    }
    for (const name of names) {
      const file = path.join(dir, name);
      if (file === parentFile) continue;
      const child = readChild(file, parentFile, parentSessionId);
      if (child !== null) children.push(child);
    }
  }
  children.sort((a, b) => b.startedAt - a.startedAt);
  for (const thread of threads) {
    const match = children.find(
      (child) =>
        child.output !== null && child.startedAt >= thread.startedAt - 1000 && child.firstUserText.trim().startsWith(`${thread.id}:`),
    );
    if (match && match.output !== null)
      found.set(thread.id, { output: match.output, childSession: { id: match.id, path: match.file, cwd: match.cwd } });
  }
  return found;
}

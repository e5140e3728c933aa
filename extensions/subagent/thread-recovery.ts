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
 * the thread is done afterwards); otherwise the thread becomes `error` ("interrupted"), so that the state never
 * shows a worker that is not running and the lead can run the thread again.
 */
import fs from "node:fs";
import path from "node:path";
import { finalAssistantText } from "../../domain/research/research-replay.ts";
import type { ResearchChildSession, ResearchEvent, ResearchState, ResearchThread } from "../../domain/research/research-types.ts";
import { decodeSessionText } from "../../domain/session-decoder.ts";
import { activeBranch, addEntry, emptySessionTree } from "../../domain/session-tree.ts";
import { RESEARCHER_AGENT_NAME } from "../../domain/subagent/researcher-agent.ts";
import { subagentMarkerOf } from "../../domain/subagent/subagent-marker.ts";
import { threadCompletion } from "./researcher-threads.ts";

export const INTERRUPTED_THREAD_ERROR = "The research worker was interrupted (Leyline stopped or the session was forked during its run); run the thread again";

/** A finished child run found for a thread. */
export interface RecoveredChild {
  output: string;
  childSession: ResearchChildSession;
}

/** The events for one interrupted thread, against the current state. */
export function interruptedThreadEvents(state: ResearchState, thread: ResearchThread, child: RecoveredChild | null, now: number): ResearchEvent[] {
  const task = { threadId: thread.id, task: `${thread.id}: ${thread.task}`, body: thread.task };
  if (child !== null) {
    const completion = threadCompletion(state, task, { ok: true, output: child.output, childSession: child.childSession }, now);
    if (completion.status === "done") return completion.events;
  }
  return [
    {
      kind: "thread",
      sessionId: state.sessionId,
      thread: { id: thread.id, status: "error", error: INTERRUPTED_THREAD_ERROR, completedAt: now, ...(child ? { childSession: child.childSession } : {}) },
    },
  ];
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
  if (marker === null || marker.agent !== RESEARCHER_AGENT_NAME || (marker.parentSessionId !== null && marker.parentSessionId !== parentSessionId)) return null;
  let firstUserText = "";
  let output: string | null = null;
  for (const entry of branch) {
    if (entry.type !== "message") continue;
    const message = entry.message as { role?: unknown; content?: unknown };
    if (message.role === "user" && firstUserText === "") {
      firstUserText = typeof message.content === "string" ? message.content : Array.isArray(message.content) ? message.content.map((b: { type?: string; text?: string }) => (b.type === "text" ? (b.text ?? "") : "")).join("") : "";
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
      (child) => child.output !== null && child.startedAt >= thread.startedAt - 1000 && child.firstUserText.trim().startsWith(`${thread.id}:`),
    );
    if (match && match.output !== null) found.set(thread.id, { output: match.output, childSession: { id: match.id, path: match.file, cwd: match.cwd } });
  }
  return found;
}

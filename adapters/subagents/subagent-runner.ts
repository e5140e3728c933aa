/**
 * Runs one subagent task in a child runtime (spec "POST /api/pi/subagent", deep-research "Research workers").
 *
 * The child is a persisted pi session opened by the runtime host in its own worker (`open({ new: { cwd, child
 * } })`: registered and in the roster while it runs, counted toward capacity, never selected). Its header
 * links the parent file (`parentSession`) and its first custom entry is the `leyline-subagent` marker
 * (domain/subagent/subagent-marker.ts), so the session list shows it as a subagent session of its parent.
 * The task is prompted and awaited (`RuntimeHandle.runToCompletion`); the answer is read from the child's
 * active branch (domain/subagent/subagent-result.ts); the child runtime is then closed (the file stays).
 *
 * Parent: by `parentSessionPath` (must be a pi session file) and/or `parentSessionId` (an open runtime, else
 * `findSessionFile`, the session index). A named parent that cannot be found, or an id that does not match
 * the file, fails the run.
 * Model and thinking level: the request's, else (model only) `resolveModel` (stored overrides), else the
 * parent's current ones when the parent is open in the host, else the child's defaults.
 * readOnlyBash: the request's, else true for the reserved `researcher` agent.
 * images: sent with the task (the vision agent, adapters/vision/vision-runner.ts); `checkChild` may refuse the
 * opened child before anything is prompted (a vision model without image input).
 *
 * Every failure (setup, the run, an assistant error or abort in the child) throws `SubagentRunError`. An
 * aborted `signal` interrupts the run and closes the child; the promise then rejects with
 * `SubagentAbortedError`.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { RESEARCHER_AGENT_NAME } from "../../domain/subagent/researcher-agent.ts";
import { SUBAGENT_MARKER_VERSION, type SubagentMarkerData } from "../../domain/subagent/subagent-marker.ts";
import { type SubagentResult, summarizeSubagentBranch } from "../../domain/subagent/subagent-result.ts";
import type { Active, PromptImage } from "../../domain/runtime/runtime-types.ts";
import { decodeSessionText } from "../../domain/session-decoder.ts";
import { activeBranch, addEntry, emptySessionTree } from "../../domain/session-tree.ts";
import type { RuntimeHandle } from "../runtime-host/runtime-handle.ts";
import { errorText } from "../runtime-host/runtime-host-error.ts";
import type { RuntimeHost } from "../runtime-host/runtime-host.ts";
import { type ChildSessionOptions, THINKING_LEVELS, type ThinkingLevelName } from "../runtime-protocol/runtime-protocol.ts";
import { readSessionHeader } from "../runtime-worker/worker-runtime.ts";

export interface SubagentModelRef {
  provider: string;
  id: string;
}

/** A validated request (subagent-request.ts makes it from the HTTP body). */
export interface SubagentRequest {
  task: string;
  cwd: string;
  parentSessionPath?: string;
  parentSessionId?: string;
  /** The parent's tool call (`_toolCallId` of the HTTP body). */
  toolCallId?: string;
  model?: SubagentModelRef;
  thinkingLevel?: ThinkingLevelName;
  tools?: string[];
  excludeTools?: string[];
  systemPrompt?: string;
  /** The agent the child runs as (recorded in the marker; `researcher` implies read-only bash). */
  agent?: string;
  readOnlyBash?: boolean;
  /** Images sent with the task (the vision agent's image). */
  images?: PromptImage[];
}

export type { SubagentResult } from "../../domain/subagent/subagent-result.ts";

export interface SubagentRunOptions {
  /** Aborting it interrupts the child and closes it. */
  signal?: AbortSignal;
  /** The persisted file of a session id (the session index), for a parent that is not open. */
  findSessionFile?: (sessionId: string) => Promise<string | null>;
  /** A model for a request that names none (stored overrides); undefined lets the parent's apply. */
  resolveModel?: (context: { request: SubagentRequest; parentSessionPath: string | null }) => Promise<SubagentModelRef | undefined>;
  /** Checks the opened child before its run (the vision agent's model must take images): a problem fails the run. */
  checkChild?: (active: Active) => string | null;
  /** The parent's trace that made the tool call (the trace service), kept in the child's marker. */
  parentTraceId?: (parentSessionId: string, toolCallId: string | null) => Promise<string | null>;
}

export class SubagentRunError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "SubagentRunError";
  }
}

export class SubagentAbortedError extends SubagentRunError {
  constructor() {
    super("The subagent run was aborted");
    this.name = "SubagentAbortedError";
  }
}

/** "provider/id" (the first slash splits; ids may contain more) → ref, or null when either part is empty. */
export function parseModelRef(value: string): SubagentModelRef | null {
  const slash = value.indexOf("/");
  if (slash <= 0 || slash === value.length - 1) return null;
  return { provider: value.slice(0, slash), id: value.slice(slash + 1) };
}

interface Parent {
  id: string | null;
  path: string | null;
  handle: RuntimeHandle | undefined;
}

async function resolveParent(host: RuntimeHost, request: SubagentRequest, options: SubagentRunOptions): Promise<Parent> {
  const wantedId = request.parentSessionId;
  let handle = wantedId !== undefined ? host.get(wantedId) : undefined;
  if (request.parentSessionPath !== undefined) {
    const file = path.resolve(request.parentSessionPath);
    if (!fs.existsSync(file) || !fs.statSync(file).isFile()) throw new SubagentRunError(`Parent session not found: ${file}`);
    let header: { id: string };
    try {
      header = readSessionHeader(file);
    } catch (error) {
      throw new SubagentRunError(`Parent session is not a pi session: ${errorText(error)}`, { cause: error });
    }
    if (wantedId !== undefined && header.id !== wantedId) {
      throw new SubagentRunError(`parentSessionId ${wantedId} does not match the parent session file (session ${header.id})`);
    }
    handle ??= host.findByFile(file);
    return { id: header.id, path: file, handle };
  }
  if (wantedId === undefined) return { id: null, path: null, handle: undefined };
  const file = handle?.sessionFile ?? (await options.findSessionFile?.(wantedId)) ?? null;
  if (handle === undefined && (file === null || !fs.existsSync(file))) throw new SubagentRunError(`Parent session not found: ${wantedId}`);
  return { id: wantedId, path: file !== null && fs.existsSync(file) ? file : null, handle };
}

/** The parent's current model and thinking level, when the parent is open. */
function parentSettings(parent: Parent): { model?: SubagentModelRef; thinkingLevel?: ThinkingLevelName } {
  if (parent.handle === undefined) return {};
  const state = parent.handle.active().state;
  const level = (THINKING_LEVELS as readonly string[]).includes(state.thinkingLevel)
    ? (state.thinkingLevel as ThinkingLevelName)
    : undefined;
  return {
    ...(state.model ? { model: { provider: state.model.provider, id: state.model.id } } : {}),
    ...(level !== undefined ? { thinkingLevel: level } : {}),
  };
}

function readBranch(file: string | null): ReturnType<typeof activeBranch> {
  if (file === null || !fs.existsSync(file)) return [];
  const tree = emptySessionTree();
  for (const record of decodeSessionText(fs.readFileSync(file, "utf8")).records) {
    if (record.kind === "entry") addEntry(tree, record.entry);
  }
  return activeBranch(tree);
}

function abortError(): SubagentAbortedError {
  return new SubagentAbortedError();
}

export async function runSubagent(host: RuntimeHost, request: SubagentRequest, options: SubagentRunOptions = {}): Promise<SubagentResult> {
  const { signal } = options;
  if (request.tools !== undefined && request.excludeTools !== undefined)
    throw new SubagentRunError("tools and excludeTools cannot be combined");
  if (signal?.aborted) throw abortError();
  const parent = await resolveParent(host, request, options);
  const inherited = parentSettings(parent);
  const model = request.model ?? (await options.resolveModel?.({ request, parentSessionPath: parent.path })) ?? inherited.model;
  const thinkingLevel = request.thinkingLevel ?? inherited.thinkingLevel;
  const parentTraceId = parent.id !== null ? await options.parentTraceId?.(parent.id, request.toolCallId ?? null).catch(() => null) : null;
  const marker: SubagentMarkerData = {
    version: SUBAGENT_MARKER_VERSION,
    parentSessionId: parent.id,
    parentSessionPath: parent.path,
    toolCallId: request.toolCallId ?? null,
    agent: request.agent ?? null,
    readOnlyBash: request.readOnlyBash ?? request.agent === RESEARCHER_AGENT_NAME,
    ...(parentTraceId !== null && parentTraceId !== undefined ? { parentTraceId } : {}),
  };
  const child: ChildSessionOptions = {
    marker,
    ...(parent.path !== null ? { parentSession: parent.path } : {}),
    ...(request.systemPrompt !== undefined ? { systemPrompt: request.systemPrompt } : {}),
    ...(model ? { model } : {}),
    ...(thinkingLevel !== undefined ? { thinkingLevel } : {}),
    ...(request.tools !== undefined ? { tools: request.tools } : {}),
    ...(request.excludeTools !== undefined ? { excludeTools: request.excludeTools } : {}),
  };

  let handle: RuntimeHandle;
  try {
    handle = await host.open({ new: { cwd: request.cwd, child } });
  } catch (error) {
    throw new SubagentRunError(`Cannot start the subagent: ${errorText(error)}`, { cause: error });
  }
  let aborted = false;
  let stop: (error: Error) => void = () => {};
  const stopped = new Promise<never>((_resolve, reject) => {
    stop = reject;
  });
  stopped.catch(() => {});
  const onAbort = (): void => {
    aborted = true;
    stop(abortError());
  };
  signal?.addEventListener("abort", onAbort, { once: true });
  try {
    if (signal?.aborted) throw abortError();
    const problem = options.checkChild?.(handle.active()) ?? null;
    if (problem !== null) throw new SubagentRunError(problem);
    const run = handle.runToCompletion(request.task, request.images);
    // The run keeps going until interrupt/close below; its late failure is expected then.
    run.catch(() => {});
    try {
      await Promise.race([run, stopped]);
    } catch (error) {
      if (aborted) throw error;
      throw new SubagentRunError(`The subagent run failed: ${errorText(error)}`, { cause: error });
    }
    const summary = summarizeSubagentBranch(readBranch(handle.sessionFile));
    if (summary.stopReason === "error") throw new SubagentRunError(summary.errorMessage ?? "The subagent run failed");
    if (summary.stopReason === "aborted") throw abortError();
    const state = handle.active().state;
    const modelName = state.model ? `${state.model.provider}/${state.model.id}` : summary.model;
    return {
      childSession: { path: handle.sessionFile ?? "", id: handle.sessionId, cwd: handle.cwd },
      messages: summary.messages,
      usage: summary.usage,
      ...(modelName !== undefined ? { model: modelName } : {}),
      ...(state.thinkingLevel !== "" ? { thinkingLevel: state.thinkingLevel } : {}),
      ...(summary.stopReason !== undefined ? { stopReason: summary.stopReason } : {}),
    };
  } finally {
    signal?.removeEventListener("abort", onAbort);
    if (aborted) await handle.interrupt().catch(() => {});
    await host.close(handle.sessionId).catch(() => {});
  }
}

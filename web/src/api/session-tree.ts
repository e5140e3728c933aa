/**
 * The session tree routes (domain/contract/http-session-tree.ts and the runtime actions navigate and label):
 * the whole tree of a session as pi's `/tree` shows it (then only what was appended), the transcript of any branch, continuing from another
 * entry (the leaf moves, nothing is deleted; optionally with pi's summary of the branch left), and labels.
 *
 * Each request has a pure builder (`sessionTreeRequests.x(...)`, tested on its own) and a function that sends
 * it through http.ts (errors are `ApiError(status, message)`; navigate is refused with 500 while the agent works).
 */
import type { RuntimeActionBody, RuntimeActionResponse } from "../../../domain/contract/http-runtime-actions.ts";
import type { RouteResponse } from "../../../domain/contract/http-route.ts";
import type { sessionBranch, sessionTree } from "../../../domain/contract/http-session-tree.ts";
import type { TreeSince } from "../../../domain/session-tree-view.ts";
import { request } from "./http.ts";

export type SessionTreeResponse = RouteResponse<typeof sessionTree>;
export type SessionBranchResponse = RouteResponse<typeof sessionBranch>;
export type NavigateRequest = RuntimeActionBody<"navigate">;
export type NavigateResponse = RuntimeActionResponse<"navigate">;
export type LabelRequest = RuntimeActionBody<"label">;
export type LabelResponse = RuntimeActionResponse<"label">;

export interface TreeRequest {
  method: "GET" | "POST";
  path: string;
  query?: Record<string, string>;
  body?: Record<string, unknown>;
}

function sessionPath(sessionId: string, rest: string): string {
  return `/api/pi/sessions/${encodeURIComponent(sessionId)}/${rest}`;
}

/** The requests, built without sending them. */
export const sessionTreeRequests = {
  /** With `since` (the nodes held: their count and the last id), only the nodes appended after them. */
  tree: (sessionId: string, since?: TreeSince): TreeRequest => ({
    method: "GET",
    path: sessionPath(sessionId, "tree"),
    ...(since !== undefined && since.from > 0 ? { query: { from: String(since.from), after: since.after } } : {}),
  }),
  branch: (sessionId: string, leafId: string): TreeRequest => ({
    method: "GET",
    path: sessionPath(sessionId, "branch"),
    query: { leafId },
  }),
  /** Empty instructions are left out; `summarize` only when asked for. */
  navigate: (sessionId: string, navigate: NavigateRequest): TreeRequest => {
    const instructions = navigate.customInstructions?.trim() ?? "";
    const label = navigate.label?.trim() ?? "";
    const body: NavigateRequest = {
      entryId: navigate.entryId,
      ...(navigate.summarize === true ? { summarize: true } : {}),
      ...(navigate.summarize === true && instructions !== "" ? { customInstructions: instructions } : {}),
      ...(label !== "" ? { label } : {}),
    };
    return { method: "POST", path: sessionPath(sessionId, "navigate"), body };
  },
  /** An empty label clears it. */
  label: (sessionId: string, entryId: string, label: string): TreeRequest => {
    const body: LabelRequest = { entryId, label: label.trim() };
    return { method: "POST", path: sessionPath(sessionId, "label"), body };
  },
} as const;

function send<T>(built: TreeRequest, signal?: AbortSignal): Promise<T> {
  return request<T>(built.method, built.path, {
    ...(built.query !== undefined ? { query: built.query } : {}),
    ...(built.body !== undefined ? { body: built.body } : {}),
    ...(signal !== undefined ? { signal } : {}),
  });
}

/**
 * GET /api/pi/sessions/:id/tree: every entry of the file and the active leaf; with `since`, only the entries
 * appended after the ones held (or the whole tree again, `from: 0`, when the file changed under them).
 */
export function fetchSessionTree(sessionId: string, since?: TreeSince, signal?: AbortSignal): Promise<SessionTreeResponse> {
  return send(sessionTreeRequests.tree(sessionId, since), signal);
}

/** GET /api/pi/sessions/:id/branch?leafId=: the transcript from the root to `leafId`. */
export function fetchBranch(sessionId: string, leafId: string, signal?: AbortSignal): Promise<SessionBranchResponse> {
  return send(sessionTreeRequests.branch(sessionId, leafId), signal);
}

/** POST /api/pi/sessions/:id/navigate: continue from `entryId` (a user message's text comes back as `editorText`). */
export function navigateTree(sessionId: string, navigate: NavigateRequest): Promise<NavigateResponse> {
  return send(sessionTreeRequests.navigate(sessionId, navigate));
}

/** POST /api/pi/sessions/:id/label: set or clear (empty) an entry's label. */
export function setEntryLabel(sessionId: string, entryId: string, label: string): Promise<LabelResponse> {
  return send(sessionTreeRequests.label(sessionId, entryId, label));
}

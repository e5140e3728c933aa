/**
 * Typed functions for the runtime action routes (spec "Runtime action routes" … "POST /api/pi/mode",
 * api/runtime-actions.routes.ts): the scoped browser routes POST /api/pi/sessions/:id/<action>, plus the two
 * the browser needs elsewhere: selecting a session (POST /api/pi/active-session) before the active-session-only
 * reset-to-entry, and renaming (PATCH /api/pi/sessions/:id).
 *
 * Each action has a pure request builder (`runtimeRequests.x(...)` → `{ method, path, body }`, tested on its
 * own) and a function that sends it through http.ts (errors are `ApiError(status, message)`).
 */
import type { RouteResponse } from "../../../domain/contract/http-route.ts";
import type {
  answerConfirmation as answerConfirmationRoute,
  RuntimeActionBody,
  RuntimeActionResponse,
} from "../../../domain/contract/http-runtime-actions.ts";
import type { PromptImage } from "../../../domain/runtime/runtime-types.ts";
import type { ActiveResponse, CreateSessionResponse, RenameSessionResponse, SessionKind } from "./dto.ts";
import { ApiError, http, request } from "./http.ts";

export interface ActionRequest {
  method: "POST" | "PATCH";
  path: string;
  body: Record<string, unknown>;
}

/** POST /api/pi/sessions/:id/prompt (the route's body, from the server's contract). */
export type PromptRequest = RuntimeActionBody<"prompt">;

/** One Up-next queue mutation (its revision is passed separately: always the current promptQueue.revision). */
export type QueueMutation =
  | { action: "hold" }
  | { action: "resume" }
  | { action: "edit"; id: string; text: string }
  | { action: "remove"; id: string }
  | { action: "move"; id: string; direction: "up" | "down" }
  | { action: "steer"; id: string };

export type QueueAction = QueueMutation["action"];

// A mutation with its revision is a body the queue route takes: this line stops compiling if they drift apart.
const _queueBody = (mutation: QueueMutation, revision: number): RuntimeActionBody<"queue"> => ({ ...mutation, revision });
void _queueBody;

/** The answers, from the server's contract. */
export type PromptResponse = RuntimeActionResponse<"prompt">;
export type ActiveActionResponse = RuntimeActionResponse<"interrupt">;
export type ActiveDetailResponse = RuntimeActionResponse<"fork">;
export type OkResponse = RouteResponse<typeof answerConfirmationRoute>;

function scoped(sessionId: string, action: string): string {
  return `/api/pi/sessions/${encodeURIComponent(sessionId)}/${action}`;
}

/** Copies only the defined optional fields (JSON would drop undefined anyway; tests compare bodies exactly). */
function definedFields(fields: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
}

/** The request of every action, built without sending it. */
export const runtimeRequests = {
  prompt: (sessionId: string, prompt: PromptRequest): ActionRequest => ({
    method: "POST",
    path: scoped(sessionId, "prompt"),
    body: definedFields({
      text: prompt.text,
      images: prompt.images !== undefined && prompt.images.length > 0 ? prompt.images : undefined,
      streamingBehavior: prompt.streamingBehavior,
      kind: prompt.kind,
      handoffId: prompt.handoffId,
    }),
  }),
  queue: (sessionId: string, mutation: QueueMutation, revision: number): ActionRequest => ({
    method: "POST",
    path: scoped(sessionId, "queue"),
    body: { ...mutation, revision },
  }),
  interrupt: (sessionId: string): ActionRequest => ({ method: "POST", path: scoped(sessionId, "interrupt"), body: {} }),
  compact: (sessionId: string, customInstructions?: string): ActionRequest => ({
    method: "POST",
    path: scoped(sessionId, "compact"),
    body: definedFields({ customInstructions: customInstructions?.trim() === "" ? undefined : customInstructions }),
  }),
  reload: (sessionId: string): ActionRequest => ({ method: "POST", path: scoped(sessionId, "reload"), body: {} }),
  model: (sessionId: string, model: { provider: string; id: string }): ActionRequest => ({
    method: "POST",
    path: scoped(sessionId, "model"),
    body: { provider: model.provider, id: model.id },
  }),
  thinking: (sessionId: string, level: string): ActionRequest => ({ method: "POST", path: scoped(sessionId, "thinking"), body: { level } }),
  ultrafast: (sessionId: string, enabled: boolean): ActionRequest => ({
    method: "POST",
    path: scoped(sessionId, "ultrafast"),
    body: { enabled },
  }),
  /** The mode route answers the current snapshot without changing anything: the client's "refetch". */
  mode: (sessionId: string): ActionRequest => ({ method: "POST", path: scoped(sessionId, "mode"), body: {} }),
  confirm: (sessionId: string, requestId: string, confirmed: boolean): ActionRequest => ({
    method: "POST",
    path: `${scoped(sessionId, "extension-confirmations")}/${encodeURIComponent(requestId)}`,
    body: { confirmed },
  }),
  fork: (sessionId: string, entryId: string): ActionRequest => ({ method: "POST", path: scoped(sessionId, "fork"), body: { entryId } }),
  editPrompt: (sessionId: string, entryId: string, text: string, images?: PromptImage[]): ActionRequest => ({
    method: "POST",
    path: scoped(sessionId, "edit-prompt"),
    body: definedFields({ entryId, text, images: images !== undefined && images.length > 0 ? images : undefined }),
  }),
  bash: (sessionId: string, command: string, excludeFromContext?: boolean): ActionRequest => ({
    method: "POST",
    path: scoped(sessionId, "bash"),
    body: definedFields({ command, excludeFromContext }),
  }),
  rename: (sessionId: string, name: string): ActionRequest => ({
    method: "PATCH",
    path: `/api/pi/sessions/${encodeURIComponent(sessionId)}`,
    body: { name },
  }),
  /** Selects a session (reset-to-entry acts on the selected one only). */
  selectSession: (sessionId: string): ActionRequest => ({ method: "POST", path: "/api/pi/active-session", body: { id: sessionId } }),
  /** The active-session-only reset route (send selectSession first). */
  resetToEntry: (entryId: string): ActionRequest => ({ method: "POST", path: "/api/pi/reset-to-entry", body: { entryId } }),
} as const;

/** Sends a built request through http.ts. */
export function send<T>(action: ActionRequest, signal?: AbortSignal): Promise<T> {
  return request<T>(action.method, action.path, signal === undefined ? { body: action.body } : { body: action.body, signal });
}

export function prompt(sessionId: string, body: PromptRequest): Promise<PromptResponse> {
  return send(runtimeRequests.prompt(sessionId, body));
}

/** Mutates the Up next queue; a stale revision answers 409 (ApiError.status). */
export function mutateQueue(sessionId: string, mutation: QueueMutation, revision: number): Promise<ActiveActionResponse> {
  return send(runtimeRequests.queue(sessionId, mutation, revision));
}

export function interrupt(sessionId: string): Promise<ActiveActionResponse> {
  return send(runtimeRequests.interrupt(sessionId));
}

export function compact(sessionId: string, customInstructions?: string): Promise<ActiveDetailResponse> {
  return send(runtimeRequests.compact(sessionId, customInstructions));
}

export function reload(sessionId: string): Promise<ActiveActionResponse> {
  return send(runtimeRequests.reload(sessionId));
}

export function setModel(sessionId: string, model: { provider: string; id: string }): Promise<ActiveActionResponse> {
  return send(runtimeRequests.model(sessionId, model));
}

export function setThinkingLevel(sessionId: string, level: string): Promise<ActiveActionResponse> {
  return send(runtimeRequests.thinking(sessionId, level));
}

/** Turns Ultrafast on or off; the resulting mode is `active.state.extensionUi.statuses["leyline-ultrafast"]`. */
export function setUltrafast(sessionId: string, enabled: boolean): Promise<ActiveActionResponse> {
  return send(runtimeRequests.ultrafast(sessionId, enabled));
}

/** The session's current runtime snapshot (through the side-effect-free mode route). */
export function refreshActive(sessionId: string): Promise<ActiveActionResponse> {
  return send(runtimeRequests.mode(sessionId));
}

export function answerConfirmation(sessionId: string, requestId: string, confirmed: boolean): Promise<OkResponse> {
  return send(runtimeRequests.confirm(sessionId, requestId, confirmed));
}

/** Forks at an entry into a new session (selected); the new session id is `active.id`. */
export function fork(sessionId: string, entryId: string): Promise<ActiveDetailResponse> {
  return send(runtimeRequests.fork(sessionId, entryId));
}

export function editPrompt(sessionId: string, entryId: string, text: string, images?: PromptImage[]): Promise<ActiveActionResponse> {
  return send(runtimeRequests.editPrompt(sessionId, entryId, text, images));
}

export function runBash(sessionId: string, command: string, excludeFromContext?: boolean): Promise<ActiveDetailResponse> {
  return send(runtimeRequests.bash(sessionId, command, excludeFromContext));
}

export function renameSession(sessionId: string, name: string): Promise<RenameSessionResponse> {
  return send(runtimeRequests.rename(sessionId, name));
}

/** POST /api/pi/sessions `{ cwd, kind }`: a new pi session and its runtime (selected), with its first detail. */
export function createSession(cwd: string, kind: SessionKind): Promise<CreateSessionResponse> {
  return http.post<CreateSessionResponse>("/api/pi/sessions", { cwd, kind });
}

/** A folder's runtime options (GET /api/pi/state: a bounded, cached preview on the server; no cwd: the default folder). */
export function runtimeState(cwd?: string): Promise<ActiveResponse> {
  return http.get<ActiveResponse>("/api/pi/state", cwd ? { query: { cwd } } : {});
}

export function selectSession(sessionId: string): Promise<ActiveResponse> {
  return send(runtimeRequests.selectSession(sessionId));
}

/**
 * Reset to here: selects the session, then rewrites its file to end at `entryId` (destructive; the spec
 * offers this route only for the selected session). If another tab selected a different session in
 * between, the answer names that session: refused with 409 rather than reported as done.
 */
export async function resetToEntry(sessionId: string, entryId: string): Promise<ActiveDetailResponse> {
  await selectSession(sessionId);
  const response = await send<ActiveDetailResponse>(runtimeRequests.resetToEntry(entryId));
  if (response.active.id !== sessionId) {
    throw new ApiError(
      409,
      `Reset went to session ${response.active.id}, not ${sessionId}: another window selected it.`,
      "POST /api/pi/reset-to-entry",
    );
  }
  return response;
}

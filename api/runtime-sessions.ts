/**
 * What the session write routes and the runtime action routes share: resolving a session id to an open
 * runtime (opening its file when it is not open), the SessionDetail of a runtime (folded from its file, or a
 * minimal one while pi has not written the file yet), and the request body guard.
 *
 * A session whose cwd no longer exists is never opened (no worker is spawned): 409 with the detail's
 * `readOnly.message` (the spec names no status for this; it is a conflict with the session's state, not a
 * failed runtime load).
 */
import { emptySessionUsage } from "../domain/session-usage.ts";
import fs from "node:fs";
import type { RuntimeHandle } from "../adapters/runtime-host/runtime-handle.ts";
import type { RuntimeHost } from "../adapters/runtime-host/runtime-host.ts";
import { SESSION_NOT_FOUND } from "../adapters/runtime-host/runtime-host-error.ts";
import { readSessionHeader } from "../adapters/runtime-worker/worker-runtime.ts";
import { HttpError } from "./http-error.ts";
import type { ReadSide } from "../adapters/read-side/read-side.ts";
import type { SessionDetail } from "../domain/session-detail.ts";
import { readOnlyOf } from "../projections/session-detail.ts";
import { loadSessionDetail } from "./sessions.routes.ts";

export { SESSION_NOT_FOUND };

/**
 * Closes a session's runtime for a file operation (DELETE, reset undo), refusing with 500 while it streams,
 * sets up a prompt or compacts (spec: a blocked action answers 500). No runtime: nothing to close.
 */
export async function closeIdleRuntime(host: RuntimeHost, id: string, action: string): Promise<void> {
  const handle = host.get(id);
  if (handle === undefined) return;
  const { state } = handle.active();
  if (state.isStreaming || handle.busy()) throw new HttpError("action_blocked", `Cannot ${action} while the session is streaming`);
  if (state.isCompacting) throw new HttpError("action_blocked", `Cannot ${action} while the session is compacting`);
  await host.close(id);
}

export interface RuntimeRouteServices {
  readonly readSide: ReadSide;
  readonly host: RuntimeHost;
}

/** The persisted file of a session id (from the index), or null. */
export async function persistedFileOf(readSide: ReadSide, id: string): Promise<string | null> {
  const { index } = await readSide.ready();
  return index.list().find((summary) => summary.id === id)?.path ?? null;
}

/** The open runtime of `id`, opening its persisted file when needed; 404 when the id is unknown. */
export async function openSession(services: RuntimeRouteServices, id: string): Promise<RuntimeHandle> {
  const open = services.host.get(id);
  if (open !== undefined) {
    // Its file was removed behind the runtime's back: close it (pi would append to a new, headerless file).
    if (!open.fileDeleted()) return open;
    await services.host.close(id);
    throw new HttpError("session_not_found", SESSION_NOT_FOUND);
  }
  const file = await persistedFileOf(services.readSide, id);
  if (file === null || !fs.existsSync(file)) throw new HttpError("session_not_found", SESSION_NOT_FOUND);
  return openSessionFile(services.host, file);
}

/** Opens a persisted session file in a runtime; 409 when its header's cwd is gone (see the module comment). */
export async function openSessionFile(host: RuntimeHost, file: string): Promise<RuntimeHandle> {
  let cwd: string | null = null;
  try {
    cwd = readSessionHeader(file).cwd;
  } catch {
    // Not a readable session header: the runtime's own open reports it, as before.
  }
  const readOnly = cwd === null ? null : readOnlyOf(cwd, fs.existsSync);
  if (readOnly !== null) throw new HttpError("conflict", readOnly.message);
  return host.open({ sessionFile: file });
}

/** The detail of a runtime without a saved file yet: its list row, its research state from the worker, no entries. */
export function unsavedDetail(handle: RuntimeHandle): SessionDetail {
  const summary = handle.summary();
  const now = new Date().toISOString();
  return {
    session: {
      ...summary,
      sessionFile: handle.sessionFile ?? "",
      messageCount: summary.messageCount,
      contextTokens: null,
      modified: summary.modified ?? now,
      created: summary.timestamp ?? now,
      research: handle.researchState(),
      usage: emptySessionUsage(),
      ...unsavedSettings(handle),
    },
    entries: [],
  };
}

/** What pi will write first (a new v3 file), from the runtime itself. */
function unsavedSettings(handle: RuntimeHandle): Pick<SessionDetail["session"], "model" | "thinkingLevel" | "fileVersion" | "readOnly"> {
  const { state } = handle.active();
  return {
    model: state.model ? { provider: state.model.provider, id: state.model.id } : null,
    thinkingLevel: state.thinkingLevel,
    fileVersion: 3,
    readOnly: null,
  };
}

/** The SessionDetail of a runtime's session (after the index re-checked the file). */
export async function detailOf(readSide: ReadSide, handle: RuntimeHandle): Promise<SessionDetail> {
  const file = handle.sessionFile;
  if (file !== null && fs.existsSync(file)) {
    const { index, details } = await readSide.ready();
    await index.touch([file]);
    const detail = await loadSessionDetail(details, file);
    if (detail !== null) return detail;
  }
  return unsavedDetail(handle);
}

/** A JSON object body; a missing body is `{}`; anything else → 400. */
export function bodyObject(body: unknown): Record<string, unknown> {
  if (body === undefined || body === null) return {};
  if (typeof body !== "object" || Array.isArray(body)) throw new HttpError("invalid_request", "Request body must be a JSON object");
  return body as Record<string, unknown>;
}

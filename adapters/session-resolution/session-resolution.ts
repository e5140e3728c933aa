/**
 * Session resolution, shared by the session write routes, the reset routes and the runtime action routes:
 * a session id (or file, or folder) to an open runtime (opening its file when it is not open), the
 * SessionDetail of a runtime (folded from its file by the read side, or a minimal one while pi has not written
 * the file yet), and closing an idle runtime before a file operation.
 *
 * Failures a route answers are ServiceErrors (domain/service-error.ts; the app's error handler maps their
 * code to the status): an unknown or deleted session is `session_not_found` (404), a streaming or compacting
 * session is `action_blocked` (500, as the spec answers a blocked action).
 *
 * A session whose cwd no longer exists is never opened (no worker is spawned): `conflict` (409) with the
 * detail's `readOnly.message` (the spec names no status for this; it is a conflict with the session's state,
 * not a failed runtime load).
 */
import fs from "node:fs";
import path from "node:path";
import type { SessionDetail } from "../../domain/session-detail.ts";
import { emptySessionUsage } from "../../domain/session-usage.ts";
import { ServiceError } from "../../domain/service-error.ts";
import { readOnlyOf } from "../../projections/session-detail.ts";
import type { ReadSide } from "../read-side/read-side.ts";
import { loadSessionDetail, persistedFileOf } from "../read-side/session-lookup.ts";
import type { RuntimeHandle } from "../runtime-host/runtime-handle.ts";
import { SESSION_NOT_FOUND } from "../runtime-host/runtime-host-error.ts";
import type { RuntimeHost } from "../runtime-host/runtime-host.ts";
import { readSessionHeader } from "../runtime-worker/worker-runtime.ts";

export interface SessionResolutionServices {
  readonly readSide: ReadSide;
  readonly host: RuntimeHost;
}

/**
 * Closes a session's runtime for a file operation (DELETE, reset undo), refusing while it streams, sets up a
 * prompt or compacts (`action_blocked`). No runtime: nothing to close.
 */
export async function closeIdleRuntime(host: RuntimeHost, id: string, action: string): Promise<void> {
  const handle = host.get(id);
  if (handle === undefined) return;
  const { state } = handle.active();
  if (state.isStreaming || handle.busy()) throw new ServiceError("action_blocked", `Cannot ${action} while the session is streaming`);
  if (state.isCompacting) throw new ServiceError("action_blocked", `Cannot ${action} while the session is compacting`);
  await host.close(id);
}

/** The open runtime of `id`, opening its persisted file when needed; `session_not_found` when the id is unknown. */
export async function openSession(services: SessionResolutionServices, id: string): Promise<RuntimeHandle> {
  const open = services.host.get(id);
  if (open !== undefined) {
    // Its file was removed behind the runtime's back: close it (pi would append to a new, headerless file).
    if (!open.fileDeleted()) return open;
    await services.host.close(id);
    throw new ServiceError("session_not_found", SESSION_NOT_FOUND);
  }
  const file = await persistedFileOf(services.readSide, id);
  if (file === null || !fs.existsSync(file)) throw new ServiceError("session_not_found", SESSION_NOT_FOUND);
  return openSessionFile(services.host, file);
}

/** Opens a persisted session file in a runtime; `conflict` when its header's cwd is gone (see the module comment). */
export async function openSessionFile(host: RuntimeHost, file: string): Promise<RuntimeHandle> {
  let cwd: string | null = null;
  try {
    cwd = readSessionHeader(file).cwd;
  } catch {
    // Not a readable session header: the runtime's own open reports it, as before.
  }
  const readOnly = cwd === null ? null : readOnlyOf(cwd, fs.existsSync);
  if (readOnly !== null) throw new ServiceError("conflict", readOnly.message);
  return host.open({ sessionFile: file });
}

/** The newest session of a folder (absolute): an open runtime there, else the newest persisted one; null if none. */
export async function newestIn(
  services: SessionResolutionServices,
  folder: string,
): Promise<{ handle?: RuntimeHandle; file?: string } | null> {
  const open = [...services.host.openRuntimes()].reverse().find((handle) => path.resolve(handle.cwd) === folder);
  if (open !== undefined) return { handle: open };
  const { index } = await services.readSide.ready();
  const persisted = index.list().find((summary) => path.resolve(summary.cwd) === folder);
  return persisted !== undefined ? { file: persisted.path } : null;
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

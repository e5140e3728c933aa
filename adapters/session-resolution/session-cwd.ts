/**
 * The working folder of a session, for the workspace tools (file links, the terminal, review actions), without
 * opening a runtime or changing the selection: the open runtime's cwd, else the persisted file's header (pi
 * writes the cwd there), else the indexed summary. An unknown id is `session_not_found` (404).
 */
import fs from "node:fs";
import { isInsideProject } from "../../domain/file-links/project-scope.ts";
import { ServiceError } from "../../domain/service-error.ts";
import type { ReadSide } from "../read-side/read-side.ts";
import { persistedFileOf } from "../read-side/session-lookup.ts";
import { SESSION_NOT_FOUND } from "../runtime-host/runtime-host-error.ts";
import type { RuntimeHost } from "../runtime-host/runtime-host.ts";
import { readSessionHeader } from "../runtime-worker/worker-runtime.ts";

export interface SessionCwdServices {
  readonly readSide: ReadSide;
  readonly host: RuntimeHost;
}

/** The session's cwd, or null when no session has this id. */
export async function findSessionCwd(services: SessionCwdServices, id: string): Promise<string | null> {
  const open = services.host.get(id);
  if (open !== undefined) return open.cwd;
  const file = await persistedFileOf(services.readSide, id);
  if (file === null) return null;
  try {
    return readSessionHeader(file).cwd;
  } catch {
    const { index } = await services.readSide.ready();
    return index.list().find((summary) => summary.id === id)?.cwd ?? null;
  }
}

/** The session's cwd; `session_not_found` (404, "Session not found") when no session has this id. */
export async function sessionCwd(services: SessionCwdServices, id: string): Promise<string> {
  const cwd = await findSessionCwd(services, id);
  if (cwd === null) throw new ServiceError("session_not_found", SESSION_NOT_FOUND);
  return cwd;
}

/**
 * Whether the session's agent is mid-turn (streaming, compacting, or a prompt being set up): review actions on
 * its repository say so instead of racing the agent's own edits.
 */
function sessionAgentBusy(host: RuntimeHost, id: string): boolean {
  const handle = host.get(id);
  if (handle === undefined) return false;
  const { state } = handle.active();
  return state.isStreaming || state.isCompacting || handle.busy();
}

/** `dir` and, when it differs, its canonical form (symbolic links resolved); only `dir` when it cannot be resolved. */
function spellings(dir: string): string[] {
  try {
    const real = fs.realpathSync(dir);
    return real === dir ? [dir] : [dir, real];
  } catch {
    return [dir];
  }
}

/**
 * The open runtimes mid-turn whose work can reach `root` (their ids): the agent's cwd is inside `root`, or `root`
 * is inside the agent's cwd (an agent in ~/work writes into ~/work/proj). Both paths are compared as given and
 * with symbolic links resolved, so a cwd reaching the folder through a link counts.
 */
export function busyAgentsIn(host: RuntimeHost, root: string): string[] {
  const roots = spellings(root);
  return host
    .openRuntimes()
    .filter((handle) => {
      if (!sessionAgentBusy(host, handle.sessionId)) return false;
      const cwds = spellings(handle.cwd);
      return roots.some((r) => cwds.some((cwd) => isInsideProject(cwd, r) || isInsideProject(r, cwd)));
    })
    .map((handle) => handle.sessionId);
}

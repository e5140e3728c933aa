/**
 * The context of the subagent routes (spec `context`): the project a cwd belongs to and the session, if any.
 *
 * - Paths are canonical: `~` expanded, made absolute, symlinks resolved (for a path that does not exist yet,
 *   its parent folder is resolved and the name kept, so a session file pi has not written yet gets the same
 *   key it will have once written).
 * - The project root is the nearest folder, walking up from the cwd, that holds a `.git` entry (a folder, or
 *   a file as in worktrees and submodules); without one, the cwd itself.
 * - The project id is a stable hash of the canonical root: `sha256(root)`, first 16 hex digits. The project
 *   name is the root's base name.
 * - The session scope is keyed by the canonical session file. Its id comes from `sessionIdOf` (open runtimes,
 *   the session index), else from the file's header line; null when neither knows it.
 */
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type { SubagentContext } from "../../domain/subagent/subagent-types.ts";
import { expandHome } from "../sqlite/data-dir.ts";

export interface SubagentContextInput {
  readonly cwd: string;
  /** The session of the "Session details" surface; omitted or blank: no session. */
  readonly sessionPath?: string | undefined;
  /** The id of a (canonical) session file when something in memory knows it; else null. */
  readonly sessionIdOf?: ((sessionFile: string) => string | null) | undefined;
}

/** `p` with `~` expanded, absolute, symlinks resolved as far as the path exists. */
export function canonicalPath(p: string): string {
  const absolute = path.resolve(expandHome(p.trim()));
  try {
    return fs.realpathSync(absolute);
  } catch {
    const parent = path.dirname(absolute);
    if (parent === absolute) return absolute;
    return path.join(canonicalPath(parent), path.basename(absolute));
  }
}

/** The nearest folder from `dir` up holding `.git`, else `dir`. */
export function projectRootOf(dir: string): string {
  let current = dir;
  for (;;) {
    if (fs.existsSync(path.join(current, ".git"))) return current;
    const parent = path.dirname(current);
    if (parent === current) return dir;
    current = parent;
  }
}

export function projectIdOf(projectRoot: string): string {
  return createHash("sha256").update(projectRoot).digest("hex").slice(0, 16);
}

/** The `id` of a session file's header line, or null (missing file, no header). Reads only the first line. */
export function sessionIdFromHeader(file: string): string | null {
  let fd: number;
  try {
    // Regular files only: opening a FIFO (a request's sessionPath can name anything) would block the event loop.
    if (!fs.statSync(file).isFile()) return null;
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  } catch {
    return null;
  }
  try {
    const buffer = Buffer.alloc(64 * 1024);
    const read = fs.readSync(fd, buffer, 0, buffer.length, 0);
    const text = buffer.subarray(0, read).toString("utf8");
    const newline = text.indexOf("\n");
    const firstLine = newline === -1 ? text : text.slice(0, newline);
    const header: unknown = JSON.parse(firstLine);
    if (typeof header !== "object" || header === null) return null;
    const record = header as Record<string, unknown>;
    return record["type"] === "session" && typeof record["id"] === "string" && record["id"] !== "" ? record["id"] : null;
  } catch {
    return null;
  } finally {
    fs.closeSync(fd);
  }
}

export function resolveSubagentContext(input: SubagentContextInput): SubagentContext {
  const cwd = canonicalPath(input.cwd);
  const projectRoot = projectRootOf(cwd);
  const given = input.sessionPath?.trim() ?? "";
  const sessionFile = given === "" ? null : canonicalPath(given);
  const sessionId = sessionFile === null ? null : (input.sessionIdOf?.(sessionFile) ?? sessionIdFromHeader(sessionFile));
  return {
    cwd,
    projectId: projectIdOf(projectRoot),
    projectName: path.basename(projectRoot) || projectRoot,
    projectRoot,
    sessionAvailable: sessionFile !== null,
    sessionFile,
    sessionId,
  };
}

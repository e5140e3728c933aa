/**
 * Resolving a file link of a session on disk (spec "POST /api/pi/sessions/:id/file"): the link's readings
 * (domain/file-links/file-href.ts) are tried in order against the file system, relative ones from the session's
 * cwd, or from the folder of `basePath` when it is nonempty (`basePath` itself relative to the cwd); the first
 * reading that exists wins, so a file literally named `notes:12` is that file, not `notes` at line 12. The winner's
 * symlinks are resolved (realpath) and it must be a regular file. `outsideProject` compares the canonical file with
 * the canonical cwd.
 *
 * The file that was checked is recorded by its identity (lstat of the canonical path: a regular file, not a
 * symlink; its dev and ino), so a reader can refuse a file swapped in after the check (file-preview.ts). The
 * identity is internal: it is never part of an answer.
 *
 * Nothing is read but metadata; failures come back as `error` (they are answered in the descriptor, status 200).
 */
import fs from "node:fs";
import path from "node:path";
import { hasControlCharacter, LINK_CONTROL_CHARACTER, parseFileHref, type FileLinkTarget } from "../../domain/file-links/file-href.ts";
import { isInsideProject } from "../../domain/file-links/project-scope.ts";

export const FILE_NOT_FOUND = "File not found";
export const NOT_A_REGULAR_FILE = "Only regular files can be opened";
export const FILE_CHANGED = "The file changed while it was being opened; try again.";

/** Which file was checked: its device and inode (exact, as bigints). */
export interface FileIdentity {
  readonly dev: bigint;
  readonly ino: bigint;
}

export interface ResolvedFileLink {
  /** The canonical path; when resolution failed, the absolute path the link names (or the link itself). */
  readonly path: string;
  readonly line?: number;
  readonly endLine?: number;
  readonly column?: number;
  readonly anchor?: string;
  readonly outsideProject: boolean;
  readonly error?: string;
  /** The checked file (internal, never answered); present exactly when `error` is absent. */
  readonly identity?: FileIdentity;
}

export interface FileLinkInput {
  /** The session's cwd. */
  readonly cwd: string;
  readonly href: string;
  readonly basePath?: string;
  /** The folder `~` names. */
  readonly home: string;
}

/** The canonical form of a folder (realpath), or its absolute form when it cannot be resolved. */
export async function canonicalFolder(folder: string): Promise<string> {
  try {
    return await fs.promises.realpath(folder);
  } catch {
    return path.resolve(folder);
  }
}

function positionOf(target: FileLinkTarget): Omit<ResolvedFileLink, "path" | "outsideProject"> {
  return {
    ...(target.line !== undefined ? { line: target.line } : {}),
    ...(target.endLine !== undefined ? { endLine: target.endLine } : {}),
    ...(target.column !== undefined ? { column: target.column } : {}),
    ...(target.anchor !== undefined ? { anchor: target.anchor } : {}),
  };
}

function expandHome(file: string, home: string): string {
  if (file === "~") return home;
  return file.startsWith("~/") ? path.join(home, file.slice(2)) : file;
}

/** Whether something is at `file` (following symlinks); other failures than "nothing there" count as there. */
async function exists(file: string): Promise<boolean> {
  try {
    await fs.promises.stat(file);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return !(code === "ENOENT" || code === "ENOTDIR" || code === "ENAMETOOLONG");
  }
}

export async function resolveFileLink(input: FileLinkInput): Promise<ResolvedFileLink> {
  const cwd = path.resolve(input.cwd);
  const root = await canonicalFolder(cwd);
  const failed = (where: string, error: string, target?: FileLinkTarget): ResolvedFileLink => ({
    path: where,
    ...(target !== undefined ? positionOf(target) : {}),
    outsideProject: path.isAbsolute(where)
      ? !isInsideProject(path.resolve(where), root) && !isInsideProject(path.resolve(where), cwd)
      : false,
    error,
  });

  const basePath = input.basePath ?? "";
  if (hasControlCharacter(basePath)) return failed(input.href, LINK_CONTROL_CHARACTER);
  const base = basePath !== "" ? path.resolve(cwd, expandHome(basePath, input.home)) : null;
  const folder = base !== null ? path.dirname(base) : cwd;

  const parsed = parseFileHref(input.href, input.home);
  if (!parsed.ok) return failed(input.href, parsed.error);

  let chosen: { target: FileLinkTarget; file: string } | null = null;
  let last: { target: FileLinkTarget; file: string } | null = null;
  for (const target of parsed.readings) {
    let file: string;
    if (target.path === "") {
      if (base === null) continue;
      file = base;
    } else {
      file = path.resolve(folder, target.path);
    }
    last = { target, file };
    if (await exists(file)) {
      chosen = last;
      break;
    }
  }
  if (last === null) return failed(input.href, FILE_NOT_FOUND);
  if (chosen === null) return failed(last.file, FILE_NOT_FOUND, last.target);

  let canonical: string;
  let stat: fs.BigIntStats;
  try {
    canonical = await fs.promises.realpath(chosen.file);
    stat = await fs.promises.lstat(canonical, { bigint: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const message = code === "ENOENT" ? FILE_NOT_FOUND : `The file cannot be opened (${code ?? "error"})`;
    return failed(chosen.file, message, chosen.target);
  }
  const outsideProject = !isInsideProject(canonical, root);
  const position = positionOf(chosen.target);
  // The canonical path has no symlink left in it: one there now was swapped in after realpath.
  if (stat.isSymbolicLink()) return { path: canonical, ...position, outsideProject, error: FILE_CHANGED };
  if (!stat.isFile()) return { path: canonical, ...position, outsideProject, error: NOT_A_REGULAR_FILE };
  return { path: canonical, ...position, outsideProject, identity: { dev: stat.dev, ino: stat.ino } };
}

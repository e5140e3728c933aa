/**
 * GET /api/pi/fs (spec "Filesystem route"): the directory browser of the start screen.
 *
 * Query `path` (default `~/`) and `cwd`. `~` and `~/x` are the home directory; paths starting with `./` or
 * `../` (or exactly `.`/`..`) resolve from `cwd` and require it; other relative paths resolve from the server
 * process directory. A path that is missing, not a directory or unreadable is a 500 with a message.
 *
 * Only directories are listed ("entries and directories contain the same directory list"): files are not
 * shown by the picker. Symbolic links to directories count as directories; broken links are skipped.
 * Entries are sorted by name (case-insensitive, then by code unit); `hidden` marks dot-names.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { FastifyPluginAsync } from "fastify";
import { listDirectory as listDirectoryRoute } from "../domain/contract/http-sessions.ts";
import { typed } from "./contract.ts";
import { HttpError } from "./http-error.ts";

import type { DirectoryEntry, DirectoryListing } from "../domain/directory-listing.ts";

export type { DirectoryEntry, DirectoryListing } from "../domain/directory-listing.ts";

export interface FsRoutesOptions {
  /** The home directory (default `os.homedir()`). */
  readonly home?: string;
  /** Where other relative paths resolve from (default `process.cwd()`). */
  readonly processDir?: string;
}

function needsCwd(value: string): boolean {
  return value === "." || value === ".." || value.startsWith("./") || value.startsWith("../");
}

/** Resolves the query to an absolute path; throws a 500 HttpError when it cannot. */
export function resolveBrowsePath(value: string | undefined, cwd: string | undefined, home: string, processDir: string): string {
  const raw = value === undefined || value.trim() === "" ? "~/" : value.trim();
  if (raw.includes("\0")) throw new HttpError("directory_unreadable", "Invalid path");
  if (raw === "~") return home;
  if (raw.startsWith("~/")) return path.resolve(home, raw.slice(2));
  if (needsCwd(raw)) {
    const base = cwd?.trim();
    if (base === undefined || base === "") throw new HttpError("directory_unreadable", `A relative path needs cwd: ${raw}`);
    if (base.includes("\0")) throw new HttpError("directory_unreadable", "Invalid cwd");
    const absoluteBase = base === "~" ? home : base.startsWith("~/") ? path.resolve(home, base.slice(2)) : path.resolve(processDir, base);
    return path.resolve(absoluteBase, raw);
  }
  return path.resolve(processDir, raw);
}

function compareNames(a: DirectoryEntry, b: DirectoryEntry): number {
  const al = a.name.toLowerCase();
  const bl = b.name.toLowerCase();
  if (al !== bl) return al < bl ? -1 : 1;
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

async function isDirectory(dirent: fs.Dirent, fullPath: string): Promise<boolean> {
  if (dirent.isDirectory()) return true;
  if (!dirent.isSymbolicLink()) return false;
  try {
    return (await fs.promises.stat(fullPath)).isDirectory();
  } catch {
    return false;
  }
}

export async function listDirectory(dir: string, home: string): Promise<DirectoryListing> {
  let dirents: fs.Dirent[];
  try {
    dirents = await fs.promises.readdir(dir, { withFileTypes: true });
  } catch (error) {
    const code = typeof error === "object" && error !== null && "code" in error ? String(error.code) : "";
    const reason = code === "ENOENT" ? "No such directory" : code === "ENOTDIR" ? "Not a directory" : code === "EACCES" ? "Permission denied" : "Cannot read directory";
    throw new HttpError("directory_unreadable", `${reason}: ${dir}`);
  }
  const directories: DirectoryEntry[] = [];
  for (const dirent of dirents) {
    const fullPath = path.join(dir, dirent.name);
    if (await isDirectory(dirent, fullPath)) {
      directories.push({ name: dirent.name, fullPath, path: fullPath, hidden: dirent.name.startsWith(".") });
    }
  }
  directories.sort(compareNames);
  const parent = path.dirname(dir);
  return {
    parentPath: parent,
    path: dir,
    parent,
    home,
    entries: directories,
    directories: directories.map((entry) => ({ ...entry })),
    root: path.parse(dir).root,
  };
}


export const fsRoutes: FastifyPluginAsync<FsRoutesOptions> = async (app, options) => {
  const home = options.home ?? os.homedir();
  const processDir = options.processDir ?? process.cwd();
  typed(app).get(
    listDirectoryRoute.url,
    { schema: listDirectoryRoute.schema },
    async (request) => {
      const dir = resolveBrowsePath(request.query.path, request.query.cwd, home, processDir);
      return listDirectory(dir, home);
    },
  );
};

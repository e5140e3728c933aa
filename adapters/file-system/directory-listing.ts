/**
 * The folder browser of the start screen (GET /api/pi/fs): a browse path resolved to a folder, and that
 * folder's subfolders. The DTO and the pure rules are domain/directory-listing.ts.
 *
 * `~` and `~/x` are the home directory; paths starting with `./` or `../` (or exactly `.`/`..`) resolve from
 * `cwd` and require it; other relative paths resolve from the server process directory. A path that is
 * invalid, missing, not a directory or unreadable is a `directory_unreadable` ServiceError (500, spec).
 *
 * Only directories are listed ("entries and directories contain the same directory list"): files are not
 * shown by the picker. Symbolic links to directories count as directories; broken links are skipped.
 * Entries are sorted by name (case-insensitive, then by code unit); `hidden` marks dot-names.
 */
import fs from "node:fs";
import path from "node:path";
import { compareDirectoryEntries, isCwdRelative, type DirectoryEntry, type DirectoryListing } from "../../domain/directory-listing.ts";
import { ServiceError } from "../../domain/service-error.ts";

/** Resolves a browse path (the query's `path`, `cwd`) to an absolute path; `directory_unreadable` when it cannot. */
export function resolveBrowsePath(value: string | undefined, cwd: string | undefined, home: string, processDir: string): string {
  const raw = value === undefined || value.trim() === "" ? "~/" : value.trim();
  if (raw.includes("\0")) throw new ServiceError("directory_unreadable", "Invalid path");
  if (raw === "~") return home;
  if (raw.startsWith("~/")) return path.resolve(home, raw.slice(2));
  if (isCwdRelative(raw)) {
    const base = cwd?.trim();
    if (base === undefined || base === "") throw new ServiceError("directory_unreadable", `A relative path needs cwd: ${raw}`);
    if (base.includes("\0")) throw new ServiceError("directory_unreadable", "Invalid cwd");
    const absoluteBase = base === "~" ? home : base.startsWith("~/") ? path.resolve(home, base.slice(2)) : path.resolve(processDir, base);
    return path.resolve(absoluteBase, raw);
  }
  return path.resolve(processDir, raw);
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

/** The subfolders of `dir`; `directory_unreadable` when it cannot be read. */
export async function listDirectory(dir: string, home: string): Promise<DirectoryListing> {
  let dirents: fs.Dirent[];
  try {
    dirents = await fs.promises.readdir(dir, { withFileTypes: true });
  } catch (error) {
    const code = typeof error === "object" && error !== null && "code" in error ? String(error.code) : "";
    const reason =
      code === "ENOENT"
        ? "No such directory"
        : code === "ENOTDIR"
          ? "Not a directory"
          : code === "EACCES"
            ? "Permission denied"
            : "Cannot read directory";
    throw new ServiceError("directory_unreadable", `${reason}: ${dir}`);
  }
  const directories: DirectoryEntry[] = [];
  for (const dirent of dirents) {
    const fullPath = path.join(dir, dirent.name);
    if (await isDirectory(dirent, fullPath)) {
      directories.push({ name: dirent.name, fullPath, path: fullPath, hidden: dirent.name.startsWith(".") });
    }
  }
  directories.sort(compareDirectoryEntries);
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

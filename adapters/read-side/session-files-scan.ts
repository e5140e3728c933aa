/**
 * Listing and stat-ing the `*.jsonl` files of a sessions folder tree. pi itself lists `sessions/<dir>/*.jsonl`;
 * we list every depth. Synchronous on purpose: these are metadata calls (microseconds each), and doing
 * them in one go is several times faster than a promise per file.
 */
import fs from "node:fs";
import path from "node:path";
import { stampOf, type FileStamp } from "../session-files/file-tail.ts";

export const SESSION_FILE_SUFFIX = ".jsonl";

export function isSessionFileName(name: string): boolean {
  return name.endsWith(SESSION_FILE_SUFFIX);
}

/** Every `*.jsonl` regular file under `folder` (any depth); a missing folder lists nothing. */
export function listSessionFiles(folder: string): string[] {
  const found: string[] = [];
  const walk = (dir: string): void => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    // `dir` is normalised and a name has no separator: concatenation is path.join without re-normalising.
    const prefix = dir.endsWith(path.sep) ? dir : dir + path.sep;
    for (const entry of entries) {
      const full = prefix + entry.name;
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile() && isSessionFileName(entry.name)) found.push(full);
    }
  };
  walk(path.normalize(folder));
  return found;
}

/** The file's stamp, or null when it is missing or not a regular file. */
export function statSessionFile(file: string): FileStamp | null {
  try {
    const stat = fs.statSync(file, { throwIfNoEntry: false });
    return stat !== undefined && stat.isFile() ? stampOf(stat) : null;
  } catch {
    return null;
  }
}

/** Whether `file` is below `folder`; both absolute and normalised (as `path.resolve`/`path.join` make them). */
export function isInside(folder: string, file: string): boolean {
  return file.length > folder.length + 1 && file.startsWith(folder) && file[folder.length] === path.sep;
}

/**
 * The copy a discard keeps of the working file before git (or the unlink of an untracked file) replaces it:
 * `<agentDir>/leyline-trash/review/<ISO time>-<name>` (then `<ISO time>-2-<name>`, ... : never overwriting,
 * created exclusively), private to its owner (folder 0700, file 0600).
 *
 * The file is read without following a symbolic link out of the repository: a link is kept as a text file
 * `<name>.symlink` holding its target (what git stores for it), a regular file is opened with O_NOFOLLOW and
 * checked to still be a regular file. Callers have already checked that no folder on the way is a link.
 */
import fs from "node:fs";
import path from "node:path";
import { ServiceError } from "../../domain/service-error.ts";
import { trashStamp } from "../session-files/trash-copy.ts";

/** The folder discarded changes are kept in. */
export function discardTrashDir(agentDir: string): string {
  return path.join(agentDir, "leyline-trash", "review");
}

export interface WorkingCopy {
  readonly bytes: Buffer;
  readonly symlink: boolean;
}

/** The working file's bytes (a link's target), null when there is no file; a folder or special file is refused. */
export function readWorkingCopy(file: string): WorkingCopy | null {
  let stat: fs.Stats;
  try {
    stat = fs.lstatSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
  if (stat.isSymbolicLink()) return { bytes: Buffer.from(fs.readlinkSync(file, { encoding: "buffer" })), symlink: true };
  if (stat.isDirectory()) throw new ServiceError("invalid_request", "A folder cannot be discarded here: discard its files one by one.");
  if (!stat.isFile()) throw new ServiceError("invalid_request", "Only files and symbolic links can be discarded.");
  const fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
  try {
    if (!fs.fstatSync(fd).isFile()) throw new ServiceError("invalid_request", "Only files and symbolic links can be discarded.");
    return { bytes: fs.readFileSync(fd), symlink: false };
  } finally {
    fs.closeSync(fd);
  }
}

/** `name` cut to at most `max` UTF-8 bytes (whole characters). */
function clip(name: string, max: number): string {
  let out = "";
  let bytes = 0;
  for (const char of name) {
    const size = Buffer.byteLength(char);
    if (bytes + size > max) break;
    out += char;
    bytes += size;
  }
  return out;
}

/** Writes the copy under the first free name; returns its path. */
export function keepDiscardCopy(trashDir: string, repoPath: string, copy: WorkingCopy, now: number): string {
  fs.mkdirSync(trashDir, { recursive: true, mode: 0o700 });
  const name = clip(path.posix.basename(repoPath), 180) + (copy.symlink ? ".symlink" : "");
  const stamp = trashStamp(now);
  for (let n = 1; ; n++) {
    const target = path.join(trashDir, n === 1 ? `${stamp}-${name}` : `${stamp}-${n}-${name}`);
    try {
      fs.writeFileSync(target, copy.bytes, { flag: "wx", mode: 0o600 });
      fs.chmodSync(target, 0o600);
      return target;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
  }
}

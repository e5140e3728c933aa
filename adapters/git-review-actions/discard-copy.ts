/**
 * The copy a discard keeps of the working file before git (or the unlink of an untracked file) replaces it:
 * `<agentDir>/leyline-trash/review/<ISO time>-<name>` (then `<ISO time>-2-<name>`, ... : never overwriting,
 * created exclusively), private to its owner (folder 0700, file 0600), flushed to disk (the copy and its folder
 * fsynced) before the caller discards anything.
 *
 * Rules it keeps:
 * - Never following a symbolic link out of the repository: a link is kept as a text file `<name>.symlink`
 *   holding its target (what git stores for it); a regular file is opened with O_NOFOLLOW and checked (fstat) to
 *   be the regular file that was looked at. Callers have already checked that no folder on the way is a link.
 * - Never blocking: every call is asynchronous, the file is opened with O_NONBLOCK (a file swapped for a FIFO
 *   answers at once and is refused) and copied in chunks through its descriptor (no size limit of a whole-file
 *   read).
 * - Never losing bytes unnoticed: the copy comes with a snapshot of the file (device, inode, size, modification
 *   and change times, in nanoseconds); a file that changes while it is copied is refused, and the caller compares
 *   a fresh `fileSnapshot` with it just before discarding (the window left is that of one lstat and one git run).
 */
import fs from "node:fs";
import type { FileHandle } from "node:fs/promises";
import path from "node:path";
import { FILE_CHANGED_WHILE_DISCARDING } from "../../domain/git-review-actions/review-action-rules.ts";
import { ServiceError } from "../../domain/service-error.ts";
import { trashStamp } from "../session-files/trash-copy.ts";

const CHUNK_BYTES = 1024 * 1024;
const ONLY_FILES = "Only files and symbolic links can be discarded.";

/** The folder discarded changes are kept in. */
export function discardTrashDir(agentDir: string): string {
  return path.join(agentDir, "leyline-trash", "review");
}

/** What is at a path, enough to tell that it changed; null when nothing is there. */
export interface FileSnapshot {
  readonly dev: bigint;
  readonly ino: bigint;
  readonly size: bigint;
  readonly mtimeNs: bigint;
  readonly ctimeNs: bigint;
}

function snapshotOf(stat: fs.BigIntStats): FileSnapshot {
  return { dev: stat.dev, ino: stat.ino, size: stat.size, mtimeNs: stat.mtimeNs, ctimeNs: stat.ctimeNs };
}

/** The snapshot of what is at `file` now (a link itself, never its target); null when nothing is there. */
export async function fileSnapshot(file: string): Promise<FileSnapshot | null> {
  try {
    return snapshotOf(await fs.promises.lstat(file, { bigint: true }));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
}

/** Whether two snapshots are of the same, unchanged file (or both of nothing). */
export function sameSnapshot(a: FileSnapshot | null, b: FileSnapshot | null): boolean {
  if (a === null || b === null) return a === b;
  return a.dev === b.dev && a.ino === b.ino && a.size === b.size && a.mtimeNs === b.mtimeNs && a.ctimeNs === b.ctimeNs;
}

function changed(): ServiceError {
  return new ServiceError("conflict", FILE_CHANGED_WHILE_DISCARDING);
}

/**
 * `file` opened for reading, refused (400) unless it is a regular file: no link followed (O_NOFOLLOW), no wait
 * on a FIFO or device (O_NONBLOCK). A path that is gone or became a link meanwhile is 409 "changed".
 */
export async function openRegularFile(file: string): Promise<FileHandle> {
  let handle: FileHandle;
  try {
    handle = await fs.promises.open(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ELOOP") throw changed();
    throw error;
  }
  try {
    if (!(await handle.stat()).isFile()) throw new ServiceError("invalid_request", ONLY_FILES);
    return handle;
  } catch (error) {
    await handle.close();
    throw error;
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

/** Flushes a folder's entries (a new file's name) to disk. */
async function syncFolder(dir: string): Promise<void> {
  const handle = await fs.promises.open(dir, fs.constants.O_RDONLY | fs.constants.O_DIRECTORY);
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** The trash folder, made private when new, its new entries flushed up to the first folder that existed. */
async function trashFolder(trashDir: string): Promise<void> {
  const first = await fs.promises.mkdir(trashDir, { recursive: true, mode: 0o700 });
  if (first === undefined) return;
  for (let dir = trashDir; ; dir = path.dirname(dir)) {
    await syncFolder(path.dirname(dir));
    if (dir === first || path.dirname(dir) === dir) return;
  }
}

/** A new copy file under the first free name (created exclusively, 0600). */
async function createCopy(trashDir: string, name: string, now: number): Promise<{ target: string; handle: FileHandle }> {
  const stamp = trashStamp(now);
  for (let n = 1; ; n++) {
    const target = path.join(trashDir, n === 1 ? `${stamp}-${name}` : `${stamp}-${n}-${name}`);
    try {
      const handle = await fs.promises.open(target, "wx", 0o600);
      await handle.chmod(0o600);
      return { target, handle };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
  }
}

/** Writes all of `bytes` at the handle's position. */
async function writeAll(handle: FileHandle, bytes: Uint8Array): Promise<void> {
  for (let done = 0; done < bytes.length;) done += (await handle.write(bytes, done, bytes.length - done)).bytesWritten;
}

/** Copies `source` to `target` in chunks; false when the bytes read are not the `expected` size. */
async function copyChunks(source: FileHandle, target: FileHandle, expected: bigint): Promise<boolean> {
  const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
  let total = 0n;
  for (;;) {
    const { bytesRead } = await source.read(buffer, 0, buffer.length, null);
    if (bytesRead === 0) break;
    total += BigInt(bytesRead);
    if (total > expected) return false;
    await writeAll(target, buffer.subarray(0, bytesRead));
  }
  return total === expected;
}

/** A link's target; a link that is gone or no longer a link is 409 "changed". */
async function readLink(file: string): Promise<Buffer> {
  try {
    return await fs.promises.readlink(file, { encoding: "buffer" });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "EINVAL") throw changed();
    throw error;
  }
}

export interface KeptCopy {
  /** The copy's path; null when there was no file to copy. */
  readonly backupPath: string | null;
  /** The working file as copied (null: nothing was there); compare it with `fileSnapshot` before discarding. */
  readonly snapshot: FileSnapshot | null;
}

/**
 * Keeps a copy of the working file `file` (repository path `repoPath`) in `trashDir`, flushed to disk. A folder
 * or special file is refused (400); a file that changes while it is copied is 409 (no copy is left).
 */
export async function keepDiscardCopy(trashDir: string, repoPath: string, file: string, now: number): Promise<KeptCopy> {
  let stat: fs.BigIntStats;
  try {
    stat = await fs.promises.lstat(file, { bigint: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { backupPath: null, snapshot: null };
    throw error;
  }
  if (stat.isDirectory()) throw new ServiceError("invalid_request", "A folder cannot be discarded here: discard its files one by one.");
  if (!stat.isFile() && !stat.isSymbolicLink()) throw new ServiceError("invalid_request", ONLY_FILES);
  const snapshot = snapshotOf(stat);
  const name = clip(path.posix.basename(repoPath), 180) + (stat.isSymbolicLink() ? ".symlink" : "");

  const source = stat.isSymbolicLink() ? null : await openRegularFile(file);
  try {
    if (source !== null && !sameSnapshot(snapshotOf(await source.stat({ bigint: true })), snapshot)) throw changed();
    const linkTarget = source === null ? await readLink(file) : null;
    await trashFolder(trashDir);
    const { target, handle } = await createCopy(trashDir, name, now);
    let complete = false;
    try {
      let copied = true;
      if (source !== null) copied = await copyChunks(source, handle, stat.size);
      else await writeAll(handle, linkTarget ?? Buffer.alloc(0));
      // The file as it is after the copy must be the file as it was before it, or the copy may be torn.
      const after = source === null ? await fileSnapshot(file) : snapshotOf(await source.stat({ bigint: true }));
      if (!copied || !sameSnapshot(after, snapshot)) throw changed();
      await handle.sync();
      complete = true;
    } finally {
      await handle.close();
      if (!complete) await fs.promises.rm(target, { force: true });
    }
    await syncFolder(trashDir);
    return { backupPath: target, snapshot };
  } finally {
    await source?.close();
  }
}

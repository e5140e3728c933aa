/**
 * The two file steps every rewrite of a session file takes (reset-to-entry and its undo, the v1/v2 upgrade):
 * keep a byte-identical copy in `<agentDir>/leyline-trash` first, then replace the file atomically.
 *
 * - `keepTrashCopy` writes `<trashDir>/<name>.<label>-<ISO time>[-n]<ext>` (`<name>` is the file's name without
 *   its extension `<ext>`, `.jsonl` for a session), never overwriting: the first free name, created exclusively.
 *   The Pi Settings editor keeps its copies of models.json and mcp.json the same way.
 * - `replaceFileAtomically` writes a hidden temp file beside the session (not `*.jsonl`, so the session index
 *   never lists it), keeps the file's mode, and renames it over the file (atomic on one file system);
 *   `beforeRename` may refuse at the last moment (the upgrade checks that nobody wrote meanwhile). The temp file
 *   never stays behind.
 */
import * as fs from "node:fs";
import * as path from "node:path";

/** An ISO time usable in a file name (`:` and `.` become `-`). */
export function trashStamp(now: number): string {
  return new Date(now).toISOString().replace(/[:.]/g, "-");
}

/**
 * Writes `bytes` (the file as it was) into the trash under the first free name; returns its path. The copy
 * gets `mode` (the original's permissions, so a 0600 file holding keys stays private); a new trash folder is
 * private to its owner.
 */
export function keepTrashCopy(trashDir: string, sessionFile: string, label: string, bytes: Buffer, now: number, mode?: number): string {
  fs.mkdirSync(trashDir, { recursive: true, mode: 0o700 });
  const ext = path.extname(sessionFile) || ".jsonl";
  const stem = `${path.basename(sessionFile, ext)}.${label}-${trashStamp(now)}`;
  for (let n = 1; ; n++) {
    const target = path.join(trashDir, n === 1 ? `${stem}${ext}` : `${stem}-${n}${ext}`);
    try {
      fs.writeFileSync(target, bytes, { flag: "wx", ...(mode !== undefined ? { mode } : {}) });
      if (mode !== undefined) fs.chmodSync(target, mode);
      return target;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
  }
}

/**
 * Replaces `file` with `content` through a temp file and a rename (see the module comment). The new file keeps
 * the old one's mode exactly (umask does not narrow it); a file that did not exist gets `newFileMode` (default:
 * the process's usual). The temp file's bytes are flushed to disk before the rename, so an acknowledged write
 * survives a crash.
 */
export function replaceFileAtomically(
  file: string,
  content: Buffer | string,
  options: { beforeRename?: () => void; newFileMode?: number } = {},
): void {
  const temp = path.join(path.dirname(file), `.${path.basename(file)}.leyline-${process.pid}.tmp`);
  const mode = fs.existsSync(file) ? fs.statSync(file).mode & 0o777 : options.newFileMode;
  try {
    const fd = fs.openSync(temp, "w", mode ?? 0o666);
    try {
      fs.writeFileSync(fd, content);
      if (mode !== undefined) fs.fchmodSync(fd, mode);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    options.beforeRename?.();
    fs.renameSync(temp, file);
  } finally {
    fs.rmSync(temp, { force: true });
  }
}

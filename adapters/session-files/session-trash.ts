/**
 * Deleting a session moves its file into the trash (`<agentDir>/leyline-trash`, the host's `trashDir`), never
 * removes it: `<trashDir>/<name>.jsonl`, or `<name>.deleted-<ISO time>[-n].jsonl` when that name is taken. The
 * trash is the same for a file outside `<agentDir>/sessions` (never a folder of the project). (The copies a
 * rewrite keeps are trash-copy.ts's.)
 */
import fs from "node:fs";
import path from "node:path";

/** `<trashDir>/<name>.jsonl`, or `<name>.deleted-<ISO time>[-n].jsonl` when that exists already. */
function trashTarget(trashDir: string, file: string): string {
  const base = path.basename(file, ".jsonl");
  let target = path.join(trashDir, `${base}.jsonl`);
  const stamp = new Date().toISOString().replace(/:/g, "-");
  for (let n = 0; fs.existsSync(target); n++) {
    target = path.join(trashDir, `${base}.deleted-${stamp}${n === 0 ? "" : `-${n}`}.jsonl`);
  }
  return target;
}

/** Moves a file into `trashDir` (rename; copy + unlink across file systems); returns where it went. */
export function moveToTrash(file: string, trashDir: string): string {
  fs.mkdirSync(trashDir, { recursive: true });
  const target = trashTarget(trashDir, file);
  try {
    fs.renameSync(file, target);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EXDEV") throw error;
    fs.copyFileSync(file, target, fs.constants.COPYFILE_EXCL);
    fs.unlinkSync(file);
  }
  return target;
}

/**
 * Finding a program the way execvp would, without a shell: an absolute path must be an executable regular file;
 * a bare name is looked up in each PATH folder in order (empty entries skipped). Launches spawn the absolute path
 * found here, so "available" and "launched" always mean the same program.
 */
import fs from "node:fs";
import path from "node:path";

async function isExecutableFile(file: string): Promise<boolean> {
  try {
    const stat = await fs.promises.stat(file);
    if (!stat.isFile()) return false;
    await fs.promises.access(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The absolute path of `program` (absolute, or a name on `searchPath`), or null when there is no such executable. */
export async function findExecutable(program: string, searchPath: string): Promise<string | null> {
  if (program === "") return null;
  if (path.isAbsolute(program)) return (await isExecutableFile(program)) ? program : null;
  if (program.includes("/")) return null;
  for (const folder of searchPath.split(path.delimiter)) {
    if (folder === "" || !path.isAbsolute(folder)) continue;
    const candidate = path.join(folder, program);
    if (await isExecutableFile(candidate)) return candidate;
  }
  return null;
}

/** Why `program` cannot be launched (for FileSettings.error), given that findExecutable found nothing. */
export function missingExecutableMessage(program: string): string {
  return path.isAbsolute(program)
    ? `The editor ${program} is not an executable file`
    : `The editor "${program}" was not found on the server's PATH`;
}

/**
 * Test-only helpers of the file-link tests: a temp project folder (and a folder outside it), a fake desktop editor
 * (a shell script that writes the argv it received, NUL-separated, then renames the file into place), and waiting
 * for that file. Not imported by production code.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

export interface FileLinkDirs {
  /** Canonical temp root. */
  readonly root: string;
  /** The session's cwd. */
  readonly project: string;
  /** A folder outside the project. */
  readonly outside: string;
  readonly home: string;
  readonly bin: string;
  readonly dataDir: string;
}

export function fileLinkDirs(prefix = "file-links"): FileLinkDirs {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), `leyline-${prefix}-`)));
  const dirs = {
    root,
    project: path.join(root, "project"),
    outside: path.join(root, "outside"),
    home: path.join(root, "home"),
    bin: path.join(root, "bin"),
    dataDir: path.join(root, "data"),
  };
  for (const dir of [dirs.project, dirs.outside, dirs.home, dirs.bin]) fs.mkdirSync(dir, { recursive: true });
  return dirs;
}

/** Writes an executable script `name` into `folder` that records its argv (and cwd) into `output`. */
export function writeArgvRecorder(folder: string, name: string, output: string): string {
  const script = path.join(folder, name);
  fs.writeFileSync(
    script,
    [
      "#!/bin/sh",
      `out='${output}'`,
      'printf "%s\\0" "$PWD" > "$out.tmp"',
      'for a in "$@"; do printf "%s\\0" "$a" >> "$out.tmp"; done',
      'mv "$out.tmp" "$out"',
      "",
    ].join("\n"),
    { mode: 0o755 },
  );
  return script;
}

/** The argv (and cwd, first) a recorder wrote, once the file is there. */
export async function recordedArgv(output: string, timeoutMs = 10_000): Promise<{ cwd: string; args: string[] }> {
  const folder = path.dirname(output);
  await new Promise<void>((resolve, reject) => {
    const watcher = fs.watch(folder);
    const done = (error?: Error): void => {
      clearTimeout(timer);
      watcher.close();
      if (error) reject(error);
      else resolve();
    };
    const timer = setTimeout(() => done(new Error(`${output} was not written within ${timeoutMs} ms`)), timeoutMs);
    watcher.on("change", () => {
      if (fs.existsSync(output)) done();
    });
    if (fs.existsSync(output)) done();
  });
  const fields = fs.readFileSync(output, "utf8").split("\0").slice(0, -1);
  return { cwd: fields[0] ?? "", args: fields.slice(1) };
}

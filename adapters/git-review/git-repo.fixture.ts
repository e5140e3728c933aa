/**
 * Test-only helpers of the Git review tests: real repositories in temp folders, with git isolated from the
 * machine's configuration (no global or system config; a fixed author; `main` as the first branch). Importing this
 * module sets that environment for the whole test process, so the code under test runs git the same way, and
 * removes the folders it made after the test file. Not imported by production code.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll } from "vitest";

const made: string[] = [];
afterAll(() => {
  for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

const configHome = fs.mkdtempSync(path.join(os.tmpdir(), "leyline-git-config-"));
made.push(configHome);
const globalConfig = path.join(configHome, "gitconfig");
fs.writeFileSync(globalConfig, '[init]\n\tdefaultBranch = main\n[protocol "file"]\n\tallow = always\n');

Object.assign(process.env, {
  GIT_CONFIG_GLOBAL: globalConfig,
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_AUTHOR_NAME: "t",
  GIT_AUTHOR_EMAIL: "t@t",
  GIT_COMMITTER_NAME: "t",
  GIT_COMMITTER_EMAIL: "t@t",
});

/** Runs git in `cwd` (its output as text); throws with git's stderr when it fails (exits other than 0 and `okCodes`). */
export function git(cwd: string, args: readonly string[], env: NodeJS.ProcessEnv = {}, okCodes: readonly number[] = []): string {
  try {
    return execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main", ...args], {
      cwd,
      env: { ...process.env, ...env },
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
    });
  } catch (error) {
    const failed = error as { status?: number; stdout?: string };
    if (failed.status !== undefined && okCodes.includes(failed.status)) return failed.stdout ?? "";
    throw error;
  }
}

/** Runs git where a failing exit is expected (a conflicting merge); returns its exit status. */
export function gitStatus(cwd: string, args: readonly string[]): number {
  try {
    git(cwd, args);
    return 0;
  } catch (error) {
    return (error as { status?: number }).status ?? -1;
  }
}

/** A new empty folder (realpath), not inside any repository. */
export function tempDir(prefix = "review"): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), `leyline-${prefix}-`)));
  made.push(dir);
  return dir;
}

/** A new repository (realpath of its root) on branch main. */
export function tempRepo(prefix = "review"): string {
  const root = tempDir(prefix);
  git(root, ["init", "-q"]);
  return root;
}

/** Writes a file (and its folders) under `root`. */
export function write(root: string, rel: string, content: string | Uint8Array): void {
  const file = path.join(root, rel);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, content);
}

/** Adds everything and commits. */
export function commitAll(root: string, message = "commit"): void {
  git(root, ["add", "-A"]);
  git(root, ["commit", "-q", "-m", message]);
}

/** Lines "1\n" … "n\n". */
export function numberedLines(count: number, from = 1): string {
  let text = "";
  for (let line = from; line < from + count; line++) text += `${line}\n`;
  return text;
}

/**
 * A repository whose `f.txt` is in conflict (main and `other` changed the same line; the merge failed).
 * `base` adds files to the first commit.
 */
export function conflictedRepo(prefix = "review-conflict", base: (root: string) => void = () => undefined): string {
  const root = tempRepo(prefix);
  base(root);
  write(root, "f.txt", "base\n");
  commitAll(root, "base");
  git(root, ["checkout", "-q", "-b", "other"]);
  write(root, "f.txt", "theirs\n");
  commitAll(root, "theirs");
  git(root, ["checkout", "-q", "main"]);
  write(root, "f.txt", "ours\n");
  commitAll(root, "ours");
  if (gitStatus(root, ["merge", "-q", "other"]) === 0) throw new Error("the merge was expected to conflict");
  return root;
}

/** Some bytes with NULs: a binary file for git. */
export function binaryBytes(seed: number): Uint8Array {
  return Uint8Array.from({ length: 64 }, (_, index) => (index % 3 === 0 ? 0 : (index * seed) % 256));
}

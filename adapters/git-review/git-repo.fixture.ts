/**
 * Test-only helpers of the Git review tests (read routes, watcher and actions): real repositories in temp folders,
 * with git isolated from the machine's configuration (a private global config with an identity, `main` as the
 * first branch and no commit signing; no system config; no identity, GIT_DIR or GIT_WORK_TREE from the
 * environment). Importing this module sets that environment for the whole test process, so the code under test
 * runs git the same way, and removes the folders it made after the test file. Not imported by production code.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll } from "vitest";
import { ServiceError } from "../../domain/service-error.ts";

const made: string[] = [];
afterAll(() => {
  for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

const configHome = fs.mkdtempSync(path.join(os.tmpdir(), "leyline-git-config-"));
made.push(configHome);
const globalConfig = path.join(configHome, "gitconfig");
fs.writeFileSync(
  globalConfig,
  '[user]\n\tname = t\n\temail = t@t\n[init]\n\tdefaultBranch = main\n[commit]\n\tgpgsign = false\n[protocol "file"]\n\tallow = always\n',
);

process.env["GIT_CONFIG_GLOBAL"] = globalConfig;
process.env["GIT_CONFIG_NOSYSTEM"] = "1";
// The identity comes from the config, so that a test can take it away (the actions' "who commits" refusal).
for (const name of [
  "GIT_AUTHOR_NAME",
  "GIT_AUTHOR_EMAIL",
  "GIT_COMMITTER_NAME",
  "GIT_COMMITTER_EMAIL",
  "EMAIL",
  "GIT_DIR",
  "GIT_WORK_TREE",
]) {
  delete process.env[name];
}

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

/** A new repository whose first commit holds `files` (name → content). */
export function committedRepo(files: Record<string, string>): string {
  const root = tempRepo();
  writeFiles(root, files);
  commitAll(root, "initial");
  return root;
}

/** Writes a file (and its folders) under `root`. */
export function write(root: string, rel: string, content: string | Uint8Array): void {
  const file = path.join(root, rel);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, content);
}

/** Writes files (name → content) under `root`. */
export function writeFiles(root: string, files: Record<string, string>): void {
  for (const [name, content] of Object.entries(files)) write(root, name, content);
}

/** A file under `root` as text. */
export function read(root: string, name: string): string {
  return fs.readFileSync(path.join(root, name), "utf8");
}

/** Adds everything and commits. */
export function commitAll(root: string, message = "commit"): void {
  git(root, ["add", "-A"]);
  git(root, ["commit", "-q", "-m", message]);
}

/** `git diff --cached --name-only` as a sorted list. */
export function stagedNames(root: string): string[] {
  return git(root, ["diff", "--cached", "--name-only", "-z"])
    .split("\0")
    .filter((name) => name !== "")
    .sort();
}

/** `git status --porcelain` lines (untracked files one by one), sorted. */
export function statusLines(root: string): string[] {
  return git(root, ["-c", "core.quotePath=false", "status", "--porcelain", "--untracked-files=all"])
    .split("\n")
    .filter((line) => line !== "")
    .sort();
}

/** The ServiceError `promise` rejects with (anything else fails the test). */
export async function serviceFailure(promise: Promise<unknown>): Promise<ServiceError> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  if (!(error instanceof ServiceError)) throw new Error(`expected a ServiceError, got ${String(error)}`);
  return error;
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

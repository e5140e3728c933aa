/**
 * Test-only: real Git repositories in temp folders for the review action tests, and a git configuration of
 * their own (GIT_CONFIG_GLOBAL points at a temp file with an identity, system config off), so the person's
 * ~/.gitconfig never changes what the tests see. Not imported by production code.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const made: string[] = [];

/** Points git at a private global config for this test process; returns its path. */
export function isolateGitConfig(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "leyline-gitcfg-"));
  made.push(dir);
  const file = path.join(dir, "gitconfig");
  fs.writeFileSync(
    file,
    "[user]\n\tname = Review Tester\n\temail = tester@example.test\n[init]\n\tdefaultBranch = main\n[commit]\n\tgpgsign = false\n",
  );
  process.env["GIT_CONFIG_GLOBAL"] = file;
  process.env["GIT_CONFIG_NOSYSTEM"] = "1";
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
  return file;
}

/** Runs git in `cwd` (test side); answers stdout. */
export function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", args, { cwd, encoding: "utf8", stdio: ["pipe", "pipe", "pipe"] });
}

/** A temp folder (removed by `removeTempRepos`). */
export function tempFolder(prefix = "leyline-review-"): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
  made.push(dir);
  return dir;
}

/** A new repository; with `files`, they are written and committed as the first commit. */
export function makeRepo(files?: Record<string, string>): string {
  const root = tempFolder();
  git(root, "init", "-q");
  if (files !== undefined) {
    writeFiles(root, files);
    git(root, "add", "-A");
    git(root, "commit", "-q", "-m", "initial");
  }
  return root;
}

export function writeFiles(root: string, files: Record<string, string>): void {
  for (const [name, content] of Object.entries(files)) {
    const file = path.join(root, name);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, content);
  }
}

export function read(root: string, name: string): string {
  return fs.readFileSync(path.join(root, name), "utf8");
}

/** `git diff --cached --name-only` as a sorted list. */
export function stagedNames(root: string): string[] {
  return git(root, "diff", "--cached", "--name-only", "-z")
    .split("\0")
    .filter((name) => name !== "")
    .sort();
}

/** `git status --porcelain` lines (untracked files one by one), sorted. */
export function statusLines(root: string): string[] {
  return git(root, "-c", "core.quotePath=false", "status", "--porcelain", "--untracked-files=all")
    .split("\n")
    .filter((line) => line !== "")
    .sort();
}

export function removeTempRepos(): void {
  for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
}

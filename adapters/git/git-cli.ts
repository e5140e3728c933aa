/**
 * Running `git` for the workspace tools (review status and diffs, stage/unstage/commit): one place that says how
 * Leyline calls git, so every caller gets the same environment and limits.
 *
 * - No shell: `spawn("git", args)`; callers put paths after `--` (a path can never be read as an option).
 * - Reads do not take git's optional locks (`GIT_OPTIONAL_LOCKS=0`: `git status` would otherwise refresh the
 *   index and write `.git/index`, which a watcher would report as a change and which viewing must not do). That
 *   covers `status`, not porcelain `git diff` against the working tree, which git 2.39 still lets refresh the
 *   index: reads of the working tree use plumbing (`git diff-files`; adapters/git-review/review-diff.ts).
 * - Plain, stable output: `LC_ALL=C`, no pager, no colour, no prompts for credentials, no external diff or
 *   `core.quotePath=false`. Diff callers add `--no-ext-diff --no-textconv` (no user drivers run on a read).
 * - Bounded: a timeout and a largest output; a caller that needs to cap a diff passes a smaller `maxBytes` and
 *   gets `truncated: true` instead of an error.
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";

export interface GitRunOptions {
  /** The working directory git runs in. */
  readonly cwd: string;
  /** Bytes given to git's stdin. */
  readonly input?: string | Buffer;
  /** Largest stdout kept; beyond it the run stops and answers `truncated: true`. Default 64 MiB. */
  readonly maxBytes?: number;
  /** Default 30 s. */
  readonly timeoutMs?: number;
  /** Exit codes that are not failures (e.g. 1 for `diff --no-index` with differences). Default [0]. */
  readonly okCodes?: readonly number[];
  /** Take git's optional locks (writes). Default false: reads never refresh the index. */
  readonly writes?: boolean;
}

export interface GitRunResult {
  readonly stdout: Buffer;
  readonly stderr: string;
  readonly code: number;
  /** stdout reached `maxBytes` and git was stopped. */
  readonly truncated: boolean;
}

/** A git run that failed: its exit code and git's own message (first lines of stderr). */
export class GitError extends Error {
  constructor(
    message: string,
    readonly code: number | null,
    readonly stderr: string,
  ) {
    super(message);
    this.name = "GitError";
  }
}

const DEFAULT_MAX_BYTES = 64 * 1024 * 1024;
const DEFAULT_TIMEOUT_MS = 30_000;

/**
 * Configuration every run gets: plain, unquoted output, and no file-system monitor: a repository's own config may
 * name any program as `core.fsmonitor`, which git would run on nearly every command (a listing, a status).
 */
const FIXED_CONFIG = ["-c", "core.quotePath=false", "-c", "color.ui=false", "-c", "core.pager=cat", "-c", "core.fsmonitor=false"];

function gitEnv(writes: boolean): NodeJS.ProcessEnv {
  return {
    ...process.env,
    LC_ALL: "C",
    LANG: "C",
    GIT_TERMINAL_PROMPT: "0",
    GIT_PAGER: "cat",
    PAGER: "cat",
    GIT_EDITOR: "true",
    ...(writes ? {} : { GIT_OPTIONAL_LOCKS: "0" }),
  };
}

/** The first lines of git's stderr, as a message. */
function gitMessage(stderr: string, args: readonly string[]): string {
  const text = stderr
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "")
    .slice(0, 3)
    .join(" ");
  return text !== "" ? text : `git ${args[0] ?? ""} failed`;
}

/** Runs git; rejects with GitError on a failing exit code (not in `okCodes`), a timeout or a missing git. */
export function runGit(args: readonly string[], options: GitRunOptions): Promise<GitRunResult> {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  const okCodes = options.okCodes ?? [0];
  return new Promise((resolve, reject) => {
    let child: ChildProcessWithoutNullStreams;
    try {
      child = spawn("git", [...FIXED_CONFIG, ...args], {
        cwd: options.cwd,
        env: gitEnv(options.writes ?? false),
        stdio: ["pipe", "pipe", "pipe"],
      });
    } catch (error) {
      // e.g. a cwd that is a file (ENOTDIR is thrown, not emitted)
      reject(new GitError(error instanceof Error ? error.message : String(error), null, ""));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let truncated = false;
    let stderr = "";
    let settled = false;
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      finish(new GitError(`git ${args[0] ?? ""} timed out`, null, stderr));
    }, options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    const finish = (outcome: GitRunResult | GitError): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (outcome instanceof GitError) reject(outcome);
      else resolve(outcome);
    };
    child.stdout.on("data", (chunk: Buffer) => {
      if (truncated) return;
      if (size + chunk.length > maxBytes) {
        chunks.push(chunk.subarray(0, maxBytes - size));
        size = maxBytes;
        truncated = true;
        child.kill("SIGKILL");
        return;
      }
      chunks.push(chunk);
      size += chunk.length;
    });
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (chunk: string) => {
      if (stderr.length < 64 * 1024) stderr += chunk;
    });
    child.on("error", (error: NodeJS.ErrnoException) => {
      finish(new GitError(error.code === "ENOENT" ? "git is not installed" : error.message, null, stderr));
    });
    child.on("close", (code) => {
      const stdout = Buffer.concat(chunks);
      if (truncated) return finish({ stdout, stderr, code: code ?? -1, truncated });
      if (code === null || !okCodes.includes(code)) return finish(new GitError(gitMessage(stderr, args), code, stderr));
      finish({ stdout, stderr, code, truncated: false });
    });
    child.stdin.on("error", () => undefined);
    child.stdin.end(options.input ?? "");
  });
}

/** git's stdout as UTF-8 text. */
export async function gitText(args: readonly string[], options: GitRunOptions): Promise<string> {
  return (await runGit(args, options)).stdout.toString("utf8");
}

/**
 * The Git review actions (issue 14, beyond the spec): stage, unstage, stage or unstage one hunk, discard a file's
 * working changes, commit. The routes (api/review-actions.routes.ts) are thin over this service.
 *
 * Every action, in this order: the body's rules (400), the folder (500 when not one), the repository (409 when
 * none); then, queued behind any earlier action on the same root (RepositoryQueue): the conflict check (409),
 * the agent gate (409 unless `whileAgentWorks: true`), and the git run at the root with git's locks taken.
 *
 * - stage: `git add -- <paths>` (new, changed and deleted files alike; an ignored path is git's refusal).
 * - unstage: `git reset -q -- <paths>`: the index goes back to HEAD for them, or loses them before the first
 *   commit (`git restore --staged` cannot run without HEAD). A staged rename is unstaged with its source, so
 *   unstaging the new name does not leave the old one staged as deleted.
 * - hunk: the file's current diff, read exactly as the review reads it (domain/git-review/diff-args.ts:
 *   `git diff-files -p` for a working hunk, `git diff --cached -M` for a staged one), the sent hunk found in it by
 *   its exact text, a patch of that hunk alone applied to the index (`git apply --cached [--reverse]`, through
 *   stdin; `--unidiff-zero` for a hunk without context lines).
 * - discard: a copy of the working file first (discard-copy.ts, flushed to disk), then, when the file is still
 *   exactly as copied (else 409, nothing discarded), `git restore --worktree` (the index, so staged changes,
 *   stays) or, for an untracked file, its removal. Ignored files are never touched: git status
 *   does not list them, so they have "no working changes".
 * - commit: `git commit -F -` (the message through stdin; no shell, no editor; hooks run as git runs them).
 *   git refusing (a hook, no identity) is 409 with git's words: the person fixes the repository or the
 *   configuration, the server did nothing wrong.
 */
import fs from "node:fs";
import path from "node:path";
import type {
  ReviewActionOk,
  ReviewCommitBody,
  ReviewCommitResult,
  ReviewDiscardBody,
  ReviewDiscardResult,
  ReviewHunkBody,
  ReviewPathsBody,
} from "../../domain/contract/http-review-actions.ts";
import { stagedDiffArgs, workingDiffArgs } from "../../domain/git-review/diff-args.ts";
import {
  hasNoContext,
  hunkStagingRefusal,
  locateHunk,
  oneHunkPatch,
  parseGitDiff,
  parseHunkText,
} from "../../domain/git-review-actions/hunk-patch.ts";
import { repoPathFailure, repoPathsFailure } from "../../domain/git-review-actions/repo-path.ts";
import {
  agentGate,
  commitMessageFailure,
  commitSummary,
  CONFIRM_DISCARD,
  FILE_CHANGED_WHILE_DISCARDING,
  HUNK_DIFF_TOO_LARGE,
  HUNK_GONE,
  HUNK_SCOPE_MISMATCH,
  NO_WORKING_CHANGES,
  NOTHING_STAGED,
  UNTRACKED_HUNK,
} from "../../domain/git-review-actions/review-action-rules.ts";
import { ServiceError } from "../../domain/service-error.ts";
import { GitError, gitText, runGit } from "../git/git-cli.ts";
import type { Repository } from "../git-review/repository.ts";
import { discardTrashDir, fileSnapshot, keepDiscardCopy, sameSnapshot } from "./discard-copy.ts";
import { RepositoryQueue } from "./repository-queue.ts";
import { actionRepository, gitReadFailure, gitRefusal, literal, refuseConflicted } from "./repository.ts";

/** Largest diff of one file searched for a hunk (the review shows patches up to 1 MiB). */
const HUNK_DIFF_MAX_BYTES = 8 * 1024 * 1024;
/** Hooks (a linter in pre-commit) may take a while. */
const COMMIT_TIMEOUT_MS = 5 * 60_000;

export interface ReviewActionsOptions {
  /** pi's agent dir: discarded changes are kept under `<agentDir>/leyline-trash/review`. */
  readonly agentDir: string;
  /** The sessions whose agent is mid-turn where it can write into `root` (busyAgentsIn over the runtime host). */
  readonly busyAgents: (root: string) => readonly string[];
  /** The clock of the copies' names. Default Date.now. */
  readonly now?: () => number;
  /** Test seam: runs in a discard after the copy is kept, before the file is compared and discarded. */
  readonly afterDiscardCopy?: (file: string) => void | Promise<void>;
}

export interface ReviewActions {
  stage(body: ReviewPathsBody): Promise<ReviewActionOk>;
  unstage(body: ReviewPathsBody): Promise<ReviewActionOk>;
  hunk(body: ReviewHunkBody): Promise<ReviewActionOk>;
  discard(body: ReviewDiscardBody): Promise<ReviewDiscardResult>;
  commit(body: ReviewCommitBody): Promise<ReviewCommitResult>;
}

function invalid(message: string | null): void {
  if (message !== null) throw new ServiceError("invalid_request", message);
}

/** `git status --porcelain=v1 -z --no-renames` entries: the two status letters and the path. */
function statusEntries(output: string): { xy: string; path: string }[] {
  return output
    .split("\0")
    .filter((entry) => entry.length > 3)
    .map((entry) => ({ xy: entry.slice(0, 2), path: entry.slice(3) }));
}

/** For `git diff --name-status -z`: the sources of staged renames, by their new path. */
function renameSources(output: string): Map<string, string> {
  const fields = output.split("\0");
  const sources = new Map<string, string>();
  for (let i = 0; i < fields.length;) {
    const status = fields[i] ?? "";
    if (status === "") break;
    if (status.startsWith("R") || status.startsWith("C")) {
      if (status.startsWith("R")) sources.set(fields[i + 2] ?? "", fields[i + 1] ?? "");
      i += 3;
    } else i += 2;
  }
  return sources;
}

/** Throws the folder-on-the-way refusal when a folder between the root and `repoPath` is a symbolic link. */
function refuseLinkedFolders(root: string, repoPath: string): void {
  const segments = repoPath.split("/").slice(0, -1);
  let folder = root;
  for (const segment of segments) {
    folder = path.join(folder, segment);
    let stat: fs.Stats;
    try {
      stat = fs.lstatSync(folder);
    } catch {
      return;
    }
    if (stat.isSymbolicLink()) {
      throw new ServiceError(
        "invalid_request",
        `${repoPath} is behind a symbolic link (${segment}); the review acts only inside the repository.`,
      );
    }
    if (!stat.isDirectory()) return;
  }
}

export function createReviewActions(options: ReviewActionsOptions): ReviewActions {
  const queue = new RepositoryQueue();
  const now = options.now ?? Date.now;

  async function act<T>(cwd: string, whileAgentWorks: boolean | undefined, run: (repo: Repository) => Promise<T>): Promise<T> {
    const repo = await actionRepository(cwd);
    return queue.run(repo.root, async () => {
      await refuseConflicted(repo);
      invalidState(agentGate(options.busyAgents(repo.root), whileAgentWorks));
      return run(repo);
    });
  }

  async function write(repo: Repository, args: string[], input?: string, context?: string): Promise<void> {
    try {
      await runGit(args, { cwd: repo.root, writes: true, ...(input !== undefined ? { input } : {}) });
    } catch (error) {
      throw gitRefusal(error, context);
    }
  }

  async function read(repo: Repository, args: string[], maxBytes?: number) {
    try {
      return await runGit(args, { cwd: repo.root, ...(maxBytes !== undefined ? { maxBytes } : {}) });
    } catch (error) {
      throw gitReadFailure(error);
    }
  }

  return {
    async stage(body) {
      invalid(repoPathsFailure(body.paths));
      return act(body.cwd, body.whileAgentWorks, async (repo) => {
        await write(repo, ["add", "--", ...body.paths.map(literal)]);
        return { ok: true };
      });
    },

    async unstage(body) {
      invalid(repoPathsFailure(body.paths));
      return act(body.cwd, body.whileAgentWorks, async (repo) => {
        const staged = await read(repo, ["diff", "--cached", "--name-status", "-z", "-M", "--no-ext-diff"]);
        const sources = renameSources(staged.stdout.toString("utf8"));
        const paths = new Set(body.paths);
        for (const p of body.paths) {
          const source = sources.get(p);
          if (source !== undefined) paths.add(source);
        }
        await write(repo, ["reset", "-q", "--", ...[...paths].map(literal)]);
        return { ok: true };
      });
    },

    async hunk(body) {
      invalid(repoPathFailure(body.path));
      const sent = parseHunkText(body.hunk);
      if (!sent.ok)
        throw new ServiceError("invalid_request", `hunk must be one hunk of the diff, from its @@ line to its end: ${sent.error}`);
      const staged = body.scope === "staged";
      if (staged !== (body.action === "unstage")) throw new ServiceError("invalid_request", HUNK_SCOPE_MISMATCH);
      return act(body.cwd, body.whileAgentWorks, async (repo) => {
        // Exactly the command the review's diff was read with (diff-args.ts), or its hunks never match. (The review
        // adds a staged rename's source to the pathspec; without it the file shows as new: refused all the same.)
        const args = staged ? stagedDiffArgs([body.path]) : workingDiffArgs([body.path]);
        const diff = await read(repo, args, HUNK_DIFF_MAX_BYTES);
        if (diff.truncated) throw new ServiceError("conflict", HUNK_DIFF_TOO_LARGE);
        const files = parseGitDiff(diff.stdout.toString("utf8"));
        if (!files.ok) throw new ServiceError("review_failed", `Cannot read git's diff of ${body.path}: ${files.error}`);
        if (files.value.length === 0) {
          if (!staged && (await isUntracked(repo, body.path))) throw new ServiceError("invalid_request", UNTRACKED_HUNK);
          throw new ServiceError("conflict", HUNK_GONE);
        }
        const [file] = files.value;
        if (file === undefined || files.value.length > 1) throw new ServiceError("invalid_request", "path must name one file");
        invalid(hunkStagingRefusal(file));
        const found = locateHunk([file], sent.value);
        if (found === null) throw new ServiceError("conflict", HUNK_GONE);
        const patch = oneHunkPatch(found.file, found.hunk);
        // A hunk without context (diff.context=0 on a staged diff) is placed by its line numbers alone.
        const zero = hasNoContext(found.hunk) ? ["--unidiff-zero"] : [];
        await write(repo, ["apply", "--cached", ...(staged ? ["--reverse"] : []), ...zero, "--whitespace=nowarn", "-"], patch, HUNK_GONE);
        return { ok: true };
      });
    },

    async discard(body) {
      invalid(repoPathFailure(body.path));
      if (body.confirm !== true) throw new ServiceError("invalid_request", CONFIRM_DISCARD);
      return act(body.cwd, body.whileAgentWorks, async (repo) => {
        refuseLinkedFolders(repo.root, body.path);
        const status = await read(repo, [
          "status",
          "--porcelain=v1",
          "-z",
          "--untracked-files=all",
          "--ignored=no",
          "--no-renames",
          "--",
          literal(body.path),
        ]);
        const entry = statusEntries(status.stdout.toString("utf8")).find((candidate) => candidate.path === body.path);
        const worktree = entry?.xy[1] ?? " ";
        if (entry === undefined || worktree === " ") throw new ServiceError("conflict", NO_WORKING_CHANGES);
        const file = path.join(repo.root, ...body.path.split("/"));
        const kept = await keepDiscardCopy(discardTrashDir(options.agentDir), body.path, file, now());
        if (entry.xy === "??" && kept.snapshot === null) throw new ServiceError("conflict", NO_WORKING_CHANGES);
        await options.afterDiscardCopy?.(file);
        // Bytes written since the copy would be lost with no copy: then nothing is discarded.
        if (!sameSnapshot(await fileSnapshot(file), kept.snapshot)) {
          if (kept.backupPath !== null) await fs.promises.rm(kept.backupPath, { force: true });
          throw new ServiceError("conflict", FILE_CHANGED_WHILE_DISCARDING);
        }
        if (entry.xy === "??") await fs.promises.unlink(file);
        else await write(repo, ["restore", "--worktree", "--", literal(body.path)]);
        return { ok: true, backupPath: kept.backupPath };
      });
    },

    async commit(body) {
      invalid(commitMessageFailure(body.message));
      return act(body.cwd, body.whileAgentWorks, async (repo) => {
        const staged = await runGit(["diff", "--cached", "--quiet", "--no-ext-diff"], { cwd: repo.root, okCodes: [0, 1] }).catch(
          (error: unknown) => {
            throw gitReadFailure(error);
          },
        );
        if (staged.code === 0) throw new ServiceError("conflict", NOTHING_STAGED);
        try {
          await runGit(["commit", "-F", "-"], { cwd: repo.root, input: body.message, writes: true, timeoutMs: COMMIT_TIMEOUT_MS });
        } catch (error) {
          throw commitRefusal(error);
        }
        const stored = (await read(repo, ["log", "-1", "--format=%H%n%B"])).stdout.toString("utf8");
        const newline = stored.indexOf("\n");
        return { ok: true, commit: stored.slice(0, newline).trim(), summary: commitSummary(stored.slice(newline + 1)) };
      });
    },
  };
}

function invalidState(message: string | null): void {
  if (message !== null) throw new ServiceError("conflict", message);
}

/** Whether `repoPath` is a file git does not track (so its changes have no hunks yet). */
async function isUntracked(repo: Repository, repoPath: string): Promise<boolean> {
  const tracked = await gitText(["ls-files", "-z", "--", literal(repoPath)], { cwd: repo.root }).catch((error: unknown) => {
    throw gitReadFailure(error);
  });
  return tracked === "" && fs.existsSync(path.join(repo.root, ...repoPath.split("/")));
}

const IDENTITY =
  /Author identity unknown|Committer identity unknown|empty ident name|unable to auto-detect email address|no email was given|no name was given/i;

/** A failing `git commit`: an identity problem said plainly, a hook's or git's refusal with its own words. */
function commitRefusal(error: unknown): unknown {
  if (!(error instanceof GitError) || error.code === null) return gitRefusal(error);
  if (IDENTITY.test(error.stderr)) {
    const fatal = error.stderr.split("\n").find((line) => line.startsWith("fatal:")) ?? error.message;
    return new ServiceError(
      "conflict",
      `Git does not know who you are: set user.name and user.email (git config --global user.email "you@example.com"), then commit again. (${fatal.trim()})`,
      { cause: error },
    );
  }
  if (/index\.lock': File exists/.test(error.stderr)) return gitRefusal(error);
  const lines = error.stderr
    .split("\n")
    .map((line) => line.trimEnd())
    .filter((line) => line.trim() !== "");
  const said = lines.slice(-20).join("\n").slice(-2000);
  return new ServiceError("conflict", `The commit was refused: ${said === "" ? error.message : said}`, { cause: error });
}

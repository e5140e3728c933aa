/**
 * The rules of the review actions (issue 14, beyond the spec: stage, unstage, hunk, discard, commit) that need
 * no repository: the messages every refusal answers (the client shows them as they are), the agent gate, the
 * commit message rules. The git side is adapters/git-review-actions/.
 *
 * - A conflicted repository (unmerged paths, or a merge, rebase, cherry-pick or revert in progress) refuses every
 *   action: the pane cannot show what staging would resolve.
 * - An agent mid-turn in the same repository refuses every action until the request says `whileAgentWorks: true`
 *   (the person saw the warning and confirmed).
 * - A commit message is non-empty after trimming, at most 64 KiB of UTF-8, without NUL (git cuts a message at NUL).
 */
import { utf8Length } from "../utf8-text.ts";

export const NOT_A_REPOSITORY = "This folder is not a Git repository.";
export const CWD_NOT_ABSOLUTE = "cwd must be an absolute path";
export const CONFLICTED_REPOSITORY =
  "Finish or abort the merge in a terminal first: the review pane cannot represent a conflicted repository.";
export const HUNK_GONE = "This change is no longer in the file; refresh the review.";
export const CONFIRM_DISCARD = "Confirm discarding the changes";
export const NOTHING_STAGED = "Nothing is staged to commit.";
export const FILE_CHANGED_WHILE_DISCARDING = "The file changed while discarding; nothing was discarded. Refresh the review.";
export const NO_WORKING_CHANGES = "This file has no working changes to discard; refresh the review.";
export const UNTRACKED_HUNK = "An untracked file has no hunks: stage the whole file instead.";
export const HUNK_SCOPE_MISMATCH =
  'A working hunk can only be staged and a staged hunk only unstaged (scope "working" with action "stage", "staged" with "unstage").';
export const HUNK_DIFF_TOO_LARGE = "This file's diff is too large to stage by hunk: stage or unstage the whole file instead.";

/** Largest commit message, in UTF-8 bytes. */
export const COMMIT_MESSAGE_MAX_BYTES = 64 * 1024;

/** The refusal while agents are mid-turn in the repository, or null when the action may run. */
export function agentGate(busySessionIds: readonly string[], whileAgentWorks: boolean | undefined): string | null {
  if (busySessionIds.length === 0 || whileAgentWorks === true) return null;
  const sessions = busySessionIds.length === 1 ? `session ${busySessionIds[0]}` : `sessions ${busySessionIds.join(", ")}`;
  return `The agent is working in this repository (${sessions}). Wait for its turn to end, or confirm to act anyway.`;
}

/** UTF-8 length of `text` (domain/utf8-text.ts). */
export { utf8Length };

/** Why `message` cannot be a commit message, or null. */
export function commitMessageFailure(message: string): string | null {
  if (message.trim() === "") return "Write a commit message.";
  if (message.includes("\0")) return "A commit message cannot contain NUL characters.";
  if (utf8Length(message) > COMMIT_MESSAGE_MAX_BYTES) return "The commit message is too long (at most 64 KiB).";
  return null;
}

/** A commit's summary: the first non-blank line of its message as git stored it (hooks may have changed it). */
export function commitSummary(storedMessage: string): string {
  return (storedMessage.split("\n").find((line) => line.trim() !== "") ?? "").trim();
}

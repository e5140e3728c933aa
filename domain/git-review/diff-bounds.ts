/**
 * The bounds of one diff section (spec "GET /api/pi/review/diff"): a text patch over 1 MiB or 5,000 lines is sent
 * as `tooLarge: true` with an empty patch; a binary change (`Binary files … differ`, or a `GIT binary patch`) has
 * `binary: true`. `bytes` and `lines` describe the whole patch git printed; when git's output was cut at the
 * reader's own limit (`complete: false`: the reader stops a little past 1 MiB) they are what was read, lower
 * bounds, and the section is too large.
 * An untracked nested repository has one working section with `directory: true` and no patch. An untracked symbolic
 * link's patch is written here as git writes one (`git diff --no-index` follows a link to a folder and fails).
 */
import type { GitReviewDiff, GitReviewDiffScope } from "./review-types.ts";
import { countLines } from "./text-lines.ts";

export const DIFF_MAX_BYTES = 1024 * 1024;
export const DIFF_MAX_LINES = 5000;

/** How much of a patch's start is searched for git's binary markers (they are in the header). */
const BINARY_MARKER_WINDOW = 16 * 1024;

const BINARY_MARKER = /^(?:Binary files .* differ|GIT binary patch)$/m;

/** Whether a patch describes a binary change (git's header lines; content lines always start with +, - or space). */
export function isBinaryPatch(patchText: string): boolean {
  return BINARY_MARKER.test(patchText);
}

export function diffSection(scope: GitReviewDiffScope, patch: Uint8Array, complete = true): GitReviewDiff {
  const bytes = patch.length;
  const lines = countLines(patch);
  const decoder = new TextDecoder();
  const head = decoder.decode(patch.subarray(0, BINARY_MARKER_WINDOW));
  const binary = isBinaryPatch(head);
  const tooLarge = !complete || bytes > DIFF_MAX_BYTES || lines > DIFF_MAX_LINES;
  return {
    binary,
    bytes,
    lines,
    patch: tooLarge ? "" : bytes <= BINARY_MARKER_WINDOW ? head : decoder.decode(patch),
    scope,
    tooLarge,
  };
}

/** The one section of an untracked nested repository. */
export function directorySection(): GitReviewDiff {
  return { binary: false, bytes: 0, directory: true, lines: 0, patch: "", scope: "working", tooLarge: false };
}

/** The patch of a new (untracked) symbolic link, as git prints it: one line, the link's target. */
export function untrackedSymlinkPatch(path: string, target: string): string {
  return [
    `diff --git a/${path} b/${path}`,
    "new file mode 120000",
    "--- /dev/null",
    `+++ b/${path}`,
    "@@ -0,0 +1 @@",
    `+${target}`,
    "\\ No newline at end of file",
    "",
  ].join("\n");
}

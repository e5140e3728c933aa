/**
 * `@file` completion in the composer: which project files match what was typed after `@`, best first.
 *
 * Rules (case-insensitive; `/` separates folders whatever the platform):
 * - tiers: the file name equals the query, starts with it, contains it; the path contains it; the query's
 *   characters appear in order in the path (a fuzzy match, as pi's own file picker allows); anything else is out;
 * - within a tier: fewer folders first, then shorter paths, then alphabetical;
 * - an empty query lists the shallowest files first;
 * - at most `limit` results.
 * A listing is prepared once (`prepareFiles`: lower case and depth per path) and ranked per keystroke keeping only
 * the best `limit` (no sort of the whole listing): 50,000 paths rank in a few milliseconds.
 * Pure: no I/O.
 */

export const FILE_MENTION_LIMIT = 50;

export interface FileCandidate {
  readonly path: string;
  readonly lower: string;
  /** Where the file name starts in `lower`. */
  readonly nameStart: number;
  readonly depth: number;
}

export function prepareFiles(paths: readonly string[]): FileCandidate[] {
  return paths.map((path) => {
    const lower = path.toLowerCase();
    let depth = 0;
    for (let i = 0; i < path.length; i++) if (path.charCodeAt(i) === 47) depth++;
    return { path, lower, nameStart: lower.lastIndexOf("/") + 1, depth };
  });
}

function isSubsequence(needle: string, haystack: string): boolean {
  let at = 0;
  for (const char of needle) {
    at = haystack.indexOf(char, at);
    if (at === -1) return false;
    at += char.length;
  }
  return true;
}

/** The tier of a candidate for `query` (lower case, trimmed; lower is better), or null when it does not match. */
function tierOf(file: FileCandidate, query: string, fuzzy: string): number | null {
  if (query === "") return 5;
  const found = file.lower.indexOf(query);
  if (found !== -1) {
    const inName = file.lower.indexOf(query, file.nameStart);
    if (inName === file.nameStart) return file.lower.length - file.nameStart === query.length ? 0 : 1;
    return inName !== -1 ? 2 : 3;
  }
  return isSubsequence(fuzzy, file.lower) ? 4 : null;
}

/** The tier of `path` for `query` (as `rankFiles` judges it), or null when it does not match. */
export function matchTier(path: string, query: string): number | null {
  const wanted = query.trim().toLowerCase();
  return tierOf(prepareFiles([path])[0] as FileCandidate, wanted, wanted.replace(/\s+/g, ""));
}

interface Ranked {
  readonly file: FileCandidate;
  readonly tier: number;
}

function before(tier: number, file: FileCandidate, b: Ranked): boolean {
  if (tier !== b.tier) return tier < b.tier;
  if (file.depth !== b.file.depth) return file.depth < b.file.depth;
  if (file.path.length !== b.file.path.length) return file.path.length < b.file.path.length;
  return file.path < b.file.path;
}

/** The best `limit` files for `query`. Takes paths or a prepared listing (`prepareFiles`). */
export function rankFiles(files: readonly string[] | readonly FileCandidate[], query: string, limit = FILE_MENTION_LIMIT): string[] {
  const max = Math.max(0, Math.floor(limit));
  if (max === 0 || files.length === 0) return [];
  const candidates = typeof files[0] === "string" ? prepareFiles(files as readonly string[]) : (files as readonly FileCandidate[]);
  const wanted = query.trim().toLowerCase();
  const fuzzy = wanted.replace(/\s+/g, "");
  // The best `max` so far, best first (insertion into a short sorted list).
  const best: Ranked[] = [];
  for (const file of candidates) {
    const tier = tierOf(file, wanted, fuzzy);
    if (tier === null) continue;
    if (best.length === max && !before(tier, file, best[max - 1] as Ranked)) continue;
    let at = best.length;
    while (at > 0 && before(tier, file, best[at - 1] as Ranked)) at--;
    best.splice(at, 0, { file, tier });
    if (best.length > max) best.pop();
  }
  return best.map((item) => item.file.path);
}

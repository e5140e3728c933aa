/**
 * Parsing `git diff --numstat -z` and summing its line changes.
 *
 * Records: `<added>\t<deleted>\t<path>\0`, or for a rename or copy `<added>\t<deleted>\t\0<old>\0<new>\0`.
 * A binary file has `-` for both counts (null here) and contributes nothing. An unmerged path can appear twice
 * (once for the unmerged entry, once for the working file); conflicted paths are left out of the sums by the
 * caller (`exclude`): their "changes" are conflict markers, and the review counts conflicts separately.
 * Malformed records are skipped.
 */

export interface NumstatEntry {
  path: string;
  /** The source of a rename or copy, else "". */
  oldPath: string;
  /** null for a binary file. */
  additions: number | null;
  deletions: number | null;
}

export interface LineStats {
  additions: number;
  deletions: number;
}

function count(text: string): number | null | undefined {
  if (text === "-") return null;
  return /^\d+$/.test(text) ? Number(text) : undefined;
}

export function parseNumstat(output: string): NumstatEntry[] {
  const fields = output.split("\0");
  const entries: NumstatEntry[] = [];
  for (let i = 0; i < fields.length; i++) {
    const record = fields[i] ?? "";
    const firstTab = record.indexOf("\t");
    const secondTab = firstTab === -1 ? -1 : record.indexOf("\t", firstTab + 1);
    if (secondTab === -1) continue;
    const additions = count(record.slice(0, firstTab));
    const deletions = count(record.slice(firstTab + 1, secondTab));
    let path = record.slice(secondTab + 1);
    let oldPath = "";
    if (path === "") {
      // A rename or copy: the two paths follow as their own fields.
      oldPath = fields[i + 1] ?? "";
      path = fields[i + 2] ?? "";
      i += 2;
    }
    if (additions === undefined || deletions === undefined || path === "") continue;
    entries.push({ path, oldPath, additions, deletions });
  }
  return entries;
}

/** The sum of the text changes of `entries`, without the paths in `exclude`. */
export function sumNumstat(entries: readonly NumstatEntry[], exclude: ReadonlySet<string> = new Set()): LineStats {
  let additions = 0;
  let deletions = 0;
  for (const entry of entries) {
    if (exclude.has(entry.path)) continue;
    additions += entry.additions ?? 0;
    deletions += entry.deletions ?? 0;
  }
  return { additions, deletions };
}

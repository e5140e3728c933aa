/**
 * The files of a project folder, for `@file` completion: in a Git working tree, what Git knows and does not ignore
 * (`git ls-files --cached --others --exclude-standard`: tracked and untracked, .gitignore respected; a read that
 * takes no lock and never refreshes the index); elsewhere a walk that skips hidden folders, node_modules and the
 * kernel's pseudo-file systems. Both are bounded: at most `MAX_PROJECT_FILES` paths, and the walk stops after
 * `WALK_BUDGET_MS` (it is asynchronous: it never holds the event loop); a bounded listing says `truncated`. A
 * repository whose listing fails or times out lists nothing rather than walking a huge tree on top of it.
 * Paths are relative to the folder with `/` separators. A listing (prepared for ranking) is reused for `CACHE_MS`
 * per folder, so typing after `@` costs one listing, not one per key.
 */
import fs from "node:fs";
import path from "node:path";
import { prepareFiles, type FileCandidate } from "../../domain/file-mentions/file-query.ts";
import { GitError, gitText, runGit } from "../git/git-cli.ts";

export const MAX_PROJECT_FILES = 50_000;
const WALK_BUDGET_MS = 2_000;
const CACHE_MS = 10_000;
const GIT_OUTPUT_BYTES = 16 * 1024 * 1024;
/** Never walked into: the kernel's views, not files of a project. */
const PSEUDO_FOLDERS = new Set(["/proc", "/sys", "/dev"]);

export interface ProjectFiles {
  readonly files: readonly FileCandidate[];
  readonly truncated: boolean;
}

async function insideWorkTree(cwd: string): Promise<boolean> {
  try {
    return (await gitText(["rev-parse", "--is-inside-work-tree"], { cwd, timeoutMs: 5_000 })).trim() === "true";
  } catch (error) {
    if (error instanceof GitError) return false;
    throw error;
  }
}

async function gitFiles(cwd: string): Promise<{ files: string[]; truncated: boolean }> {
  try {
    const result = await runGit(["ls-files", "--cached", "--others", "--exclude-standard", "-z"], {
      cwd,
      maxBytes: GIT_OUTPUT_BYTES,
      timeoutMs: 10_000,
    });
    const names = result.stdout.toString("utf8").split("\0");
    if (result.truncated) names.pop(); // a cut output ends with a partial name
    const files = [...new Set(names.filter((name) => name !== ""))];
    return { files: files.slice(0, MAX_PROJECT_FILES), truncated: result.truncated || files.length > MAX_PROJECT_FILES };
  } catch (error) {
    if (error instanceof GitError) return { files: [], truncated: true };
    throw error;
  }
}

async function walkFiles(root: string, now: () => number): Promise<{ files: string[]; truncated: boolean }> {
  const started = now();
  const files: string[] = [];
  const folders = [""];
  for (let next = 0; next < folders.length; next++) {
    if (files.length >= MAX_PROJECT_FILES || now() - started > WALK_BUDGET_MS) return { files, truncated: true };
    const folder = folders[next] as string;
    const absolute = path.join(root, folder);
    if (PSEUDO_FOLDERS.has(absolute)) continue;
    let entries: fs.Dirent[];
    try {
      entries = await fs.promises.readdir(absolute, { withFileTypes: true });
    } catch {
      continue; // unreadable: skipped
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      const relative = folder === "" ? entry.name : `${folder}/${entry.name}`;
      if (entry.isDirectory()) {
        if (!entry.name.startsWith(".") && entry.name !== "node_modules") folders.push(relative);
      } else if (entry.isFile() || entry.isSymbolicLink()) {
        files.push(relative);
      }
    }
  }
  return { files: files.slice(0, MAX_PROJECT_FILES), truncated: files.length > MAX_PROJECT_FILES };
}

async function listFolder(cwd: string, now: () => number): Promise<ProjectFiles> {
  const listed = (await insideWorkTree(cwd)) ? await gitFiles(cwd) : await walkFiles(cwd, now);
  return { files: prepareFiles(listed.files), truncated: listed.truncated };
}

export interface ProjectFileLister {
  list(cwd: string): Promise<ProjectFiles>;
}

/** A lister with its per-folder cache (`now` for tests). */
export function createProjectFileLister(now: () => number = Date.now): ProjectFileLister {
  const cache = new Map<string, { at: number; listing: Promise<ProjectFiles> }>();
  return {
    list(cwd) {
      for (const [key, value] of cache) if (now() - value.at >= CACHE_MS) cache.delete(key);
      const held = cache.get(cwd);
      if (held !== undefined) return held.listing;
      const listing = listFolder(cwd, now);
      cache.set(cwd, { at: now(), listing });
      listing.catch(() => cache.delete(cwd));
      return listing;
    },
  };
}

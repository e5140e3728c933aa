/**
 * What a new pi runtime in a folder reads from disk, as one fingerprint: the GET /api/pi/state preview cache
 * (api/runtime-preview.ts) serves a preview again only while the fingerprint is unchanged. Every file is listed
 * with its size, mtime and inode, every folder with the names in it (not its mtime: pi's lock files come and
 * go in `.pi` on every start), a missing path as missing; so a write, a new file, a deletion or a rename
 * changes it. Nothing is read but directory listings, stats and the two settings files.
 *
 * Covered, following pi 0.74's loaders (settings-manager, model-registry, auth-storage, resource-loader,
 * package-manager):
 * - `<agentDir>/settings.json`, `models.json`, `auth.json`, `SYSTEM.md`, `APPEND_SYSTEM.md`;
 * - the trees `<agentDir>/{extensions,skills,prompts,themes}` and `<cwd>/.pi` (project settings, extensions,
 *   skills, prompts, themes, SYSTEM.md), `~/.agents/skills` and `.agents/skills` in the cwd and its ancestors;
 * - the context files (AGENTS.md, CLAUDE.md, either case) of the agent dir, the cwd and every ancestor;
 * - local paths listed under `extensions`, `skills`, `prompts` and `themes` in either settings file;
 * - Leyline's bundled extensions (`extensions/`) and any extra extension paths the host loads.
 * Trees skip `node_modules`, `.git` and `*.lock` (proper-lockfile's lock folders) and stop after `MAX_ENTRIES`
 * entries in all.
 *
 * Not covered: packages installed from npm or git (installing or removing one rewrites settings.json, which
 * is covered; updating one in place is not), the environment (fixed for the server's life), `!command` API
 * keys and OAuth tokens refreshed elsewhere, files an extension imports from outside these trees, and
 * anything an extension computes at start (time, git state, network). The preview cache's age limit and
 * `refresh=1` cover those.
 */
import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/** Entries listed in one fingerprint at most (beyond them, changes go unseen until the age limit). */
export const MAX_ENTRIES = 4000;

const SKIPPED_NAMES = new Set(["node_modules", ".git"]);
const CONTEXT_FILES = ["AGENTS.md", "AGENTS.MD", "CLAUDE.md", "CLAUDE.MD"];
const SETTINGS_PATH_KEYS = ["extensions", "skills", "prompts", "themes"] as const;

export interface RuntimeInputsOptions {
  readonly agentDir: string;
  readonly cwd: string;
  /** Extension files or folders the runtime loads besides pi's discovery (Leyline's bundled extensions, ...). */
  readonly extensionPaths?: readonly string[];
  /** The home folder (`~/.agents/skills`, `~` in settings paths). Default os.homedir(). */
  readonly home?: string;
}

class Listing {
  readonly lines: string[] = [];
  private readonly seen = new Set<string>();
  truncated = false;

  full(): boolean {
    if (this.lines.length < MAX_ENTRIES) return false;
    this.truncated = true;
    return true;
  }

  /** Lists one path (its stat line, or "missing"); returns its stat, or null when missing or already listed. */
  entry(file: string): fs.Stats | null {
    if (this.seen.has(file) || this.full()) return null;
    this.seen.add(file);
    let stat: fs.Stats;
    try {
      stat = fs.statSync(file);
    } catch {
      this.lines.push(`${file}\tmissing`);
      return null;
    }
    if (stat.isDirectory()) this.lines.push(`${file}\tdir`);
    else this.lines.push(`${file}\t${stat.isFile() ? "file" : "other"}\t${stat.size}\t${stat.mtimeMs}\t${stat.ino}`);
    return stat;
  }

  tree(root: string): void {
    const stat = this.entry(root);
    if (stat === null || !stat.isDirectory()) return;
    let names: string[];
    try {
      names = fs.readdirSync(root).sort();
    } catch {
      return;
    }
    for (const name of names) {
      if (this.full()) return;
      if (SKIPPED_NAMES.has(name) || name.endsWith(".lock")) continue;
      this.tree(path.join(root, name));
    }
  }
}

function expandHome(file: string, home: string): string {
  if (file === "~") return home;
  if (file.startsWith("~/")) return path.join(home, file.slice(2));
  return file;
}

/** Local paths a settings file lists for pi's resources (npm:, git: and URL sources are packages: skipped). */
function settingsPaths(settingsFile: string, baseDir: string, home: string): string[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(fs.readFileSync(settingsFile, "utf8"));
  } catch {
    return [];
  }
  if (typeof parsed !== "object" || parsed === null) return [];
  const record = parsed as Record<string, unknown>;
  const found: string[] = [];
  for (const key of SETTINGS_PATH_KEYS) {
    const list = record[key];
    if (!Array.isArray(list)) continue;
    for (const item of list) {
      if (typeof item !== "string" || item === "") continue;
      // "!path" and "-path" exclude a path in pi's settings, "+path" forces one in: the path is what matters.
      const bare = item.replace(/^[!+-]/, "");
      if (/^(npm|git|https?|ssh):/.test(bare) || bare.startsWith("git@")) continue;
      found.push(path.resolve(baseDir, expandHome(bare, home)));
    }
  }
  return found;
}

/** The folder and its ancestors, deepest first. */
function ancestors(dir: string): string[] {
  const out: string[] = [];
  for (let current = path.resolve(dir); ;) {
    out.push(current);
    const parent = path.dirname(current);
    if (parent === current) return out;
    current = parent;
  }
}

/** The fingerprint of what a new runtime in `cwd` reads (see the module comment): a hex digest. */
export function runtimeInputsFingerprint(options: RuntimeInputsOptions): string {
  const agentDir = path.resolve(options.agentDir);
  const cwd = path.resolve(options.cwd);
  const home = options.home ?? os.homedir();
  const listing = new Listing();
  for (const name of ["settings.json", "models.json", "auth.json", "SYSTEM.md", "APPEND_SYSTEM.md", ...CONTEXT_FILES]) {
    listing.entry(path.join(agentDir, name));
  }
  for (const name of ["extensions", "skills", "prompts", "themes"]) listing.tree(path.join(agentDir, name));
  const projectDir = path.join(cwd, ".pi");
  listing.tree(projectDir);
  listing.tree(path.join(home, ".agents", "skills"));
  for (const dir of ancestors(cwd)) {
    for (const name of CONTEXT_FILES) listing.entry(path.join(dir, name));
    listing.tree(path.join(dir, ".agents", "skills"));
  }
  const listed = [
    ...settingsPaths(path.join(agentDir, "settings.json"), agentDir, home),
    ...settingsPaths(path.join(projectDir, "settings.json"), projectDir, home),
    ...(options.extensionPaths ?? []).map((file) => path.resolve(file)),
  ];
  for (const file of listed) listing.tree(file);
  if (listing.truncated) listing.lines.push("truncated");
  return createHash("sha256").update(listing.lines.join("\n")).digest("hex");
}

/**
 * The read-only suite's fixture (issue 9, "Viewing is read-only"): an agent dir as a person's real ~/.pi
 * holds it, snapshots of the whole dir (every file's bytes hash, size and mtime) with a diff that names what
 * changed, and the worker processes of a server.
 *
 * The agent dir (`installReadOnlyAgentDir`):
 * - the differential corpus written by the REAL pi SDK (test/differential/session-corpus.ts: compactions,
 *   in-place branches with and without a summary, labels, names, model and thinking changes, custom entries,
 *   an aborted and an error run, a SessionManager fork, a runtime fork and a clone), in its own project dir;
 * - the two version-1 fixtures written by pi itself (in that corpus, under their own missing cwd), and one of
 *   them again with its header's cwd (and session id) changed to an existing project, so it can be run;
 * - a version-2 file (ids, no migration of hookMessage yet) and a CLI-like version-3 session with no
 *   `thinking_level_change` (pi appends one when it opens such a session), both on the faux model;
 * - a hand-written research session (test/support/research-session.ts) and a realistic session on models
 *   the server does not have (test/bench/session-builder.ts: branches, compactions, labels);
 * - a session whose cwd no longer exists;
 * - a few hundred small generated sessions (test/bench/corpus.ts: many projects whose folders do not exist
 *   here, forks, subagent children, research sessions), so the sidebar is realistic.
 * The pi SDK corpus is built once (`buildPiCorpusTemplate`, async, it runs real pi sessions) and copied into
 * each agent dir synchronously, so it can seed a server before it starts.
 */
import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createRng } from "../bench/prng.ts";
import { generateCorpus } from "../bench/corpus.ts";
import { SessionBuilder } from "../bench/session-builder.ts";
import { buildTextPools } from "../bench/text-pool.ts";
import { buildSessionCorpus } from "../differential/session-corpus.ts";
import { sessionFolderName, writeSeedSession } from "../e2e/support/session-seed.ts";
import { PI_SESSION_FIXTURES_DIR } from "../support/fixtures.ts";
import { writeResearchSession } from "../support/research-session.ts";

/** The session id of the runnable version-1 copy (the fixture's own id stays with the untouched copy). */
export const V1_RUNNABLE_ID = "d703a1a9-1b7b-4fb1-b512-000000000001";

/** What a session of the read-only agent dir is, for reports and one screenshot per kind. */
export type ReadOnlyKind =
  | "pi-sdk-main"
  | "pi-sdk"
  | "pi-sdk-fork"
  | "v1"
  | "v1-runnable"
  | "v2"
  | "cli-no-thinking"
  | "research"
  | "foreign-models"
  | "cwd-gone"
  | "generated"
  | "generated-subagent"
  | "generated-research";

export interface ReadOnlySession {
  readonly id: string;
  /** Absolute path of the session file. */
  readonly file: string;
  readonly kind: ReadOnlyKind;
  /** The header's cwd. */
  readonly cwd: string;
}

/** The pi SDK corpus, built once: a copy of its sessions folder and its project dir (kept at its path). */
export interface PiCorpusTemplate {
  /** The copied `sessions` folder. */
  readonly sessionsDir: string;
  /** Relative paths (below `sessionsDir`) of the main session and the version-1 copies. */
  readonly mainFile: string;
  readonly v1Files: readonly string[];
  /** The corpus sessions' cwd (the harness project dir, re-created at the same path). */
  readonly cwd: string;
  dispose(): void;
}

/** Runs the differential corpus through the real pi SDK and keeps a copy of what it wrote. */
export async function buildPiCorpusTemplate(): Promise<PiCorpusTemplate> {
  const corpus = await buildSessionCorpus();
  const { harness } = corpus;
  const keep = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "leyline-ro-template-")));
  const sessionsDir = path.join(keep, "sessions");
  const projectCopy = path.join(keep, "project");
  const cwd = harness.cwd;
  try {
    fs.cpSync(harness.sessionsDir, sessionsDir, { recursive: true });
    fs.cpSync(cwd, projectCopy, { recursive: true });
  } finally {
    await harness.dispose();
  }
  // The sessions name the harness project as their cwd: it must exist for them to be openable as they were.
  fs.mkdirSync(path.dirname(cwd), { recursive: true });
  fs.renameSync(projectCopy, cwd);
  const relative = (file: string): string => path.relative(harness.sessionsDir, file);
  return {
    sessionsDir,
    mainFile: relative(corpus.mainFile),
    v1Files: corpus.v1Files.map(relative),
    cwd,
    dispose: () => {
      fs.rmSync(keep, { recursive: true, force: true });
      fs.rmSync(path.dirname(cwd), { recursive: true, force: true });
    },
  };
}

export interface ReadOnlyLayout {
  readonly agentDir: string;
  /** An existing project folder for the hand-written sessions. */
  readonly projectDir: string;
  /** A folder path that does not exist (the cwd of the "cwd-gone" session). */
  readonly goneDir: string;
  /** Generated sessions (default 300). */
  readonly generated?: number;
}

function headerOf(file: string): { id: string; cwd: string; version: number } {
  const first = fs.readFileSync(file, "utf8").split("\n", 1)[0] ?? "";
  const header = JSON.parse(first) as { id?: unknown; cwd?: unknown; version?: unknown };
  if (typeof header.id !== "string" || typeof header.cwd !== "string") throw new Error(`${file}: no session header`);
  return { id: header.id, cwd: header.cwd, version: typeof header.version === "number" ? header.version : 1 };
}

function listJsonl(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return listJsonl(full);
    return entry.name.endsWith(".jsonl") ? [full] : [];
  });
}

/** Fills `<agentDir>/sessions` (see the module comment); returns every session written, generated ones last. */
export function installReadOnlyAgentDir(template: PiCorpusTemplate, layout: ReadOnlyLayout): ReadOnlySession[] {
  const sessionsDir = path.join(layout.agentDir, "sessions");
  const sessions: ReadOnlySession[] = [];
  const add = (file: string, kind: ReadOnlyKind): void => {
    const header = headerOf(file);
    sessions.push({ id: header.id, file, kind, cwd: header.cwd });
  };

  fs.cpSync(template.sessionsDir, sessionsDir, { recursive: true });
  for (const file of listJsonl(template.sessionsDir).sort()) {
    const rel = path.relative(template.sessionsDir, file);
    const target = path.join(sessionsDir, rel);
    if (template.v1Files.includes(rel)) add(target, "v1");
    else if (rel === template.mainFile) add(target, "pi-sdk-main");
    else add(target, fs.readFileSync(file, "utf8").split("\n", 1)[0]?.includes('"parentSession"') ? "pi-sdk-fork" : "pi-sdk");
  }

  const hour = 60 * 60 * 1000;
  const base = Date.now() - 3 * hour;
  const cli = writeSeedSession(sessionsDir, {
    cwd: layout.projectDir,
    name: "CLI session without a thinking level",
    messages: ["Which port does the dev server use?", "It listens on port 5173 unless you pass --port."],
    startMs: base,
  });
  add(cli.file, "cli-no-thinking");

  // Version 2: pi's format before hookMessage became custom (entries already have ids).
  const v2 = writeSeedSession(sessionsDir, {
    cwd: layout.projectDir,
    name: "Version 2 session",
    messages: ["Is this an old session?", "Yes: it was written in pi's version-2 format."],
    startMs: base + hour / 2,
  });
  const v2Lines = fs.readFileSync(v2.file, "utf8").split("\n");
  v2Lines[0] = (v2Lines[0] ?? "").replace('"version":3', '"version":2');
  fs.writeFileSync(v2.file, v2Lines.join("\n"));
  add(v2.file, "v2");

  const projectFolder = path.join(sessionsDir, sessionFolderName(layout.projectDir));
  fs.mkdirSync(projectFolder, { recursive: true });
  const v1Text = fs.readFileSync(path.join(PI_SESSION_FIXTURES_DIR, "v1-large-session.jsonl"), "utf8");
  const v1Header = JSON.parse(v1Text.slice(0, v1Text.indexOf("\n"))) as Record<string, unknown>;
  const v1Runnable = path.join(projectFolder, "2025-11-20T23-33-50-805Z_v1-runnable.jsonl");
  fs.writeFileSync(
    v1Runnable,
    JSON.stringify({ ...v1Header, id: V1_RUNNABLE_ID, cwd: layout.projectDir }) + v1Text.slice(v1Text.indexOf("\n")),
  );
  add(v1Runnable, "v1-runnable");
  const research = writeResearchSession(
    projectFolder,
    `${new Date(base + hour).toISOString().replace(/[:.]/g, "-")}_5f0c2a9e-1d2b-4c3d-8e4f-a1b2c3d4e5f6.jsonl`,
    undefined,
    layout.projectDir,
  );
  add(research, "research");

  // Models this server does not have (anthropic, openai, google), branches, compactions and labels.
  const rng = createRng(9009);
  const foreign = new SessionBuilder(rng, buildTextPools(rng, 64 * 1024), { cwd: layout.projectDir, startMs: base + 1.5 * hour });
  foreign.fillTo(60_000);
  const foreignFile = path.join(projectFolder, foreign.fileName);
  fs.writeFileSync(foreignFile, foreign.text);
  add(foreignFile, "foreign-models");

  const gone = writeSeedSession(sessionsDir, {
    cwd: layout.goneDir,
    name: "Project folder removed",
    messages: ["Clean up the build folder.", "Done: the build folder is empty now."],
    startMs: base + 2 * hour,
  });
  add(gone.file, "cwd-gone");

  const before = new Set(listJsonl(sessionsDir));
  generateCorpus({ agentDir: layout.agentDir, seed: 99, sessions: layout.generated ?? 300, totalBytes: (layout.generated ?? 300) * 6000 });
  for (const file of listJsonl(sessionsDir).sort()) {
    if (before.has(file)) continue;
    const text = fs.readFileSync(file, "utf8");
    add(
      file,
      text.includes('"leyline-subagent"') ? "generated-subagent" : text.includes('"leyline-research"') ? "generated-research" : "generated",
    );
  }
  return sessions;
}

export interface FileState {
  sha256: string;
  size: number;
  mtimeMs: number;
}

/** Every file below a folder, by path relative to it ("/"-separated), plus the folders themselves. */
export interface TreeSnapshot {
  readonly root: string;
  readonly files: ReadonlyMap<string, FileState>;
  readonly dirs: ReadonlySet<string>;
}

/** Records every file below `root` (recursively; symlinks are recorded as what they point to). */
export function snapshotTree(root: string): TreeSnapshot {
  const files = new Map<string, FileState>();
  const dirs = new Set<string>();
  const walk = (dir: string, rel: string): void => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      const name = rel === "" ? entry.name : `${rel}/${entry.name}`;
      const stat = fs.statSync(full);
      if (stat.isDirectory()) {
        dirs.add(name);
        walk(full, name);
      } else {
        const bytes = fs.readFileSync(full);
        files.set(name, { sha256: createHash("sha256").update(bytes).digest("hex"), size: bytes.length, mtimeMs: stat.mtimeMs });
      }
    }
  };
  walk(root, "");
  return { root, files, dirs };
}

/** What changed between two snapshots of one folder, one line per path: "added", "removed" or what differs. */
export function diffSnapshots(before: TreeSnapshot, after: TreeSnapshot): string[] {
  const changes: string[] = [];
  for (const [name, was] of before.files) {
    const now = after.files.get(name);
    if (now === undefined) {
      changes.push(`${name}: removed`);
      continue;
    }
    const what: string[] = [];
    if (now.size !== was.size) what.push(`size ${was.size} → ${now.size}`);
    if (now.sha256 !== was.sha256) what.push("bytes");
    if (now.mtimeMs !== was.mtimeMs) what.push(`mtime ${new Date(was.mtimeMs).toISOString()} → ${new Date(now.mtimeMs).toISOString()}`);
    if (what.length > 0) changes.push(`${name}: ${what.join(", ")}`);
  }
  for (const [name, now] of after.files) {
    if (!before.files.has(name)) changes.push(`${name}: added (${now.size} bytes)`);
  }
  for (const dir of after.dirs) if (!before.dirs.has(dir)) changes.push(`${dir}/: folder added`);
  for (const dir of before.dirs) if (!after.dirs.has(dir)) changes.push(`${dir}/: folder removed`);
  return changes.sort();
}

/** The pids of the live child processes of `pid` (from /proc; zombies excluded). */
export function childProcessesOf(pid: number): number[] {
  const children: number[] = [];
  for (const name of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    let stat: string;
    try {
      stat = fs.readFileSync(`/proc/${name}/stat`, "utf8");
    } catch {
      continue; // gone meanwhile
    }
    // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so read after the last ")".
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (fields[0] !== "Z" && Number(fields[1]) === pid) children.push(Number(name));
  }
  return children;
}

/** The live child processes of `pid` that are runtime workers (adapters/runtime-worker/runtime-worker.ts). */
export function workerProcessesOf(pid: number): number[] {
  return childProcessesOf(pid).filter((child) => {
    try {
      return fs.readFileSync(`/proc/${child}/cmdline`, "utf8").includes("runtime-worker");
    } catch {
      return false;
    }
  });
}

/** The resident set size of a process in bytes (0 when it is gone). */
export function rssBytesOf(pid: number): number {
  try {
    const match = /^VmRSS:\s+(\d+) kB/m.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"));
    return match?.[1] === undefined ? 0 : Number(match[1]) * 1024;
  } catch {
    return 0;
  }
}

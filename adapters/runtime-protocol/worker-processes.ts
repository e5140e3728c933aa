/**
 * Tool processes die with their worker. pi's bash tool spawns every command `detached` (its own process
 * group), so a worker that dies (kill -9, watchdog replacement) or a server that dies leaves those commands
 * running with parent 1. Parentage cannot find them afterwards; an inherited environment tag can:
 *
 * - Every forked worker gets `LEYLINE_WORKER=<owner>:<serverPid>.<serverStart>:<workerId>` in its environment,
 *   and every descendant inherits it (pi passes `process.env` to the shells it spawns). `owner` is a hash of
 *   the agent dir (the runtime host knows it; the tools act on its sessions); `serverPid.serverStart` names the
 *   control-plane process exactly (pid plus its start time in clock ticks, so a reused pid is not taken for it).
 * - When a worker exits, the control plane kills every process carrying that worker's tag
 *   (`killTaggedProcesses`); a worker whose parent vanished does the same for its own tag before it exits.
 * - At start, the runtime host sweeps processes carrying its owner key whose tagged server is no longer
 *   running (`sweepOrphanedProcesses`): leftovers of a crashed server and its crashed workers.
 *
 * Killing: SIGTERM, then SIGKILL for what is still alive after a grace period. A process group is signalled
 * only when its leader carries the tag (pi's detached shells lead their group, so their children go too);
 * other tagged processes (which share an untagged leader's group, e.g. the worker's own) are signalled one by
 * one. Processes without the tag, this process and this process's group are never signalled.
 *
 * Linux only: the tags are read from /proc/<pid>/environ. Elsewhere (no /proc) every function finds nothing
 * and kills nothing; tool processes may then outlive a crashed worker. A process that clears its environment
 * (`env -i`) in a group it leads itself escapes the tag too.
 */
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";

/** The environment variable that tags a worker and every process it starts. */
export const WORKER_TAG_ENV = "LEYLINE_WORKER";

const PROC = "/proc";
const DEFAULT_GRACE_MS = 1500;
const POLL_MS = 50;

/** The control-plane process a tag names. */
export interface ServerIdentity {
  pid: number;
  /** Start time in clock ticks since boot (/proc/<pid>/stat field 22). */
  startTime: string;
}

export interface WorkerTag {
  owner: string;
  server: ServerIdentity;
  workerId: string;
}

export interface TaggedProcess {
  pid: number;
  pgid: number;
  tag: string;
}

/** The owner key of an agent dir: 16 hex digits of its SHA-256. */
export function ownerKey(agentDir: string): string {
  return createHash("sha256").update(path.resolve(agentDir)).digest("hex").slice(0, 16);
}

export function formatWorkerTag(tag: WorkerTag): string {
  return `${tag.owner}:${tag.server.pid}.${tag.server.startTime}:${tag.workerId}`;
}

export function parseWorkerTag(value: string): WorkerTag | null {
  const match = /^([0-9a-f]{16}):(\d+)\.(\d+):([A-Za-z0-9-]+)$/.exec(value);
  if (!match) return null;
  const [, owner = "", pid = "", startTime = "", workerId = ""] = match;
  return { owner, server: { pid: Number(pid), startTime }, workerId };
}

interface ProcStat {
  state: string;
  pgid: number;
  startTime: string;
}

/** Fields of /proc/<pid>/stat (after the parenthesised command name, which may hold spaces and parens). */
function readStat(pid: number | "self"): ProcStat | null {
  let text: string;
  try {
    text = fs.readFileSync(path.join(PROC, String(pid), "stat"), "utf8");
  } catch {
    return null;
  }
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
  // fields[0] is field 3 (state); pgid is field 5, starttime field 22.
  const state = fields[0];
  const pgid = Number(fields[2]);
  const startTime = fields[19];
  if (state === undefined || !Number.isInteger(pgid) || startTime === undefined) return null;
  return { state, pgid, startTime };
}

let self: (ServerIdentity & { pgid: number }) | null | undefined;

/** This process as a tag names it; null where /proc is not available. */
export function currentProcessIdentity(): (ServerIdentity & { pgid: number }) | null {
  if (self !== undefined) return self;
  const stat = readStat("self");
  self = stat ? { pid: process.pid, startTime: stat.startTime, pgid: stat.pgid } : null;
  return self;
}

/** True when the process a tag names is still running (not a zombie, same start time). */
export function serverAlive(server: ServerIdentity): boolean {
  const stat = readStat(server.pid);
  return stat !== null && stat.state !== "Z" && stat.startTime === server.startTime;
}

/** Every readable process carrying a worker tag accepted by `select` (this process excluded). */
export async function listTaggedProcesses(select: (tag: string) => boolean): Promise<TaggedProcess[]> {
  let names: string[];
  try {
    names = await fs.promises.readdir(PROC);
  } catch {
    return [];
  }
  const prefix = `${WORKER_TAG_ENV}=`;
  const found: TaggedProcess[] = [];
  await Promise.all(
    names.map(async (name) => {
      if (!/^\d+$/.test(name)) return;
      const pid = Number(name);
      if (pid === process.pid) return;
      let environ: string;
      try {
        environ = await fs.promises.readFile(path.join(PROC, name, "environ"), "latin1");
      } catch {
        return; // gone, or another user's process
      }
      if (!environ.includes(prefix)) return;
      const entry = environ.split("\0").find((variable) => variable.startsWith(prefix));
      if (entry === undefined) return;
      const tag = entry.slice(prefix.length);
      if (!select(tag)) return;
      const stat = readStat(pid);
      if (stat === null || stat.state === "Z") return;
      found.push({ pid, pgid: stat.pgid, tag });
    }),
  );
  return found.sort((a, b) => a.pid - b.pid);
}

function signal(target: number, name: NodeJS.Signals): void {
  try {
    process.kill(target, name);
  } catch {
    // already gone
  }
}

/** Signals the tagged processes: the groups they lead as groups, the others one by one. */
function signalAll(processes: readonly TaggedProcess[], name: NodeJS.Signals): void {
  const own = currentProcessIdentity();
  const tagged = new Set(processes.map((entry) => entry.pid));
  const groups = new Set<number>();
  for (const entry of processes) {
    if (tagged.has(entry.pgid) && entry.pgid !== own?.pgid && entry.pgid !== process.pid) groups.add(entry.pgid);
  }
  for (const group of groups) signal(-group, name);
  for (const entry of processes) {
    if (!groups.has(entry.pgid)) signal(entry.pid, name);
  }
}

/**
 * Kills every process selected by `select` (SIGTERM, then SIGKILL after `graceMs` for what is left).
 * Resolves with the pids found at first; [] when there were none (or no /proc).
 */
export async function killTaggedProcesses(select: (tag: string) => boolean, options: { graceMs?: number } = {}): Promise<number[]> {
  const first = await listTaggedProcesses(select);
  if (first.length === 0) return [];
  signalAll(first, "SIGTERM");
  const deadline = Date.now() + (options.graceMs ?? DEFAULT_GRACE_MS);
  let left = first;
  while (left.length > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    left = await listTaggedProcesses(select);
  }
  if (left.length > 0) signalAll(left, "SIGKILL");
  return first.map((entry) => entry.pid);
}

/** Kills every process of one worker (its tag exactly). */
export function killWorkerProcesses(tag: string, options: { graceMs?: number } = {}): Promise<number[]> {
  return killTaggedProcesses((candidate) => candidate === tag, options);
}

/**
 * Kills leftovers of crashed servers of this owner: processes carrying `owner`'s key whose tagged server is
 * neither this process nor still running.
 */
export function sweepOrphanedProcesses(owner: string, options: { graceMs?: number } = {}): Promise<number[]> {
  const me = currentProcessIdentity();
  if (me === null) return Promise.resolve([]);
  return killTaggedProcesses((candidate) => {
    const tag = parseWorkerTag(candidate);
    if (tag === null || tag.owner !== owner) return false;
    if (tag.server.pid === me.pid && tag.server.startTime === me.startTime) return false;
    return !serverAlive(tag.server);
  }, options);
}

/** A fresh tag for a worker of this process (null where /proc is not available). */
export function newWorkerTag(owner: string, workerId: string): string | null {
  const me = currentProcessIdentity();
  if (me === null) return null;
  return formatWorkerTag({ owner, server: { pid: me.pid, startTime: me.startTime }, workerId });
}

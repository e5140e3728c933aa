/**
 * Ending every process a terminal started, as closing a terminal window does, and then some: closing the PTY
 * only hangs up the foreground job, so background jobs (`sleep 1000 &`), `nohup` jobs and processes that ignore
 * SIGHUP would outlive the socket.
 *
 * A terminal's processes ("members") are those of its session (the PTY's program is a session leader: forkpty
 * calls setsid, so its pid is the session id), of its process group, and their descendants (a child that called
 * setsid is still one). `endProcessTree`
 * takes one snapshot of them, sends SIGHUP (and SIGCONT to stopped ones, so they can act on it), waits up to a
 * grace period for them to go, then sends SIGKILL to the survivors and to children they forked meanwhile.
 * A daemon (setsid and reparented to init) is not a member.
 *
 * Identity: a member is re-checked by its start time before every signal after the first, so a pid reused by an
 * unrelated process is never signalled. A zombie counts as gone (it has exited; its parent, possibly an init
 * that does not reap, owns the entry).
 *
 * Linux reads /proc; elsewhere `ps` (no session ids or start times there: the process group and descendants).
 */
import { execFile } from "node:child_process";
import fs from "node:fs";
import { promisify } from "node:util";

const execFileAsync = promisify(execFile);

export interface ProcessEntry {
  readonly pid: number;
  readonly ppid: number;
  readonly pgid: number;
  /** Session id (null where the platform does not tell). */
  readonly sid: number | null;
  readonly zombie: boolean;
  readonly stopped: boolean;
  /** Start time in clock ticks since boot (null where the platform does not tell): the process's identity with its pid. */
  readonly start: string | null;
}

/**
 * One line of /proc/<pid>/stat, or null when it is not one. The command name may hold spaces and parentheses, so
 * the fields are read after the last `)`.
 */
export function parseProcStat(text: string): ProcessEntry | null {
  const close = text.lastIndexOf(")");
  const pid = Number.parseInt(text, 10);
  if (close < 0 || !Number.isInteger(pid)) return null;
  // Fields 3.. (state, ppid, pgrp, session, ..., starttime is field 22).
  const fields = text
    .slice(close + 1)
    .trim()
    .split(/\s+/);
  const [state, ppid, pgid, sid] = [fields[0] ?? "", Number(fields[1]), Number(fields[2]), Number(fields[3])];
  const start = fields[19];
  if (state === "" || ![ppid, pgid, sid].every(Number.isInteger) || start === undefined) return null;
  return { pid, ppid, pgid, sid, zombie: state === "Z" || state === "X", stopped: state === "T" || state === "t", start };
}

async function readProcTable(): Promise<ProcessEntry[]> {
  const names = await fs.promises.readdir("/proc");
  const entries = await Promise.all(
    names
      .filter((name) => /^\d+$/.test(name))
      .map(async (name) => {
        try {
          return parseProcStat(await fs.promises.readFile(`/proc/${name}/stat`, "utf8"));
        } catch {
          return null; // gone meanwhile
        }
      }),
  );
  return entries.filter((entry): entry is ProcessEntry => entry !== null);
}

async function readPsTable(): Promise<ProcessEntry[]> {
  const { stdout } = await execFileAsync("ps", ["-A", "-o", "pid=", "-o", "ppid=", "-o", "pgid=", "-o", "stat="], { maxBuffer: 16 << 20 });
  return stdout.split("\n").flatMap((line) => {
    const [pid, ppid, pgid, stat] = line.trim().split(/\s+/);
    if (pid === undefined || ppid === undefined || pgid === undefined || stat === undefined) return [];
    const entry = { pid: Number(pid), ppid: Number(ppid), pgid: Number(pgid), sid: null, start: null };
    return Number.isInteger(entry.pid) ? [{ ...entry, zombie: stat.startsWith("Z"), stopped: stat.startsWith("T") }] : [];
  });
}

const hasProc = fs.existsSync("/proc/self/stat");

/** One process's entry (null when it is gone, or the platform has no /proc). */
export async function readProcessEntry(pid: number): Promise<ProcessEntry | null> {
  if (!hasProc) return null;
  try {
    return parseProcStat(await fs.promises.readFile(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return null;
  }
}

/** Every process of the machine (that this user may see). */
export function readProcessTable(): Promise<ProcessEntry[]> {
  return hasProc ? readProcTable() : readPsTable();
}

/** Processes of `table` that descend from the `roots` pids (not the roots themselves). */
function descendantsOf(roots: Iterable<number>, table: readonly ProcessEntry[]): ProcessEntry[] {
  const children = new Map<number, ProcessEntry[]>();
  for (const entry of table) children.set(entry.ppid, [...(children.get(entry.ppid) ?? []), entry]);
  const out: ProcessEntry[] = [];
  const seen = new Set<number>();
  const queue = [...roots];
  for (let pid = queue.pop(); pid !== undefined; pid = queue.pop()) {
    for (const child of children.get(pid) ?? []) {
      if (seen.has(child.pid)) continue;
      seen.add(child.pid);
      out.push(child);
      queue.push(child.pid);
    }
  }
  return out;
}

/**
 * The members of the terminal whose program is `leader` (itself, its session, its process group, and their
 * descendants), never `exclude` (the server) nor pid 1 and below. With `leaderStart` (the program's start time), none
 * when `leader` now names another process (the pid was reused: the kernel reuses a pid only once no process has
 * it as its session or group, so then nothing of the terminal is left).
 */
export function terminalMembers(
  leader: number,
  table: readonly ProcessEntry[],
  options: { readonly exclude?: readonly number[]; readonly leaderStart?: string | null } = {},
): ProcessEntry[] {
  const current = table.find((entry) => entry.pid === leader);
  const leaderStart = options.leaderStart ?? null;
  if (current !== undefined && leaderStart !== null && current.start !== null && current.start !== leaderStart) return [];
  const members = new Map<number, ProcessEntry>();
  for (const entry of table) if (entry.pid === leader || entry.sid === leader || entry.pgid === leader) members.set(entry.pid, entry);
  for (const entry of descendantsOf([leader, ...members.keys()], table)) members.set(entry.pid, entry);
  for (const pid of options.exclude ?? []) members.delete(pid);
  return [...members.values()].filter((entry) => entry.pid > 1);
}

/** The entries of `table` that are still the processes `members` were (same pid and start time) and not zombies. */
export function survivors(members: readonly ProcessEntry[], table: readonly ProcessEntry[]): ProcessEntry[] {
  const now = new Map(table.map((entry) => [entry.pid, entry]));
  return members.flatMap((member) => {
    const entry = now.get(member.pid);
    return entry !== undefined && !entry.zombie && entry.start === member.start ? [entry] : [];
  });
}

function signal(pid: number, name: NodeJS.Signals): boolean {
  try {
    process.kill(pid, name);
    return true;
  } catch {
    return false; // gone, or not ours
  }
}

export interface EndProcessTreeOptions {
  /** How long members may take to act on SIGHUP before SIGKILL. Default 1000 ms. */
  readonly graceMs?: number;
  /** How often to look. Default 50 ms. */
  readonly pollMs?: number;
  /** The leader's start time when it started (readProcessEntry), to tell a reused pid. */
  readonly leaderStart?: string | null;
}

export interface EndedProcessTree {
  /** Members that got SIGHUP. */
  readonly hungUp: number;
  /** Survivors of the grace period that got SIGKILL. */
  readonly killed: number;
}

const delay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Ends the terminal whose program is `leader` (see the module comment). */
export async function endProcessTree(leader: number, options: EndProcessTreeOptions = {}): Promise<EndedProcessTree> {
  const graceMs = options.graceMs ?? 1000;
  const pollMs = options.pollMs ?? 50;
  const table = await readProcessTable();
  const members = terminalMembers(leader, table, { exclude: [process.pid], leaderStart: options.leaderStart ?? null }).filter(
    (entry) => !entry.zombie,
  );
  let hungUp = 0;
  for (const member of members) if (signal(member.pid, "SIGHUP")) hungUp++;
  for (const member of members) if (member.stopped) signal(member.pid, "SIGCONT");

  let alive = members;
  for (const deadline = Date.now() + graceMs; alive.length > 0 && Date.now() < deadline;) {
    await delay(pollMs);
    alive = survivors(alive, await readProcessTable());
  }
  if (alive.length === 0) return { hungUp, killed: 0 };
  // Children the survivors forked meanwhile are members too (their parent is a checked member).
  const latest = await readProcessTable();
  const stubborn = survivors(alive, latest);
  const forked = descendantsOf(
    stubborn.map((entry) => entry.pid),
    latest,
  ).filter((entry) => !entry.zombie && entry.pid !== process.pid);
  const targets = [...stubborn, ...forked];
  let killed = 0;
  for (const target of targets) if (signal(target.pid, "SIGKILL")) killed++;
  return { hungUp, killed };
}

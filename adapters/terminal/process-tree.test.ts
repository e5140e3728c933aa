import { describe, expect, it } from "vitest";
import { parseProcStat, survivors, terminalMembers, type ProcessEntry } from "./process-tree.ts";

const entry = (pid: number, ppid: number, pgid: number, sid: number, extra: Partial<ProcessEntry> = {}): ProcessEntry => ({
  pid,
  ppid,
  pgid,
  sid,
  zombie: false,
  stopped: false,
  start: `${pid}00`,
  ...extra,
});

describe("parseProcStat", () => {
  it("reads pid, parent, group, session, state and start time, whatever the command name holds", () => {
    const line = "2085 (my (odd) cmd) S 2083 2083 23952 0 -1 4194304 99 0 0 0 0 0 0 0 20 0 1 0 4589732 3133440 412 18446744073709551615";
    expect(parseProcStat(line)).toEqual({ pid: 2085, ppid: 2083, pgid: 2083, sid: 23952, zombie: false, stopped: false, start: "4589732" });
    expect(parseProcStat(line.replace(") S ", ") Z "))).toMatchObject({ zombie: true });
    expect(parseProcStat(line.replace(") S ", ") T "))).toMatchObject({ stopped: true });
    expect(parseProcStat("garbage")).toBeNull();
    expect(parseProcStat("12 (x) S 1 2")).toBeNull();
  });
});

describe("terminalMembers", () => {
  // 100: the terminal's shell (session and group leader); 101: a job in its own group; 102: its child that
  // moved to a session of its own (setsid) but still descends from the shell; 103: a reparented orphan of the
  // session; 200 and 201: another terminal; 1: init.
  const table = [
    entry(1, 0, 1, 1),
    entry(100, 50, 100, 100),
    entry(101, 100, 101, 100),
    entry(102, 101, 102, 102),
    entry(103, 1, 103, 100),
    entry(200, 50, 200, 200),
    entry(201, 200, 200, 200),
    entry(50, 1, 50, 50),
  ];

  it("is the session, the group and the descendants of the leader, never the server or init", () => {
    expect(
      terminalMembers(100, table)
        .map((e) => e.pid)
        .sort(),
    ).toEqual([100, 101, 102, 103]);
    expect(
      terminalMembers(100, table, { exclude: [101] })
        .map((e) => e.pid)
        .sort(),
    ).toEqual([100, 102, 103]);
    expect(terminalMembers(1, table).map((e) => e.pid)).not.toContain(1);
  });

  it("is nothing when the leader's pid now names another process (reused pid)", () => {
    expect(terminalMembers(100, table, { leaderStart: "other" })).toEqual([]);
    expect(terminalMembers(100, table, { leaderStart: "10000" })).toHaveLength(4);
  });

  it("keeps a gone leader's session members and their descendants (the session id outlives its leader)", () => {
    const withoutLeader = table.filter((e) => e.pid !== 100).map((e) => (e.ppid === 100 ? { ...e, ppid: 1 } : e));
    expect(
      terminalMembers(100, withoutLeader, { leaderStart: "10000" })
        .map((e) => e.pid)
        .sort(),
    ).toEqual([101, 102, 103]);
  });
});

describe("survivors", () => {
  it("are the members still running as the same process (same start time), zombies excepted", () => {
    const members = [entry(10, 1, 10, 10), entry(11, 10, 10, 10), entry(12, 10, 10, 10)];
    const now = [entry(10, 1, 10, 10), entry(11, 10, 10, 10, { start: "reused" }), entry(12, 10, 10, 10, { zombie: true })];
    expect(survivors(members, now).map((e) => e.pid)).toEqual([10]);
  });
});

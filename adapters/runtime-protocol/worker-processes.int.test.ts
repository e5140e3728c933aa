/**
 * The process tag scanner and killer on real processes (Linux /proc): detached `bash` groups carrying a tag
 * are found and killed with their children, untagged and differently tagged processes are left alone, and the
 * start-up sweep takes only leftovers of a server that is no longer running.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import * as fs from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { running, sleepers, sleepMarker, until } from "../../test/support/processes.ts";
import {
  currentProcessIdentity,
  formatWorkerTag,
  killWorkerProcesses,
  listTaggedProcesses,
  ownerKey,
  parseWorkerTag,
  sweepOrphanedProcesses,
  WORKER_TAG_ENV,
} from "./worker-processes.ts";

const linux = fs.existsSync("/proc/self/environ");
const spawned: ChildProcess[] = [];

afterEach(() => {
  for (const child of spawned.splice(0)) {
    if (child.pid !== undefined) {
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {
        // gone
      }
    }
  }
});

/** pi's bash tool shape: a detached shell (its own group) with a child process; `tag` in its environment. */
function detachedShell(tag: string | null, marker: string): ChildProcess {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env[WORKER_TAG_ENV];
  if (tag !== null) env[WORKER_TAG_ENV] = tag;
  const child = spawn("bash", ["-c", `sleep ${marker} & wait`], { detached: true, stdio: "ignore", env });
  child.unref();
  spawned.push(child);
  return child;
}

describe("worker tags", () => {
  it("formats and parses a tag; rejects anything else", () => {
    const tag = { owner: ownerKey("/tmp/agent"), server: { pid: 42, startTime: "123456" }, workerId: randomUUID() };
    expect(parseWorkerTag(formatWorkerTag(tag))).toEqual(tag);
    expect(ownerKey("/tmp/agent")).toMatch(/^[0-9a-f]{16}$/);
    expect(ownerKey("/tmp/agent")).not.toBe(ownerKey("/tmp/other"));
    expect(parseWorkerTag("nonsense")).toBeNull();
    expect(parseWorkerTag(`${tag.owner}:42:${tag.workerId}`)).toBeNull();
  });
});

describe.runIf(linux)("killing tagged processes", () => {
  it("kills the detached group of a tagged shell (children included) and nothing untagged or tagged otherwise", async () => {
    const me = currentProcessIdentity();
    if (!me) throw new Error("no /proc identity");
    const owner = ownerKey(`/tmp/${randomUUID()}`);
    const tag = formatWorkerTag({ owner, server: me, workerId: randomUUID() });
    const other = formatWorkerTag({ owner, server: me, workerId: randomUUID() });
    const [mine, untagged, theirs] = [sleepMarker(), sleepMarker(), sleepMarker()];
    const shell = detachedShell(tag, mine);
    detachedShell(null, untagged);
    detachedShell(other, theirs);
    await until(() => sleepers(mine).length === 1 && sleepers(untagged).length === 1 && sleepers(theirs).length === 1, "three sleeps");

    const listed = await listTaggedProcesses((candidate) => candidate === tag);
    expect(listed.map((entry) => entry.pid).sort()).toEqual([shell.pid, ...sleepers(mine)].sort());
    expect(listed.every((entry) => entry.pgid === shell.pid)).toBe(true);

    const killed = await killWorkerProcesses(tag);
    expect(killed.sort()).toEqual(listed.map((entry) => entry.pid).sort());
    await until(() => sleepers(mine).length === 0 && !running(shell.pid ?? 0), "the tagged group is gone");
    expect(sleepers(untagged)).toHaveLength(1);
    expect(sleepers(theirs)).toHaveLength(1);
    expect(await killWorkerProcesses(tag)).toEqual([]);
  });

  it("SIGKILLs what survives SIGTERM after the grace period", async () => {
    const me = currentProcessIdentity();
    if (!me) throw new Error("no /proc identity");
    const tag = formatWorkerTag({ owner: ownerKey(`/tmp/${randomUUID()}`), server: me, workerId: randomUUID() });
    const env: NodeJS.ProcessEnv = { ...process.env, [WORKER_TAG_ENV]: tag };
    const stubborn = spawn("bash", ["-c", `trap '' TERM; echo ready; while :; do sleep 0.05; done`], {
      detached: true,
      stdio: ["ignore", "pipe", "ignore"],
      env,
    });
    spawned.push(stubborn);
    await new Promise<void>((resolve) => stubborn.stdout?.once("data", () => resolve()));
    await killWorkerProcesses(tag, { graceMs: 300 });
    await until(() => !running(stubborn.pid ?? 0), "the stubborn shell is gone");
  });

  it("the sweep kills leftovers of a server that is gone, never those of this one or of another owner", async () => {
    const me = currentProcessIdentity();
    if (!me) throw new Error("no /proc identity");
    const owner = ownerKey(`/tmp/${randomUUID()}`);
    // A server that is not running: this pid with another start time (a reused pid is not the same server).
    const gone = formatWorkerTag({ owner, server: { pid: me.pid, startTime: String(Number(me.startTime) + 1) }, workerId: randomUUID() });
    const live = formatWorkerTag({ owner, server: me, workerId: randomUUID() });
    const foreign = formatWorkerTag({
      owner: ownerKey(`/tmp/${randomUUID()}`),
      server: { pid: me.pid, startTime: "1" },
      workerId: randomUUID(),
    });
    const [left, ours, theirs] = [sleepMarker(), sleepMarker(), sleepMarker()];
    detachedShell(gone, left);
    detachedShell(live, ours);
    detachedShell(foreign, theirs);
    await until(() => sleepers(left).length + sleepers(ours).length + sleepers(theirs).length === 3, "three sleeps");

    const swept = await sweepOrphanedProcesses(owner);
    expect(swept.length).toBe(2); // the shell and its sleep
    await until(() => sleepers(left).length === 0, "the leftover is gone");
    expect(sleepers(ours)).toHaveLength(1);
    expect(sleepers(theirs)).toHaveLength(1);
  });
});

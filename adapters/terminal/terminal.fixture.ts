/**
 * Test-only helpers of the terminal tests: whether a process is gone, and a bounded wait for a condition (the
 * checks run on a short poll: the processes of a terminal are not ours to wait on).
 */
import fs from "node:fs";

/**
 * Whether `pid` no longer runs: kill(pid, 0) says ESRCH, or the process is a zombie (it exited; its parent has
 * not reaped it, as an init that does not reap orphans leaves it).
 */
export function isGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ESRCH";
  }
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
    return state === "Z" || state === "X";
  } catch {
    return true;
  }
}

/** Resolves once `check()` holds; rejects with `what` (a string, or a function giving one) after `timeoutMs`. */
export async function waitUntil(check: () => boolean, what: string | (() => string), timeoutMs = 5000, pollMs = 20): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${typeof what === "string" ? what : what()}`);
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}

/** The pid a shell printed as `NAME=<pid>` in `text` (the typed command shows `NAME=$!` or `NAME=$$`: no digits). */
export function printedPid(text: string, name: string): number | null {
  const match = new RegExp(`${name}=(\\d+)`).exec(text);
  return match === null ? null : Number(match[1]);
}

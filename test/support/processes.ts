/**
 * Real processes seen through Linux /proc, for tests of tool processes that must die (worker tags, orphaned
 * tools, durability): is a pid running, which `sleep <marker>` processes exist, polling until a condition holds.
 */
import fs from "node:fs";

/** True while the process runs (a zombie counts as gone). */
export function running(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
}

/** A unique `sleep` duration (30-40 s) that names one test's tool process. */
export function sleepMarker(): string {
  return `3${Math.floor(Math.random() * 10)}.${Math.floor(Math.random() * 1e6)}`;
}

/** Running processes whose command line is exactly `sleep <marker>`. */
export function sleepers(marker: string): number[] {
  return fs
    .readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .filter((name) => {
      try {
        return fs.readFileSync(`/proc/${name}/cmdline`, "utf8") === `sleep\0${marker}\0`;
      } catch {
        return false;
      }
    })
    .map(Number)
    .filter(running);
}

/** Kills leftover `sleep <marker>` processes (test cleanup, whatever the outcome). */
export function killSleepers(marker: string): void {
  for (const pid of sleepers(marker)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // gone
    }
  }
}

/** Polls `condition` every 25 ms until it holds. */
export async function until(condition: () => boolean | Promise<boolean>, label: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${label}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/**
 * One browser suite at a time, across vitest's worker processes: each e2e file holds this lock from before the
 * client build until its server and browser are closed, so suites run one after another (they share
 * web/dist and each starts a server, worker processes and Chromium) even where vitest runs files in parallel.
 *
 * The lock is a file created atomically (link of a file that already holds our pid). A waiter watches the
 * temp folder and retries when the lock file goes away; a lock whose owner process is gone is taken over.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const LOCK_FILE = path.join(os.tmpdir(), "leyline-e2e.lock");
/** A safety net only: how often a waiter re-checks a holder that might have died without an fs event. */
const RECHECK_MS = 5_000;

function ownerAlive(): boolean {
  let pid: number;
  try {
    pid = Number(fs.readFileSync(LOCK_FILE, "utf8").trim());
  } catch {
    return false;
  }
  // Our own pid: an earlier suite in this same worker process did not release it.
  if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

function tryTake(): boolean {
  const mine = `${LOCK_FILE}.${process.pid}`;
  fs.writeFileSync(mine, String(process.pid));
  try {
    fs.linkSync(mine, LOCK_FILE);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    return false;
  } finally {
    fs.rmSync(mine, { force: true });
  }
}

/** Waits until the lock file disappears (an fs event) or the re-check period passes. */
function lockGoneOrRecheck(): Promise<void> {
  return new Promise((resolve) => {
    const watcher = fs.watch(path.dirname(LOCK_FILE), (_event, name) => {
      if (name === path.basename(LOCK_FILE) && !fs.existsSync(LOCK_FILE)) done();
    });
    const timer = setTimeout(done, RECHECK_MS);
    function done(): void {
      clearTimeout(timer);
      watcher.close();
      resolve();
    }
    if (!fs.existsSync(LOCK_FILE)) done();
  });
}

/** Takes the e2e lock (waiting for another suite to finish); returns the release function. */
export async function acquireE2eLock(): Promise<() => void> {
  for (;;) {
    if (tryTake()) break;
    if (!ownerAlive()) {
      fs.rmSync(LOCK_FILE, { force: true });
      continue;
    }
    await lockGoneOrRecheck();
  }
  let released = false;
  return () => {
    if (released) return;
    released = true;
    try {
      if (fs.readFileSync(LOCK_FILE, "utf8").trim() === String(process.pid)) fs.rmSync(LOCK_FILE, { force: true });
    } catch {
      // already gone
    }
  };
}

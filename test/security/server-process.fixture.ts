/**
 * Test-only helpers of the security suite: the real server as a child process (`node --import tsx
 * api/main.ts --port 0`, as api/main.int.test.ts starts it) over temp pi and Leyline dirs and a faux script
 * file, JSON requests to it, the worker processes it started (its `runtime-worker` children: the bundle
 * adapters/runtime-client/worker-bundle.ts builds, or runtime-worker.ts itself; the spare worker among them), and
 * `sleep <marker>` processes (tool commands the faux model runs through pi's bash tool).
 */
import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { FauxTurn } from "../../adapters/runtime-protocol/faux-script.ts";
import { running } from "../support/processes.ts";

export { killSleepers, running, sleepers, sleepMarker, until } from "../support/processes.ts";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

export interface ServerDirs {
  root: string;
  agentDir: string;
  dataDir: string;
  cwd: string;
}

export interface ServerProcess {
  readonly child: ChildProcess;
  readonly pid: number;
  readonly url: string;
  stderr(): string;
  /** JSON request; the body is parsed when there is one. */
  call(method: string, route: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }>;
  /** Pids of the worker processes this server started that are still running (its spare worker included). */
  workers(): Promise<number[]>;
  /** SIGTERM and wait for the exit (SIGKILL after 20 s). */
  stop(): Promise<void>;
}

/** Starts the server over `dirs` with `turns` as LEYLINE_FAUX_RESPONSES; resolves once it listens. */
export async function startServer(dirs: ServerDirs, turns: FauxTurn[], env: NodeJS.ProcessEnv = {}): Promise<ServerProcess> {
  const script = path.join(dirs.root, `faux-${fs.readdirSync(dirs.root).length}.json`);
  fs.writeFileSync(script, JSON.stringify(turns));
  const child = spawn(process.execPath, ["--import", "tsx", "api/main.ts", "--port", "0"], {
    cwd: repoRoot,
    env: {
      ...process.env,
      LEYLINE_DATA_DIR: dirs.dataDir,
      PI_CODING_AGENT_DIR: dirs.agentDir,
      LEYLINE_FAUX_RESPONSES: script,
      PI_OFFLINE: "1",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
      const match = /^Leyline listening on (http:\/\/127\.0\.0\.1:\d+)\n/.exec(stdout);
      if (match?.[1] !== undefined) resolve(match[1]);
    });
    child.once("exit", (code) => reject(new Error(`server exited early (${String(code)}): ${stderr}`)));
  });
  const pid = child.pid ?? 0;
  return {
    child,
    pid,
    url,
    stderr: () => stderr,
    async call(method, route, body) {
      const res = await fetch(`${url}${route}`, {
        method,
        ...(body !== undefined ? { body: JSON.stringify(body), headers: { "content-type": "application/json" } } : {}),
      });
      const text = await res.text();
      return { status: res.status, body: text === "" ? {} : (JSON.parse(text) as Record<string, unknown>) };
    },
    async workers() {
      return childWorkers(pid);
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Running runtime worker processes (`runtime-worker-<hash>.mjs` or `runtime-worker.ts`) whose parent is `parent`. */
function childWorkers(parent: number): number[] {
  return fs
    .readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .filter((name) => {
      try {
        const stat = fs.readFileSync(`/proc/${name}/stat`, "utf8");
        const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
        return ppid === parent && fs.readFileSync(`/proc/${name}/cmdline`, "utf8").includes("runtime-worker");
      } catch {
        return false;
      }
    })
    .map(Number)
    .filter(running);
}

/** SIGSTOP then SIGKILL: the processes get no chance to react (a server and its workers dying at once). */
export function killFrozen(pids: readonly number[]): void {
  for (const pid of pids) process.kill(pid, "SIGSTOP");
  for (const pid of pids) process.kill(pid, "SIGKILL");
}

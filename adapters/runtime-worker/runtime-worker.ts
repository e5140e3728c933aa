/**
 * Child-process entry of a runtime worker, forked from its bundle (worker-bundle.ts: this file and ours it
 * imports as one plain ES module) or, without one, from this file through tsx.
 * Wires process IPC to a `RuntimeWorkerHost`. A parent that disappears (IPC disconnect) or a SIGTERM first kills
 * the worker's own tool processes (those carrying its LEYLINE_WORKER tag, worker-processes.ts: the control
 * plane that would do it is gone), then disposes the runtime and exits; uncaught errors are reported as
 * `fault` messages instead of killing the runtime.
 */
import { killWorkerProcesses, WORKER_TAG_ENV } from "../runtime-protocol/worker-processes.ts";
import { RuntimeWorkerHost } from "./worker-host.ts";

/** Bounds the runtime's disposal when the parent is gone: nobody waits for a clean goodbye. */
const ORPHAN_DISPOSE_MS = 5000;

function main(): void {
  const send = process.send?.bind(process);
  if (!send) {
    process.stderr.write("runtime-worker must be started with child_process.fork (no IPC channel)\n");
    process.exit(2);
  }
  let exiting = false;
  const exit = (code: number): void => {
    if (exiting) return;
    exiting = true;
    process.exit(code);
  };
  const host = new RuntimeWorkerHost({
    send: (message, onSent) => {
      if (!process.connected) return;
      send(message, undefined, {}, () => onSent?.());
    },
    onDisposed: () => exit(0),
  });
  process.on("message", (message: unknown) => host.handleMessage(message));
  const tag = process.env[WORKER_TAG_ENV];
  let stopping = false;
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    const tools = tag ? killWorkerProcesses(tag).catch(() => []) : Promise.resolve([]);
    const dispose = host.shutdown().catch(() => {});
    const bound = new Promise((resolve) => setTimeout(resolve, ORPHAN_DISPOSE_MS).unref());
    void Promise.all([tools, Promise.race([dispose, bound])]).finally(() => exit(0));
  };
  process.on("disconnect", stop);
  process.on("uncaughtException", (error) => host.fault("uncaughtException", error.stack ?? error.message, false));
  process.on("unhandledRejection", (reason) =>
    host.fault("unhandledRejection", reason instanceof Error ? (reason.stack ?? reason.message) : String(reason), false),
  );
  process.on("SIGTERM", stop);
  host.start();
}

main();

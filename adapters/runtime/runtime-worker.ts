/**
 * Child-process entry of a runtime worker: `child_process.fork(thisFile, { execArgv: ["--import", tsx] })`.
 * Wires process IPC to a `RuntimeWorkerHost`. A parent that disappears (IPC disconnect) disposes the runtime
 * and exits; uncaught errors are reported as `fault` messages instead of killing the runtime.
 */
import { RuntimeWorkerHost } from "./worker-host.ts";

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
  process.on("disconnect", () => {
    void host.shutdown().finally(() => exit(0));
  });
  process.on("uncaughtException", (error) => host.fault("uncaughtException", error.stack ?? error.message, false));
  process.on("unhandledRejection", (reason) =>
    host.fault("unhandledRejection", reason instanceof Error ? (reason.stack ?? reason.message) : String(reason), false),
  );
  process.on("SIGTERM", () => {
    void host.shutdown().finally(() => exit(0));
  });
  host.start();
}

main();

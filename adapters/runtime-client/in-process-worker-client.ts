/**
 * The in-process adapter: the same worker logic (`RuntimeWorkerHost`) and the same validated protocol as
 * `ForkedWorkerClient`, without a child process. Messages are JSON round-tripped and delivered
 * asynchronously in both directions, as over IPC. For fast unit tests; isolation is of course lost, and
 * pi's process-global state (env, api registry, theme) is shared with the test.
 */
import type { ExtensionFactory } from "@earendil-works/pi-coding-agent";
import { BaseWorkerClient, type WorkerClientOptions } from "./worker-client.ts";
import { RuntimeWorkerHost } from "../runtime-worker/worker-host.ts";

export interface InProcessWorkerOptions extends WorkerClientOptions {
  extensionFactories?: ExtensionFactory[];
}

function roundTrip(message: unknown): unknown {
  return JSON.parse(JSON.stringify(message)) as unknown;
}

export class InProcessWorkerClient extends BaseWorkerClient {
  readonly pid = process.pid;
  private readonly host: RuntimeWorkerHost;

  private constructor(options: InProcessWorkerOptions) {
    super(options);
    this.host = new RuntimeWorkerHost({
      send: (message, onSent) => {
        const copy = roundTrip(message);
        setImmediate(() => {
          if (!this.exited) this.receive(copy);
          onSent?.();
        });
      },
      ...(options.extensionFactories ? { extensionFactories: options.extensionFactories } : {}),
      onDisposed: () => setImmediate(() => this.markExited(0, null)),
    });
    setImmediate(() => this.host.start());
  }

  static start(options: InProcessWorkerOptions = {}): InProcessWorkerClient {
    return new InProcessWorkerClient(options);
  }

  protected transmit(message: unknown): void {
    if (this.exited) throw new Error("in-process worker has exited");
    const copy = message === undefined ? undefined : roundTrip(message);
    setImmediate(() => this.host.handleMessage(copy));
  }

  kill(): void {
    this.stopRequested = true;
    if (this.exited) return;
    void this.host.shutdown().catch(() => {});
    this.markExited(null, "SIGKILL");
  }
}

/**
 * Temporary runtime previews for GET /api/pi/state (start-screen options: models, thinking levels, slash
 * commands of a folder). A preview is a throwaway `RuntimeHandle` that is never registered with the host:
 * it announces nothing on the events socket, does not count as an open session, is never selected, and is
 * disposed before the response. It opens a NEW pi session in its worker and never prompts, so pi (which
 * writes a session file with the first assistant message) creates no file. Its snapshot's id is "".
 */
import path from "node:path";
import type { FauxScript } from "../adapters/runtime/faux-script.ts";
import type { WorkerOpenOptions } from "../adapters/runtime/runtime-protocol.ts";
import { ForkedWorkerClient } from "../adapters/runtime/worker-client.ts";
import { systemClock } from "../adapters/runtime-host/host-clock.ts";
import { RuntimeHandle } from "../adapters/runtime-host/runtime-handle.ts";
import type { RuntimeHostOptions } from "../adapters/runtime-host/runtime-host.ts";
import type { Active } from "../domain/runtime/runtime-types.ts";

export interface RuntimePreviewer {
  /** The `Active` of a throwaway runtime in `cwd` (id ""), disposed before this resolves. */
  preview(cwd: string): Promise<Active>;
}

const PREVIEW_DISPOSE_TIMEOUT_MS = 5_000;

/** Previews with the same worker factory and worker options as the host's runtimes. */
export function createRuntimePreviewer(options: RuntimeHostOptions, fauxScript: FauxScript | null): RuntimePreviewer {
  const workerOptions: WorkerOpenOptions = {
    ...(options.agentDir !== undefined ? { agentDir: options.agentDir } : {}),
    ...(options.extensionPaths ? { extensionPaths: options.extensionPaths } : {}),
    ...(options.tools ? { tools: options.tools } : {}),
    ...(fauxScript ? { faux: options.faux ?? {} } : {}),
    heartbeatMs: 0,
  };
  const createClient =
    options.createClient ?? ((context) => ForkedWorkerClient.spawn({ fauxScript: context.fauxScript, ...(options.env ? { env: options.env } : {}) }));
  return {
    async preview(cwd) {
      const handle = new RuntimeHandle({
        clock: systemClock,
        createClient: () => createClient({ fauxScript }),
        workerOptions,
        emit: () => undefined,
        maxRecoveries: 0,
        confirmationTimeoutMs: null,
        openTimeoutMs: options.openTimeoutMs ?? 60_000,
      });
      try {
        await handle.start({ new: { cwd: path.resolve(cwd) } });
        const active = handle.active();
        return { ...active, id: "", path: "" };
      } finally {
        await handle.close(PREVIEW_DISPOSE_TIMEOUT_MS);
      }
    },
  };
}

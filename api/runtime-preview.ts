/**
 * Temporary runtime previews for GET /api/pi/state (start-screen options: models, thinking levels, slash
 * commands of a folder). A preview is a throwaway `RuntimeHandle` that is never registered with the host:
 * it announces nothing on the events socket, does not count as an open session, is never selected, and is
 * disposed before the response. It opens a NEW pi session in its worker and never prompts, so pi (which
 * writes a session file with the first assistant message) creates no file. Its snapshot's id is "".
 *
 * A preview costs a worker process (~140 MB, seconds of CPU), so previews are bounded (30 parallel requests
 * once made 33 workers and 4.7 GB):
 * - each build holds a slot of the runtime host's capacity (`reserveCapacity`) from before its worker starts
 *   until the worker is gone; at the limit (no idle runtime to close) the request fails with 503;
 * - one build per folder at a time: requests for a folder whose preview is being built share that build
 *   (single flight), `refresh` ones included: a build in flight reads pi's settings and extensions when its
 *   worker opens, so it is as fresh as a new one would be;
 * - a finished preview is served again to requests without `refresh` (spec: "refresh=1 always creates a fresh
 *   preview") while what it was built from is unchanged: the fingerprint of the files a runtime in that folder
 *   reads (adapters/runtime-client/runtime-inputs.ts: pi's settings.json, models.json and auth.json, the agent dir's
 *   and the project's `.pi` resources, context files, extension files; what it does not cover is listed
 *   there), taken before the build and compared on every request (stats only, about a millisecond), and for
 *   at most `cacheMs` (default 10 min, the bound for what the fingerprint misses). Failures are not cached;
 *   at most `PREVIEW_CACHE_FOLDERS` folders are kept (the least recently served go first);
 * - at most `maxBuilding` folders (default 2) are built at once; a request for yet another folder answers 503
 *   at once. The capacity bounds memory, this bounds CPU: 16 workers starting together on a small machine
 *   each took over the 60 s open timeout, so every one of them failed after a minute's work.
 * A build takes its worker from the host (`createWorkerClient`: the spare worker when there is one, whose pi
 * is already imported), else from the host options' worker factory.
 */
import path from "node:path";
import type { FauxScript } from "../adapters/runtime-protocol/faux-script.ts";
import type { WorkerOpenOptions } from "../adapters/runtime-protocol/runtime-protocol.ts";
import { runtimeInputsFingerprint } from "../adapters/runtime-client/runtime-inputs.ts";
import { ForkedWorkerClient, type RuntimeWorkerClient } from "../adapters/runtime-client/worker-client.ts";
import { BUNDLED_EXTENSIONS_DIR } from "../adapters/runtime-worker/worker-runtime.ts";
import { resolveAgentDir } from "../adapters/session-files/agent-dir.ts";
import { type HostClock, systemClock } from "../adapters/runtime-host/host-clock.ts";
import { RuntimeHandle } from "../adapters/runtime-host/runtime-handle.ts";
import { RuntimeHostError } from "../adapters/runtime-host/runtime-host-error.ts";
import type { CapacityReservation, RuntimeHostOptions } from "../adapters/runtime-host/runtime-host.ts";
import type { Active } from "../domain/runtime/runtime-types.ts";

export interface RuntimePreviewer {
  /** The `Active` of a throwaway runtime in `cwd` (id ""), built, shared or cached as described above. */
  preview(cwd: string, options?: { refresh?: boolean }): Promise<Active>;
  /** Disposes the previews being built and refuses new ones (the app's shutdown). */
  close(): Promise<void>;
}

/** Where previews take their worker slots (and, when it offers them, their workers): the runtime host. */
export interface PreviewCapacity {
  reserveCapacity(): Promise<CapacityReservation>;
  createWorkerClient?(): RuntimeWorkerClient;
}

export interface RuntimePreviewerSettings {
  readonly capacity: PreviewCapacity;
  /** How long a finished preview may be reused at most while its inputs are unchanged (ms; ≤ 0 disables the cache). Default 10 min. */
  readonly cacheMs?: number;
  /** How many folders' previews may be built at once. Default `PREVIEW_MAX_BUILDING`. */
  readonly maxBuilding?: number;
  readonly clock?: HostClock;
}

export const PREVIEW_CACHE_MS = 600_000;
export const PREVIEW_MAX_BUILDING = 2;
/** Folders whose previews are kept. */
export const PREVIEW_CACHE_FOLDERS = 64;
const PREVIEW_DISPOSE_TIMEOUT_MS = 5_000;

/** Previews with the same worker factory and worker options as the host's runtimes. */
export function createRuntimePreviewer(
  options: RuntimeHostOptions,
  fauxScript: FauxScript | null,
  settings: RuntimePreviewerSettings,
): RuntimePreviewer {
  const workerOptions: WorkerOpenOptions = {
    ...(options.agentDir !== undefined ? { agentDir: options.agentDir } : {}),
    ...(options.extensionPaths ? { extensionPaths: options.extensionPaths } : {}),
    ...(options.tools ? { tools: options.tools } : {}),
    ...(fauxScript ? { faux: options.faux ?? {} } : {}),
    heartbeatMs: 0,
  };
  const hostClient = settings.capacity.createWorkerClient?.bind(settings.capacity);
  const createClient =
    hostClient !== undefined
      ? () => hostClient()
      : (options.createClient ??
        ((context) => ForkedWorkerClient.spawn({ fauxScript: context.fauxScript, ...(options.env ? { env: options.env } : {}) })));
  const agentDir = options.agentDir ?? resolveAgentDir(options.env ?? process.env);
  const extensionPaths = [BUNDLED_EXTENSIONS_DIR, ...(options.extensionPaths ?? [])];
  const inputsOf = (cwd: string): string => runtimeInputsFingerprint({ agentDir, cwd, extensionPaths });
  const clock = settings.clock ?? systemClock;
  const cacheMs = settings.cacheMs ?? PREVIEW_CACHE_MS;
  const maxBuilding = Math.max(1, settings.maxBuilding ?? PREVIEW_MAX_BUILDING);
  const building = new Map<string, Promise<Active>>();
  /** Finished previews by folder, least recently served first. */
  const cache = new Map<string, { active: Active; inputs: string; expiresAt: number }>();
  const live = new Set<RuntimeHandle>();
  let closed = false;

  const build = async (cwd: string): Promise<Active> => {
    let slot: CapacityReservation;
    try {
      slot = await settings.capacity.reserveCapacity();
    } catch (error) {
      if (error instanceof RuntimeHostError && error.code === "capacity_reached" && !closed) {
        throw new RuntimeHostError(
          "capacity_reached",
          `${error.message}: no worker is free to preview ${cwd}; close a session or try again`,
        );
      }
      throw error;
    }
    const handle = new RuntimeHandle({
      clock,
      createClient: () => createClient({ fauxScript }),
      workerOptions,
      emit: () => undefined,
      maxRecoveries: 0,
      confirmationTimeoutMs: null,
      openTimeoutMs: options.openTimeoutMs ?? 60_000,
    });
    live.add(handle);
    try {
      if (closed) throw new RuntimeHostError("capacity_reached", "The server is shutting down");
      await handle.start({ new: { cwd, preview: true } });
      if (closed) throw new RuntimeHostError("capacity_reached", "The server is shutting down");
      return { ...handle.active(), id: "", path: "" };
    } finally {
      // The slot is given back only once the worker is gone.
      await handle.close(PREVIEW_DISPOSE_TIMEOUT_MS).finally(() => {
        live.delete(handle);
        slot.release();
      });
    }
  };

  return {
    async preview(given, previewOptions = {}) {
      if (closed) throw new RuntimeHostError("capacity_reached", "The server is shutting down");
      const cwd = path.resolve(given);
      const now = clock.now();
      for (const [key, entry] of cache) if (entry.expiresAt <= now) cache.delete(key);
      const inputs = cacheMs > 0 ? inputsOf(cwd) : "";
      const cached = cache.get(cwd);
      if (cached !== undefined && previewOptions.refresh !== true && cached.inputs === inputs) {
        cache.delete(cwd);
        cache.set(cwd, cached);
        return cached.active;
      }
      const inFlight = building.get(cwd);
      if (inFlight !== undefined) return inFlight;
      if (building.size >= maxBuilding) {
        throw new RuntimeHostError(
          "capacity_reached",
          `Previews of ${building.size} other folders are being built: try ${cwd} again in a few seconds`,
        );
      }
      // The inputs are taken before the build: a change while it runs makes the next request build again.
      const run = build(cwd)
        .then((active) => {
          if (cacheMs > 0 && !closed) {
            cache.delete(cwd);
            cache.set(cwd, { active, inputs, expiresAt: clock.now() + cacheMs });
            for (const key of cache.keys()) {
              if (cache.size <= PREVIEW_CACHE_FOLDERS) break;
              cache.delete(key);
            }
          }
          return active;
        })
        .finally(() => building.delete(cwd));
      building.set(cwd, run);
      return run;
    },
    async close() {
      closed = true;
      cache.clear();
      await Promise.all([...live].map((handle) => handle.close(PREVIEW_DISPOSE_TIMEOUT_MS).catch(() => undefined)));
    },
  };
}

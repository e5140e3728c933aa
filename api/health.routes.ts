/**
 * Health and probes:
 * - GET /api/health → `{ ok: true, activeWorkers }` (the runtime host's worker count);
 * - GET /internal/live → 200 while the process serves;
 * - GET /internal/ready → 503 until leyline.sqlite is migrated and the session index finished its first scan,
 *   then 200 (also 503 after a failed start-up, with the reason);
 * - GET /internal/diagnostics → index counts, uptime, data and agent dirs, memory. No environment values,
 *   no file contents, no credentials.
 */
import type { FastifyPluginAsync } from "fastify";
import { diagnostics, health, live, ready } from "../domain/contract/http-service.ts";
import { sendError } from "./http-error.ts";
import type { ReadSide } from "../adapters/read-side/read-side.ts";
import type { RuntimeHostView } from "./runtime-host.ts";

export interface HealthRoutesOptions {
  readonly readSide: ReadSide;
  readonly runtimeHost: RuntimeHostView;
  readonly dataDir: string;
  readonly agentDir: string;
  readonly epoch: string;
  readonly version: string;
  /** performance.now()-style clock of the process start (ms); uptime is measured from it. */
  readonly startedAtMs: number;
  readonly now: () => number;
}

export const healthRoutes: FastifyPluginAsync<HealthRoutesOptions> = async (app, options) => {
  const { readSide, runtimeHost } = options;

  app.get(health.url, { schema: health.schema }, async () => ({ ok: true, activeWorkers: runtimeHost.activeWorkers() }));

  app.get(live.url, { schema: live.schema }, async () => ({ ok: true }));

  app.get(ready.url, { schema: ready.schema }, async (_request, reply) => {
    const phase = readSide.phase();
    if (phase === "ready") return { ready: true };
    const failure = readSide.failure();
    return sendError(reply, "not_ready", failure === null ? `Not ready: ${phase}` : `Start-up failed: ${failure}`);
  });

  app.get(diagnostics.url, { schema: diagnostics.schema }, async () => {
    const services = readSide.current();
    const status = services?.index.status() ?? null;
    const memory = process.memoryUsage();
    return {
      version: options.version,
      epoch: options.epoch,
      uptimeMs: Math.round(options.now() - options.startedAtMs),
      readSide: { phase: readSide.phase(), failure: readSide.failure() },
      sessionIndex:
        status === null
          ? null
          : {
              ready: status.ready,
              filesOnDisk: status.filesOnDisk,
              indexed: status.indexed,
              invalid: status.invalid,
              watchedFolders: services?.index.watchedFolders() ?? 0,
            },
      dataDir: options.dataDir,
      databaseFile: services?.database.file ?? null,
      agentDir: options.agentDir,
      activeWorkers: runtimeHost.activeWorkers(),
      openRuntimes: runtimeHost.openRuntimes().length,
      memory: { rss: memory.rss, heapUsed: memory.heapUsed, heapTotal: memory.heapTotal, external: memory.external },
      node: process.version,
      pid: process.pid,
    };
  });
};

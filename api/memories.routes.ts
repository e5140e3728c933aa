/**
 * Memory Inspector routes (spec "Memory Inspector routes"; contract domain/contract/http-memories.ts) over
 * memory.sqlite in LEYLINE_MEMORY_DIR (else Leyline's data dir), opened on the first request and closed with
 * the app. Thin: the service (adapters/memories/memory-service.ts) resolves the context, checks and stores.
 *
 * - GET /api/pi/memories?cwd&sessionPath → `{ context, memories, counts }`;
 * - POST /api/pi/memories → `{ ok, memory }`; PATCH /api/pi/memories/:id → `{ ok, memory }`;
 * - POST /api/pi/memories/status, DELETE /api/pi/memories, DELETE /api/pi/memories/:id → `{ ok, memories }`.
 *
 * Statuses: bad or missing fields, a rule's refusal, the session scope without sessionPath → 400; an id no
 * visible record has (another project's, a session's without its sessionPath, a deleted one) → 500 (spec: missing
 * memories), nothing changed.
 */
import type { FastifyPluginAsync } from "fastify";
import {
  createMemory,
  deleteMemories,
  deleteMemory,
  listMemories,
  setMemoryStatus,
  updateMemory,
} from "../domain/contract/http-memories.ts";
import { createMemoryService, type MemoryService } from "../adapters/memories/memory-service.ts";
import { canonicalPath } from "../adapters/subagents/subagent-context.ts";
import { typed } from "./contract.ts";
import type { RuntimeHostView } from "./runtime-host.ts";

export interface MemoriesRoutesOptions {
  /** The folder of memory.sqlite (adapters/memories/memory-database.ts resolveMemoryDir). */
  readonly memoryDir: string;
  /** Open runtimes: the id of a session file pi has not written yet. */
  readonly runtimeHost: RuntimeHostView;
  /** Milliseconds since the epoch (tests pass a fixed clock). Default Date.now. */
  readonly now?: () => number;
}

export const memoriesRoutes: FastifyPluginAsync<MemoriesRoutesOptions> = async (app, options) => {
  const service: MemoryService = createMemoryService({
    memoryDir: options.memoryDir,
    sessionIdOf: (sessionFile) =>
      options.runtimeHost.openRuntimes().find((r) => r.sessionFile !== null && canonicalPath(r.sessionFile) === sessionFile)?.sessionId ??
      null,
    ...(options.now !== undefined ? { now: options.now } : {}),
    onMovedAside: (file, movedAside) =>
      app.log.warn({ file, movedAside }, "memory.sqlite could not be read: moved aside, a new one created"),
  });
  app.addHook("onClose", () => service.close());

  const api = typed(app);

  api.get(listMemories.url, { schema: listMemories.schema }, async (request) => service.view(request.query));

  api.post(createMemory.url, { schema: createMemory.schema }, async (request) => {
    const { scope, contentMd, tags } = request.body;
    return { ok: true as const, memory: await service.create(request.body, { scope, contentMd, tags }) };
  });

  api.patch(updateMemory.url, { schema: updateMemory.schema }, async (request) => {
    const { contentMd, tags } = request.body;
    return { ok: true as const, memory: await service.update(request.body, request.params.id, { contentMd, tags }) };
  });

  api.post(setMemoryStatus.url, { schema: setMemoryStatus.schema }, async (request) => ({
    ok: true as const,
    memories: await service.setStatus(request.body, request.body.ids, request.body.status),
  }));

  api.delete(deleteMemories.url, { schema: deleteMemories.schema }, async (request) => ({
    ok: true as const,
    memories: await service.remove(request.body, request.body.ids),
  }));

  api.delete(deleteMemory.url, { schema: deleteMemory.schema }, async (request) => ({
    ok: true as const,
    memories: await service.remove(request.body, [request.params.id]),
  }));
};

/**
 * The Memory Inspector's service (spec "Memory Inspector routes"): memory.sqlite opened on first use (and closed
 * with the app), the context of each request, the checks of domain/memories/memory-rules.ts, and the store.
 *
 * - Context: the project of the cwd and the session of the sessionPath, as the subagent routes resolve them
 *   (adapters/subagents/subagent-context.ts: canonical paths, the nearest `.git` folder as the project root, a
 *   hash of it as the project id; the session id from an open runtime or the file's header). Reading a session
 *   file's first line is all it does to pi's files: the inspector never writes them.
 * - Failures are ServiceErrors: a request a rule refuses → invalid_request (400); an id no visible record has →
 *   the spec's status for missing memories (500, MEMORY_NOT_FOUND_CODE) with "Memory not found: <id>".
 */
import { randomUUID } from "node:crypto";
import type { ErrorCode } from "../../domain/contract/error-codes.ts";
import {
  checkMemoryContent,
  checkMemoryId,
  checkMemoryIds,
  checkMemoryTags,
  checkScopeIn,
  memoriesView,
  newUserMemory,
  type Checked,
} from "../../domain/memories/memory-rules.ts";
import type { MemoriesView, Memory, MemoryContext, MemoryScope, MemoryStatus } from "../../domain/memories/memory-types.ts";
import { ServiceError } from "../../domain/service-error.ts";
import { resolveSubagentContext } from "../subagents/subagent-context.ts";
import { openMemoryDatabase, type MemoryDatabaseHandle } from "./memory-database.ts";
import * as store from "./memory-store.ts";

/** spec: "500 is used for thrown runtime errors. This includes ... missing memories" (the code table's row). */
export const MEMORY_NOT_FOUND_CODE: ErrorCode = "memory_not_found";

export interface MemoryServiceOptions {
  /** The folder of memory.sqlite (resolveMemoryDir). */
  readonly memoryDir: string;
  /** The id of a canonical session file an open runtime knows (else the file's header line is read). */
  readonly sessionIdOf?: (sessionFile: string) => string | null;
  /** Milliseconds since the epoch. Default Date.now. */
  readonly now?: () => number;
  /** Ids of new records. Default randomUUID. */
  readonly newId?: () => string;
  /** Told when an unreadable memory.sqlite was moved aside on opening. */
  readonly onMovedAside?: (file: string, movedAside: string) => void;
}

/** Where a request stands: its cwd (required) and, optionally, its session file. */
export interface MemoryTarget {
  readonly cwd: string;
  readonly sessionPath?: string | null | undefined;
}

export interface MemoryService {
  context(target: MemoryTarget): MemoryContext;
  view(target: MemoryTarget): Promise<MemoriesView>;
  create(
    target: MemoryTarget,
    input: { scope: MemoryScope; contentMd: string; tags?: readonly string[] | null | undefined },
  ): Promise<Memory>;
  update(target: MemoryTarget, id: string, input: { contentMd: string; tags?: readonly string[] | null | undefined }): Promise<Memory>;
  setStatus(target: MemoryTarget, ids: readonly string[], status: MemoryStatus): Promise<Memory[]>;
  remove(target: MemoryTarget, ids: readonly string[]): Promise<Memory[]>;
  /** The open database (opening it on first use). */
  database(): Promise<MemoryDatabaseHandle>;
  close(): Promise<void>;
}

function checked<T>(result: Checked<T>): T {
  if (!result.ok) throw new ServiceError("invalid_request", result.error);
  return result.value;
}

/** Runs a store call, answering an id no visible record has with the spec's status. */
async function orNotFound<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof store.MemoryNotFound) throw new ServiceError(MEMORY_NOT_FOUND_CODE, error.message, { cause: error });
    throw error;
  }
}

export function createMemoryService(options: MemoryServiceOptions): MemoryService {
  const now = options.now ?? Date.now;
  const newId = options.newId ?? randomUUID;
  let opening: Promise<MemoryDatabaseHandle> | null = null;
  let closed = false;

  const database = (): Promise<MemoryDatabaseHandle> => {
    if (closed) return Promise.reject(new ServiceError("not_ready", "Leyline is stopping: memories are closed"));
    if (opening === null) {
      const attempt = openMemoryDatabase(options.memoryDir).then((handle) => {
        if (handle.movedAside !== null) options.onMovedAside?.(handle.file, handle.movedAside);
        return handle;
      });
      // A failed open (permissions, a full disk) is tried again by the next request.
      attempt.catch(() => {
        if (opening === attempt) opening = null;
      });
      opening = attempt;
    }
    return opening;
  };
  const db = async () => (await database()).db;

  const context = (target: MemoryTarget): MemoryContext => {
    const cwd = target.cwd.trim();
    if (cwd === "") throw new ServiceError("invalid_request", "cwd must be a non-empty string");
    const sessionPath = target.sessionPath?.trim() ?? "";
    return resolveSubagentContext({ cwd, sessionPath, sessionIdOf: options.sessionIdOf });
  };

  return {
    context,
    database,

    async view(target) {
      const ctx = context(target);
      return memoriesView(ctx, await store.listVisibleMemories(await db(), ctx));
    },

    async create(target, input) {
      const ctx = context(target);
      const scope = checked(checkScopeIn(input.scope, ctx));
      const contentMd = checked(checkMemoryContent(input.contentMd));
      const tags = checked(checkMemoryTags(input.tags));
      return store.insertMemory(await db(), newUserMemory({ id: newId(), now: now(), scope, contentMd, tags, context: ctx }));
    },

    async update(target, rawId, input) {
      const ctx = context(target);
      const id = checked(checkMemoryId(rawId));
      const contentMd = checked(checkMemoryContent(input.contentMd));
      const tags = input.tags === undefined || input.tags === null ? undefined : checked(checkMemoryTags(input.tags));
      const handle = await db();
      return orNotFound(() => store.updateMemory(handle, ctx, id, { contentMd, tags }, now()));
    },

    async setStatus(target, rawIds, status) {
      const ctx = context(target);
      const ids = checked(checkMemoryIds(rawIds));
      const handle = await db();
      return orNotFound(() => store.setMemoriesStatus(handle, ctx, ids, status, now()));
    },

    async remove(target, rawIds) {
      const ctx = context(target);
      const ids = checked(checkMemoryIds(rawIds));
      const handle = await db();
      return orNotFound(() => store.deleteMemories(handle, ctx, ids));
    },

    async close() {
      closed = true;
      const pending = opening;
      opening = null;
      if (pending === null) return;
      const handle = await pending.catch(() => null);
      await handle?.close();
    },
  };
}

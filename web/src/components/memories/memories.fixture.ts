/**
 * Test helpers of the Memory inspector: records, contexts and a fake Memory Inspector backend (for
 * composer.fixture.ts `fakeBackend`) that keeps its records and answers as the server does (visibility, order,
 * counts, 400 for empty content, 500 for a missing memory).
 */
import { memoriesView } from "../../../../domain/memories/memory-rules.ts";
import type { Memory, MemoryContext } from "../../../../domain/memories/memory-types.ts";
import type { FakeAnswer, RecordedRequest } from "../composer/composer.fixture.ts";

export function memory(overrides: Partial<Memory> = {}): Memory {
  return {
    id: "m1",
    scope: "project",
    projectId: "p1",
    projectRoot: "/work/app",
    projectName: "app",
    sessionId: null,
    sessionFile: null,
    cwd: "/work/app",
    contentMd: "A note",
    reasonMd: "",
    tags: [],
    status: "active",
    source: "user",
    createdAt: 1_000,
    updatedAt: 1_000,
    archivedAt: null,
    lastAccessedAt: null,
    ...overrides,
  };
}

export function memoryContext(overrides: Partial<MemoryContext> = {}): MemoryContext {
  return {
    cwd: "/work/app",
    projectId: "p1",
    projectName: "app",
    projectRoot: "/work/app",
    sessionAvailable: false,
    sessionFile: null,
    sessionId: null,
    ...overrides,
  };
}

/** A backend over `records` (mutated in place); the context follows the request's sessionPath. */
export function memoriesBackend(records: Memory[], options: { now?: () => number; failList?: string } = {}) {
  const now = options.now ?? (() => 5_000);
  let ids = 0;
  const contextOf = (sessionPath: string | null | undefined): MemoryContext =>
    sessionPath ? memoryContext({ sessionAvailable: true, sessionFile: sessionPath, sessionId: "s1" }) : memoryContext();
  const visible = (context: MemoryContext) => memoriesView(context, records).memories;
  return (request: RecordedRequest): FakeAnswer | undefined => {
    const url = new URL(request.path, "http://leyline.test");
    if (!url.pathname.startsWith("/api/pi/memories")) return undefined;
    const body = (request.body ?? {}) as {
      sessionPath?: string;
      scope?: Memory["scope"];
      contentMd?: string;
      tags?: string[];
      ids?: string[];
      status?: Memory["status"];
    };
    if (request.method === "GET") {
      if (options.failList) return { status: 500, body: { error: options.failList } };
      return { body: memoriesView(contextOf(url.searchParams.get("sessionPath")), records) };
    }
    const context = contextOf(body.sessionPath);
    const missing = (wanted: readonly string[]) => wanted.filter((id) => !visible(context).some((m) => m.id === id));
    if (request.method === "POST" && url.pathname === "/api/pi/memories") {
      if (!body.contentMd?.trim()) return { status: 400, body: { error: "contentMd must not be empty" } };
      const created = memory({
        id: `new-${(ids += 1)}`,
        scope: body.scope ?? "project",
        sessionFile: body.scope === "session" ? (body.sessionPath ?? null) : null,
        sessionId: body.scope === "session" ? "s1" : null,
        projectId: body.scope === "global" ? null : "p1",
        projectName: body.scope === "global" ? null : "app",
        contentMd: body.contentMd.trim(),
        tags: (body.tags ?? []).map((t) => t.toLowerCase()),
        createdAt: now(),
        updatedAt: now(),
      });
      records.push(created);
      return { body: { ok: true, memory: created } };
    }
    if (request.method === "PATCH") {
      const id = decodeURIComponent(url.pathname.split("/").at(-1) ?? "");
      if (missing([id]).length > 0) return { status: 500, body: { error: `Memory not found: ${id}` } };
      if (!body.contentMd?.trim()) return { status: 400, body: { error: "contentMd must not be empty" } };
      const index = records.findIndex((m) => m.id === id);
      const edited = { ...records[index]!, contentMd: body.contentMd.trim(), tags: body.tags ?? records[index]!.tags, updatedAt: now() };
      records[index] = edited;
      return { body: { ok: true, memory: edited } };
    }
    if (request.method === "POST" && url.pathname === "/api/pi/memories/status") {
      const wanted = body.ids ?? [];
      if (missing(wanted).length > 0) return { status: 500, body: { error: `Memory not found: ${missing(wanted)[0]}` } };
      for (const [index, m] of records.entries()) {
        if (wanted.includes(m.id) && m.status !== body.status) {
          records[index] = { ...m, status: body.status!, archivedAt: body.status === "archived" ? now() : null };
        }
      }
      return { body: { ok: true, memories: visible(context) } };
    }
    if (request.method === "DELETE") {
      const last = decodeURIComponent(url.pathname.split("/").at(-1) ?? "");
      const wanted = url.pathname === "/api/pi/memories" ? (body.ids ?? []) : [last];
      if (missing(wanted).length > 0) return { status: 500, body: { error: `Memory not found: ${missing(wanted)[0]}` } };
      const kept = records.filter((m) => !wanted.includes(m.id));
      records.splice(0, records.length, ...kept);
      return { body: { ok: true, memories: visible(context) } };
    }
    return undefined;
  };
}

/**
 * The Memory Inspector's rules (spec "Memory Inspector routes"), as pure functions: what a request may write,
 * which records a context sees, their order and their counts. Checks answer the normalised value or the words
 * of the refusal (`{ error }`) and never throw; the routes turn a refusal into a 400. Nothing here reads the
 * clock or makes ids: callers pass `now` and `id`.
 *
 * - Visibility: a global memory is visible everywhere; a project memory in every context of its project (same
 *   project id); a session memory only in a context with a session (a sessionPath), the same session file or id.
 * - Order: newest update first, then newest creation, then id (a total order: the same records always list alike).
 * - Content: Markdown, line ends made `\n`, leading blank lines and trailing white space dropped, non-empty, at
 *   most MEMORY_CONTENT_MAX characters.
 * - Tags: each trimmed, leading `#` dropped, inner white space made `-`, lower case; empty ones dropped,
 *   duplicates dropped (first kept); at most MEMORY_TAGS_MAX tags of at most MEMORY_TAG_MAX characters.
 * - Ids: non-empty strings of at most MEMORY_ID_MAX characters; a bulk request names 1 to MEMORY_IDS_MAX ids
 *   (duplicates dropped).
 */
import {
  MEMORY_SCOPES,
  type Memory,
  type MemoryContext,
  type MemoryCounts,
  type MemoriesView,
  type MemoryScope,
  type MemoryStatus,
} from "./memory-types.ts";

export const MEMORY_CONTENT_MAX = 20_000;
export const MEMORY_TAG_MAX = 48;
export const MEMORY_TAGS_MAX = 20;
export const MEMORY_ID_MAX = 128;
export const MEMORY_IDS_MAX = 500;

export const SESSION_SCOPE_NEEDS_SESSION = "sessionPath is required for the session scope";

export type Checked<T> = { ok: true; value: T } | { ok: false; error: string };

const ok = <T>(value: T): Checked<T> => ({ ok: true, value });
const refused = <T>(error: string): Checked<T> => ({ ok: false, error });

function characters(text: string): number {
  let count = 0;
  for (const _ of text) count += 1;
  return count;
}

/** Markdown content as stored: `\n` line ends, no leading blank lines, no trailing white space. */
export function normaliseContent(raw: string): string {
  return raw
    .replace(/\r\n?/g, "\n")
    .replace(/^(?:[ \t]*\n)+/, "")
    .trimEnd();
}

export function checkMemoryContent(raw: string): Checked<string> {
  const content = normaliseContent(raw);
  if (content === "") return refused("contentMd must not be empty");
  if (characters(content) > MEMORY_CONTENT_MAX) return refused(`contentMd must be at most ${MEMORY_CONTENT_MAX} characters`);
  return ok(content);
}

/** One tag as stored ("" when nothing is left). */
export function normaliseTag(raw: string): string {
  return raw.normalize("NFC").trim().replace(/^#+/, "").trim().replace(/\s+/g, "-").toLowerCase();
}

/** The tags of a request (absent: none). */
export function checkMemoryTags(raw: readonly string[] | null | undefined): Checked<string[]> {
  const tags: string[] = [];
  for (const item of raw ?? []) {
    const tag = normaliseTag(item);
    if (tag === "" || tags.includes(tag)) continue;
    if (characters(tag) > MEMORY_TAG_MAX) return refused(`every tag must be at most ${MEMORY_TAG_MAX} characters`);
    tags.push(tag);
  }
  if (tags.length > MEMORY_TAGS_MAX) return refused(`a memory can have at most ${MEMORY_TAGS_MAX} tags`);
  return ok(tags);
}

export function checkMemoryId(raw: string): Checked<string> {
  const id = raw.trim();
  if (id === "") return refused("id must be a non-empty string");
  if (id.length > MEMORY_ID_MAX) return refused(`id must be at most ${MEMORY_ID_MAX} characters`);
  return ok(id);
}

/** The ids of a bulk request: 1 to MEMORY_IDS_MAX, each checked, duplicates dropped (first kept). */
export function checkMemoryIds(raw: readonly string[]): Checked<string[]> {
  if (raw.length === 0) return refused("ids must name at least one memory");
  if (raw.length > MEMORY_IDS_MAX) return refused(`ids can name at most ${MEMORY_IDS_MAX} memories per request`);
  const ids: string[] = [];
  for (const item of raw) {
    const id = checkMemoryId(item);
    if (!id.ok) return refused(`ids must be non-empty strings of at most ${MEMORY_ID_MAX} characters`);
    if (!ids.includes(id.value)) ids.push(id.value);
  }
  return ok(ids);
}

/** The scope a new memory goes to: the session scope needs a session. */
export function checkScopeIn(scope: MemoryScope, context: Pick<MemoryContext, "sessionAvailable">): Checked<MemoryScope> {
  if (scope === "session" && !context.sessionAvailable) return refused(SESSION_SCOPE_NEEDS_SESSION);
  return ok(scope);
}

export type VisibilityContext = Pick<MemoryContext, "projectId" | "sessionAvailable" | "sessionFile" | "sessionId">;

export function isVisibleIn(
  memory: Pick<Memory, "scope" | "projectId" | "sessionFile" | "sessionId">,
  context: VisibilityContext,
): boolean {
  switch (memory.scope) {
    case "global":
      return true;
    case "project":
      return memory.projectId === context.projectId;
    case "session":
      if (!context.sessionAvailable) return false;
      return (
        (context.sessionFile !== null && memory.sessionFile === context.sessionFile) ||
        (context.sessionId !== null && memory.sessionId === context.sessionId)
      );
  }
}

/** Newest update first, then newest creation, then id. */
export function compareMemories(a: Memory, b: Memory): number {
  if (a.updatedAt !== b.updatedAt) return b.updatedAt - a.updatedAt;
  if (a.createdAt !== b.createdAt) return b.createdAt - a.createdAt;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** The records a context sees, in order. */
export function visibleMemories(memories: readonly Memory[], context: VisibilityContext): Memory[] {
  return memories.filter((memory) => isVisibleIn(memory, context)).sort(compareMemories);
}

export function memoryCounts(memories: readonly Pick<Memory, "scope" | "status">[]): MemoryCounts {
  const scopes = Object.fromEntries(MEMORY_SCOPES.map((scope) => [scope, { active: 0, archived: 0 }])) as MemoryCounts["scopes"];
  let active = 0;
  let archived = 0;
  for (const memory of memories) {
    scopes[memory.scope][memory.status] += 1;
    if (memory.status === "active") active += 1;
    else archived += 1;
  }
  return { active, archived, scopes };
}

/** GET /api/pi/memories from every record a context may see (others are filtered out). */
export function memoriesView(context: MemoryContext, memories: readonly Memory[]): MemoriesView {
  const visible = visibleMemories(memories, context);
  return { context, memories: visible, counts: memoryCounts(visible) };
}

export interface NewUserMemory {
  readonly id: string;
  readonly now: number;
  readonly scope: MemoryScope;
  /** Checked (checkMemoryContent). */
  readonly contentMd: string;
  /** Checked (checkMemoryTags). */
  readonly tags: readonly string[];
  readonly context: MemoryContext;
}

/**
 * A memory a person writes (POST /api/pi/memories): source user, active, no reason; the project of a project
 * or session memory and the session of a session memory come from the context. The scope must be available
 * (checkScopeIn).
 */
export function newUserMemory(input: NewUserMemory): Memory {
  const { context, scope } = input;
  const inProject = scope !== "global";
  const inSession = scope === "session";
  return {
    id: input.id,
    scope,
    projectId: inProject ? context.projectId : null,
    projectRoot: inProject ? context.projectRoot : null,
    projectName: inProject ? context.projectName : null,
    sessionId: inSession ? context.sessionId : null,
    sessionFile: inSession ? context.sessionFile : null,
    cwd: context.cwd,
    contentMd: input.contentMd,
    reasonMd: "",
    tags: [...input.tags],
    status: "active",
    source: "user",
    createdAt: input.now,
    updatedAt: input.now,
    archivedAt: null,
    lastAccessedAt: null,
  };
}

/** PATCH: new content and (when given) tags; scope, source, reason and status stay. */
export function editedMemory(memory: Memory, change: { contentMd: string; tags?: readonly string[] | undefined }, now: number): Memory {
  return { ...memory, contentMd: change.contentMd, tags: change.tags === undefined ? memory.tags : [...change.tags], updatedAt: now };
}

/**
 * POST /status: archiving stamps `archivedAt` (an archived record keeps its stamp), restoring clears it. The
 * update time stays: it is the time of the content's last change, and the list keeps its order.
 */
export function withStatus(memory: Memory, status: MemoryStatus, now: number): Memory {
  if (memory.status === status) return memory;
  return { ...memory, status, archivedAt: status === "archived" ? now : null };
}

/** The ids of a request that name no visible record. */
export function missingIds(ids: readonly string[], visible: readonly Pick<Memory, "id">[]): string[] {
  const known = new Set(visible.map((memory) => memory.id));
  return ids.filter((id) => !known.has(id));
}

export function memoryNotFoundMessage(ids: readonly string[]): string {
  return ids.length === 1 ? `Memory not found: ${ids[0]}` : `Memories not found: ${ids.join(", ")}`;
}

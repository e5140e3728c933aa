/**
 * The Memory Inspector routes (spec "Memory Inspector routes"): the memories a folder (and session) sees in
 * memory.sqlite, and the person's edits of them. Every request names its `cwd`; `sessionPath` is optional and
 * the session scope needs it.
 *
 * The schemas check types (a failure answers 400 with the field's words); the rules a schema cannot state (empty
 * content, lengths, tag normalisation, id lists, the session scope without a session) are
 * domain/memories/memory-rules.ts, also 400. An id no visible record has answers 500 (spec: missing memories).
 */
import { Type, type Static } from "typebox";
import {
  MEMORY_SCOPES,
  MEMORY_SOURCES,
  MEMORY_STATUSES,
  type MemoriesView as MemoriesViewType,
  type Memory as MemoryType,
  type MemoryContext as MemoryContextType,
} from "../memories/memory-types.ts";
import { MEMORY_CONTENT_MAX, MEMORY_IDS_MAX, MEMORY_TAGS_MAX } from "../memories/memory-rules.ts";
import { defineRoute } from "./http-route.ts";
import { failsWith, literals, type SameType } from "./schema-kit.ts";

const tags = ["memories"];

const NullableString = Type.Union([Type.String(), Type.Null()]);
const NullableNumber = Type.Union([Type.Number(), Type.Null()]);

export const MemoryContext = Type.Object(
  {
    cwd: Type.String({ description: "The canonical folder of the request." }),
    projectId: Type.String({ description: "A hash of the project root." }),
    projectName: Type.String(),
    projectRoot: Type.String({ description: "The nearest folder from cwd up that holds .git, else cwd." }),
    sessionAvailable: Type.Boolean({ description: "A sessionPath was given: the session scope is visible and writable." }),
    sessionFile: NullableString,
    sessionId: NullableString,
  },
  { title: "MemoryContext", additionalProperties: false },
);

export const Memory = Type.Object(
  {
    id: Type.String(),
    scope: literals(MEMORY_SCOPES),
    projectId: NullableString,
    projectRoot: NullableString,
    projectName: NullableString,
    sessionId: NullableString,
    sessionFile: NullableString,
    cwd: NullableString,
    contentMd: Type.String({ description: "Markdown." }),
    reasonMd: Type.String({ description: 'Why it was kept (Markdown); "" for a memory a person wrote.' }),
    tags: Type.Array(Type.String()),
    status: literals(MEMORY_STATUSES),
    source: literals(MEMORY_SOURCES),
    createdAt: Type.Number({ description: "Milliseconds since the epoch." }),
    updatedAt: Type.Number(),
    archivedAt: NullableNumber,
    lastAccessedAt: NullableNumber,
  },
  { title: "Memory", additionalProperties: false },
);

const StatusCounts = Type.Object({ active: Type.Number(), archived: Type.Number() }, { additionalProperties: false });

export const MemoriesView = Type.Object(
  {
    context: MemoryContext,
    memories: Type.Array(Memory, { description: "Visible active and archived records, newest update first." }),
    counts: Type.Object(
      {
        active: Type.Number(),
        archived: Type.Number(),
        scopes: Type.Object({ global: StatusCounts, project: StatusCounts, session: StatusCounts }, { additionalProperties: false }),
      },
      { additionalProperties: false },
    ),
  },
  { title: "MemoriesView", additionalProperties: false },
);

const _context: SameType<Static<typeof MemoryContext>, MemoryContextType> = true;
const _memory: SameType<Static<typeof Memory>, MemoryType> = true;
const _view: SameType<Static<typeof MemoriesView>, MemoriesViewType> = true;
void [_context, _memory, _view];

const OneMemory = Type.Object({ ok: Type.Literal(true), memory: Memory }, { title: "MemoryAnswer", additionalProperties: false });
const AllMemories = Type.Object(
  { ok: Type.Literal(true), memories: Type.Array(Memory, { description: "Every visible record after the change, newest update first." }) },
  { title: "MemoriesAnswer", additionalProperties: false },
);

const cwdField = failsWith(Type.String(), { type: "cwd must be a string", required: "cwd is required" });
const sessionPathField = Type.Optional(failsWith(NullableString, "sessionPath must be a string"));
const contentField = failsWith(Type.String(), { type: "contentMd must be a string", required: "contentMd is required" });
const tagsField = Type.Optional(failsWith(Type.Union([Type.Array(Type.String()), Type.Null()]), "tags must be an array of strings"));
const idsField = failsWith(Type.Array(Type.String()), { type: "ids must be an array of strings", required: "ids is required" });

const MemoryIdParams = Type.Object({ id: failsWith(Type.String({ minLength: 1 }), "id must be a non-empty string") });

export const listMemories = defineRoute("GET", "/api/pi/memories", {
  summary: "The memories a folder (and session) sees, with counts by scope and status",
  tags,
  querystring: Type.Object({
    cwd: failsWith(Type.String({ pattern: "\\S" }), "Missing query parameter: cwd"),
    sessionPath: Type.Optional(Type.String()),
  }),
  response: { 200: MemoriesView },
});

export const createMemory = defineRoute("POST", "/api/pi/memories", {
  summary: "Write a memory (source user, active)",
  description: `contentMd: Markdown, non-empty, at most ${MEMORY_CONTENT_MAX} characters. tags: at most ${MEMORY_TAGS_MAX}, normalised (trimmed, lower case, no leading #). The session scope needs sessionPath.`,
  tags,
  body: Type.Object({
    cwd: cwdField,
    sessionPath: sessionPathField,
    scope: failsWith(literals(MEMORY_SCOPES), "scope must be global, project or session"),
    contentMd: contentField,
    tags: tagsField,
  }),
  response: { 200: OneMemory },
});

export const updateMemory = defineRoute("PATCH", "/api/pi/memories/:id", {
  summary: "Change a visible memory's content (and tags); scope, source, reason and status stay",
  tags,
  params: MemoryIdParams,
  body: Type.Object({ cwd: cwdField, sessionPath: sessionPathField, contentMd: contentField, tags: tagsField }),
  response: { 200: OneMemory },
});

export const setMemoryStatus = defineRoute("POST", "/api/pi/memories/status", {
  summary: "Archive or restore visible memories in one transaction",
  description: `ids: 1 to ${MEMORY_IDS_MAX}; one id no visible record has changes nothing (500).`,
  tags,
  body: Type.Object({
    cwd: cwdField,
    sessionPath: sessionPathField,
    ids: idsField,
    status: failsWith(literals(MEMORY_STATUSES), "status must be active or archived"),
  }),
  response: { 200: AllMemories },
});

export const deleteMemories = defineRoute("DELETE", "/api/pi/memories", {
  summary: "Delete visible memories for good, in one transaction",
  description: `ids: 1 to ${MEMORY_IDS_MAX}; one id no visible record has deletes nothing (500).`,
  tags,
  body: Type.Object({ cwd: cwdField, sessionPath: sessionPathField, ids: idsField }),
  response: { 200: AllMemories },
});

export const deleteMemory = defineRoute("DELETE", "/api/pi/memories/:id", {
  summary: "Delete one visible memory for good",
  tags,
  params: MemoryIdParams,
  body: Type.Object({ cwd: cwdField, sessionPath: sessionPathField }),
  response: { 200: AllMemories },
});

export const MEMORY_ROUTES = [listMemories, createMemory, updateMemory, setMemoryStatus, deleteMemories, deleteMemory] as const;

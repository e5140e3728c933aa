/**
 * The session routes (spec "Session routes", "Export route", README "Restoring after reset-to-entry"):
 * reading, creating, renaming, deleting and selecting sessions, the runtime state preview, reset preview
 * and undo.
 */
import { Type } from "typebox";
import { Active, DirectoryListing, ResetPreview, SessionDetail, SessionSummary, Trashed } from "./http-common.ts";
import type { SessionDetail as SessionDetailType } from "../session-detail.ts";
import { defineRoute } from "./http-route.ts";
import { failsWith, SessionIdParams } from "./schema-kit.ts";

const tags = ["sessions"];

/** An optional string field of a body: `null` counts as absent (the client sends null for "none"). */
function optionalText(name: string) {
  return Type.Optional(failsWith(Type.Union([Type.String(), Type.Null()]), `${name} must be a string`));
}

export const listSessions = defineRoute("GET", "/api/pi/sessions", {
  summary: "Every session on disk and every open runtime's session, newest first",
  description: "Runtime-only sessions (open runtimes whose file is not in the persisted list) come first.",
  tags,
  response: { 200: Type.Object({ sessions: Type.Array(SessionSummary) }) },
});

const PathQuery = Type.Object({ path: Type.Optional(Type.String({ description: "A session file (~ expands)." })) });

export const sessionByPath = defineRoute("GET", "/api/pi/sessions/by-path", {
  summary: "A session's detail by its file",
  tags,
  querystring: PathQuery,
  response: { 200: SessionDetail },
});

export const sessionDetail = defineRoute("GET", "/api/pi/sessions/:id", {
  summary: "A session's detail: header fields and transcript",
  description: "With `path`, that file is read and must be the session `:id` (else 500, spec).",
  tags,
  params: SessionIdParams,
  querystring: PathQuery,
  response: { 200: SessionDetail },
});

export const exportSession = defineRoute("GET", "/api/pi/sessions/:id/export", {
  summary: "A session as one self-contained HTML document",
  tags,
  params: SessionIdParams,
  querystring: Type.Object({
    path: Type.Optional(Type.String()),
    disposition: Type.Optional(Type.String({ description: "`inline` for Content-Disposition: inline; anything else: attachment." })),
  }),
  response: { 200: Type.String({ contentMediaType: "text/html", description: "The HTML document." }) },
});

export const SessionKind = failsWith(Type.Union([Type.Literal("session"), Type.Literal("research")]), "kind must be session or research");

export const createSession = defineRoute("POST", "/api/pi/sessions", {
  summary: "Create a session in a folder (created if needed) and select it",
  tags,
  body: Type.Object({
    cwd: failsWith(Type.String({ pattern: "\\S" }), {
      type: "cwd must be a string",
      required: "cwd must be a non-empty string",
      default: "cwd must be a non-empty string",
    }),
    kind: Type.Optional(SessionKind),
  }),
  response: { 200: Type.Object({ active: Active, detail: SessionDetail }) },
});

export const renameSession = defineRoute("PATCH", "/api/pi/sessions/:id", {
  summary: "Rename a session (white space collapses; empty is refused)",
  tags,
  params: SessionIdParams,
  body: Type.Object({
    name: failsWith(Type.String({ pattern: "\\S" }), { type: "name must be a string", pattern: "name must not be empty" }),
  }),
  response: {
    200: Type.Object({
      ok: Type.Literal(true),
      detail: SessionDetail,
      session: Type.Unsafe<SessionDetailType["session"]>(Type.Object({}, { additionalProperties: true })),
    }),
  },
});

export const deleteSession = defineRoute("DELETE", "/api/pi/sessions/:id", {
  summary: "Move a session's file to the trash (its runtime is closed first)",
  tags,
  params: SessionIdParams,
  response: { 200: Type.Object({ ok: Type.Literal(true), trashed: Trashed }) },
});

export const selectSession = defineRoute("POST", "/api/pi/active-session", {
  summary: "Select a session (opening it): by id, else by file, else the newest of a folder",
  tags,
  body: Type.Object({ id: optionalText("id"), path: optionalText("path"), cwd: optionalText("cwd") }),
  response: { 200: Type.Object({ active: Active }) },
});

export const runtimeState = defineRoute("GET", "/api/pi/state", {
  summary: "The selected runtime's snapshot, or a throwaway preview of a folder",
  tags,
  querystring: Type.Object({
    cwd: Type.Optional(Type.String()),
    refresh: Type.Optional(Type.String({ description: "`1` or `true`: build a fresh preview." })),
  }),
  response: { 200: Type.Object({ active: Active }) },
});

export const resetPreview = defineRoute("GET", "/api/pi/sessions/:id/reset-preview", {
  summary: "What a reset to an entry would remove (reads the file only)",
  tags,
  params: SessionIdParams,
  querystring: Type.Object({ entryId: failsWith(Type.String({ minLength: 1 }), "entryId is required") }),
  response: { 200: ResetPreview },
});

export const resetUndo = defineRoute("POST", "/api/pi/sessions/:id/reset-undo", {
  summary: "Put a reset copy from leyline-trash back (the current file is copied to the trash first)",
  tags,
  params: SessionIdParams,
  body: Type.Object({ trashPath: failsWith(Type.String({ pattern: "\\S" }), "trashPath must be a non-empty string") }),
  response: { 200: Type.Object({ ok: Type.Literal(true), detail: SessionDetail, trashed: Trashed }) },
});

export const listDirectory = defineRoute("GET", "/api/pi/fs", {
  summary: "The subfolders of a folder (the start screen's folder picker)",
  tags: ["files"],
  querystring: Type.Object({
    path: Type.Optional(Type.String({ description: "Default `~/`; `./` and `../` need cwd." })),
    cwd: Type.Optional(Type.String()),
  }),
  response: { 200: DirectoryListing },
});

export const SESSION_ROUTES = [
  listSessions,
  sessionByPath,
  sessionDetail,
  exportSession,
  createSession,
  renameSession,
  deleteSession,
  selectSession,
  runtimeState,
  resetPreview,
  resetUndo,
  listDirectory,
] as const;

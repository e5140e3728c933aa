/**
 * The local file routes (spec "Local file routes"): the Files settings (the editor command and how it runs) and
 * the session file route (resolve, preview, open in an editor, show in the folder).
 *
 * Request bodies ignore extra fields (spec "Conventions": only Pi Settings rejects them); the answers are closed
 * objects, so the response check (LEYLINE_CHECK_RESPONSES) catches a stray field. A PUT of the settings that fails
 * answers 400 with the current settings and `error` (spec), not the bare envelope. The rules a schema cannot
 * state (the editor command's syntax and length, link parsing, approval) are domain/file-links/'s.
 */
import { Type, type Static, type TSchema } from "typebox";
import { EDITOR_MODES } from "../file-links/editor-command.ts";
import { IMAGE_MIME_TYPES } from "../file-links/file-preview-rules.ts";
import { defineRoute } from "./http-route.ts";
import { failsWith, literals, SessionIdParams } from "./schema-kit.ts";

export { EDITOR_MODES, IMAGE_MIME_TYPES };

const tags = ["files"];

function closedObject<P extends Record<string, TSchema>>(title: string, properties: P, description?: string) {
  return Type.Object(properties, { additionalProperties: false, title, ...(description !== undefined ? { description } : {}) });
}

// ---- Files settings ----------------------------------------------------------------------------------------

const fileSettingsFields = {
  /** The stored command ("" when none). */
  editor: Type.String(),
  /** The backend's EDITOR (then VISUAL) variable. */
  environmentEditor: Type.String(),
  /** The nonempty stored command, else the environment's. */
  effectiveEditor: Type.String(),
  editorMode: literals(EDITOR_MODES),
  terminalEditor: Type.Boolean(),
  revealLabel: Type.Union([Type.String(), Type.Null()]),
};

export const FileSettings = closedObject(
  "FileSettings",
  { ...fileSettingsFields, error: Type.Optional(Type.String()) },
  "The editor settings of the file links; error says why the effective command cannot run (or the settings file is unreadable).",
);
export type FileSettings = Static<typeof FileSettings>;

/** The 400 answer of PUT /api/pi/files/settings: the current settings and why the request was refused. */
export const FileSettingsRejected = closedObject("FileSettingsRejected", { ...fileSettingsFields, error: Type.String() });
export type FileSettingsRejected = Static<typeof FileSettingsRejected>;

export const FileSettingsUpdate = Type.Object({
  editor: Type.Optional(failsWith(Type.String(), "editor must be a string")),
  editorMode: Type.Optional(failsWith(literals(EDITOR_MODES), 'editorMode must be "auto", "desktop" or "terminal"')),
});
export type FileSettingsUpdate = Static<typeof FileSettingsUpdate>;

export const getFileSettings = defineRoute("GET", "/api/pi/files/settings", {
  summary: "The Files settings: the editor command, its mode, and whether reveal is available",
  tags,
  response: { 200: FileSettings },
});

export const saveFileSettings = defineRoute("PUT", "/api/pi/files/settings", {
  summary: "Change the editor command or mode (omitted fields keep their values; an empty command uses EDITOR)",
  tags,
  body: FileSettingsUpdate,
  response: { 200: FileSettings, 400: FileSettingsRejected },
});

// ---- session file route ------------------------------------------------------------------------------------

export const FILE_ACTIONS = ["resolve", "preview", "editor", "reveal"] as const;
export type FileAction = (typeof FILE_ACTIONS)[number];

export const FileActionBody = Type.Object({
  action: failsWith(literals(FILE_ACTIONS), 'action must be "resolve", "preview", "editor" or "reveal"'),
  href: failsWith(Type.String(), "href must be a string"),
  basePath: Type.Optional(failsWith(Type.String(), "basePath must be a string")),
  allowOutsideProject: Type.Optional(failsWith(Type.Boolean(), "allowOutsideProject must be a boolean")),
  approvedPath: Type.Optional(failsWith(Type.String(), "approvedPath must be a string")),
});
export type FileActionBody = Static<typeof FileActionBody>;

const descriptorFields = {
  /** The canonical path (every symlink resolved); the path the link names when it could not be resolved. */
  path: Type.String(),
  line: Type.Optional(Type.Integer({ minimum: 1 })),
  endLine: Type.Optional(Type.Integer({ minimum: 1 })),
  column: Type.Optional(Type.Integer({ minimum: 1 })),
  anchor: Type.Optional(Type.String()),
  outsideProject: Type.Boolean(),
  needsApproval: Type.Boolean(),
  editorAvailable: Type.Boolean(),
  terminalEditor: Type.Boolean(),
  revealLabel: Type.Union([Type.String(), Type.Null()]),
  error: Type.Optional(Type.String()),
};

export const FileDescriptor = closedObject(
  "FileDescriptor",
  descriptorFields,
  "A resolved file link; with error or needsApproval, nothing was done.",
);
export type FileDescriptor = Static<typeof FileDescriptor>;

export const TextFilePreview = closedObject("TextFilePreview", {
  ...descriptorFields,
  kind: Type.Literal("file"),
  content: Type.String(),
  /** A highlight.js language name ("plaintext" when unknown). */
  language: Type.String(),
  /** Bytes. */
  size: Type.Integer({ minimum: 0 }),
  modifiedAt: Type.String(),
  lineCount: Type.Integer({ minimum: 0 }),
});
export type TextFilePreview = Static<typeof TextFilePreview>;

export const ImageFilePreview = closedObject("ImageFilePreview", {
  ...descriptorFields,
  kind: Type.Literal("image"),
  /** Base64. */
  data: Type.String(),
  mimeType: literals(IMAGE_MIME_TYPES),
  size: Type.Integer({ minimum: 0 }),
  modifiedAt: Type.String(),
});
export type ImageFilePreview = Static<typeof ImageFilePreview>;

export const TerminalEditorOpen = closedObject(
  "TerminalEditorOpen",
  { ...descriptorFields, terminal: Type.Literal(true) },
  "Open WS /api/pi/terminal with editorPath=<path> (and editorLine) to edit the file.",
);
export type TerminalEditorOpen = Static<typeof TerminalEditorOpen>;

export const FileActionLaunched = closedObject("FileActionLaunched", { ...descriptorFields, ok: Type.Literal(true) });
export type FileActionLaunched = Static<typeof FileActionLaunched>;

export const FileActionResult = Type.Union([FileDescriptor, TextFilePreview, ImageFilePreview, TerminalEditorOpen, FileActionLaunched]);
export type FileActionResult = Static<typeof FileActionResult>;

export const sessionFileAction = defineRoute("POST", "/api/pi/sessions/:id/file", {
  summary: "Resolve a file link of the session, preview it, open it in the editor, or show it in its folder",
  description:
    "Resolution, approval, preview and launch failures answer 200 with FileDescriptor.error. Outside-project files answer needsApproval until the request repeats with allowOutsideProject and approvedPath.",
  tags,
  params: SessionIdParams,
  body: FileActionBody,
  response: { 200: FileActionResult },
});

// ---- @file completion -----------------------------------------------------------------------------------------

export const FileMentions = closedObject(
  "FileMentions",
  {
    files: Type.Array(Type.String(), { description: "Paths relative to the session's folder (`/` separated), best match first." }),
    truncated: Type.Boolean({ description: "The folder has more files than were searched (50,000)." }),
  },
  "The project files matching what was typed after `@` (domain/file-mentions/file-query.ts).",
);

export const fileMentions = defineRoute("GET", "/api/pi/sessions/:id/file-mentions", {
  summary: "Project files for `@file` completion in the composer (Git's files when the folder is a repository)",
  description: "Leyline's addition (issue 15). Reads only: no Git lock is taken, the index is never refreshed.",
  tags,
  params: SessionIdParams,
  querystring: Type.Object({
    q: Type.Optional(failsWith(Type.String({ maxLength: 200 }), "q must be at most 200 characters")),
    limit: Type.Optional(
      failsWith(Type.String({ pattern: "^(?:[1-9]|[1-9][0-9]|1[0-9][0-9]|200)$" }), "limit must be an integer from 1 to 200"),
    ),
  }),
  response: { 200: FileMentions },
});

export const FILE_ROUTES = [getFileSettings, saveFileSettings, sessionFileAction, fileMentions];

/**
 * The editor terminal's preparation (spec "Terminal WebSocket", editorPath): what the terminal socket spawns in
 * its PTY after a file action answered `{ terminal: true }`. The socket calls `prepareEditorTerminal` and sends
 * `error` (then closes) when it is not ok; otherwise it spawns `file` with `args` in `cwd` and reports `shell` and
 * `editorPath` in its `ready` message.
 *
 * Rules, checked in this order:
 * - the session must exist ("Session not found"; no runtime is opened, the selection is unchanged);
 * - editorPath must be an absolute path without control characters;
 * - a terminal editor must be configured and its program present ("No terminal editor is configured");
 * - editorPath is resolved again (realpath) and must still be itself: the canonical path the file action
 *   answered (else "The file changed location since it was approved; review it again."), a regular file (a
 *   symbolic link swapped in after that check is refused; the editor itself opens the path by name later, so a
 *   swap after this point cannot be ruled out: the preview, which reads the file itself, checks its identity);
 * - outside the project it needs allowOutsideProject (the approval the client got from the file action);
 * - editorLine, when given, is a positive integer.
 * The argv is the editor's own arguments, `+line` (or `path:line`) for the editors that take one, then the path.
 */
import fs from "node:fs";
import path from "node:path";
import { EDITOR_LINE_MESSAGE } from "../../domain/contract/terminal-socket.ts";
import { terminalEditorArgs } from "../../domain/file-links/editor-command.ts";
import { hasControlCharacter } from "../../domain/file-links/file-href.ts";
import { NO_TERMINAL_EDITOR } from "../../domain/file-links/file-settings.ts";
import { FILE_MOVED, isInsideProject } from "../../domain/file-links/project-scope.ts";
import { SESSION_NOT_FOUND } from "../runtime-host/runtime-host-error.ts";
import { findSessionCwd } from "../session-resolution/session-cwd.ts";
import type { EditorTerminalPlan, EditorTerminalRequest } from "../terminal/terminal-types.ts";
import type { FileLinkServices } from "./file-link-services.ts";
import { editorSetup } from "./file-settings-store.ts";
import { canonicalFolder, FILE_CHANGED, FILE_NOT_FOUND, NOT_A_REGULAR_FILE } from "./link-resolution.ts";

export const EDITOR_PATH_NOT_ABSOLUTE = "editorPath must be an absolute file path";
export const OUTSIDE_PROJECT_NEEDS_APPROVAL = "This file is outside the project: approve it first (allowOutsideProject=true)";

function refused(error: string): EditorTerminalPlan {
  return { ok: false, error };
}

export async function prepareEditorTerminal(services: FileLinkServices, request: EditorTerminalRequest): Promise<EditorTerminalPlan> {
  const cwd = await findSessionCwd(services, request.sessionId);
  if (cwd === null) return refused(SESSION_NOT_FOUND);
  const { editorPath } = request;
  if (!path.isAbsolute(editorPath) || hasControlCharacter(editorPath)) return refused(EDITOR_PATH_NOT_ABSOLUTE);
  if (request.editorLine !== undefined && !(Number.isSafeInteger(request.editorLine) && request.editorLine >= 1))
    return refused(EDITOR_LINE_MESSAGE);

  const setup = await editorSetup(services);
  if (!setup.terminal || setup.argv === null) return refused(NO_TERMINAL_EDITOR);
  if (setup.executable === null) return refused(setup.editorProblem ?? NO_TERMINAL_EDITOR);

  let canonical: string;
  let stat: fs.Stats;
  try {
    canonical = await fs.promises.realpath(editorPath);
    // lstat: a symbolic link here was swapped in after realpath (the editor would open where it points).
    stat = await fs.promises.lstat(canonical);
  } catch {
    return refused(FILE_NOT_FOUND);
  }
  if (canonical !== editorPath) return refused(FILE_MOVED);
  if (stat.isSymbolicLink()) return refused(FILE_CHANGED);
  if (!stat.isFile()) return refused(NOT_A_REGULAR_FILE);
  const root = await canonicalFolder(cwd);
  if (!isInsideProject(canonical, root) && !request.allowOutsideProject) return refused(OUTSIDE_PROJECT_NEEDS_APPROVAL);

  const args = terminalEditorArgs(setup.argv, canonical, request.editorLine);
  return { ok: true, file: setup.executable, args, cwd, shell: setup.executable, editorPath: canonical };
}

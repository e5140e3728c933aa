/**
 * POST /api/pi/sessions/:id/file (spec "Local file routes"): resolve a link of the session, then preview the
 * file, open it in the editor, or show it in its folder.
 *
 * Order of the rules:
 * 1. the session's cwd, without opening a runtime or changing the selection (unknown id → 404 "Session not found");
 * 2. the link resolved again on every request (link-resolution.ts) into the FileDescriptor, with the editor setup
 *    (editorAvailable, terminalEditor, revealLabel) and the approval (domain/file-links/project-scope.ts);
 * 3. with `error` or `needsApproval`, the descriptor is the answer and nothing is done; "resolve" always stops here;
 * 4. the action: the preview's content, `{ terminal: true }` for a terminal editor (the client opens WS
 *    /api/pi/terminal with editorPath, see editor-terminal.ts), `{ ok: true }` once a desktop editor or the
 *    folder view started. Launch failures are the descriptor's `error`, status 200. The preview reads exactly the
 *    file step 2 checked: its identity (internal, never answered) goes to the reader, which answers "The file
 *    changed while it was being opened; try again." for a file swapped in meanwhile (file-preview.ts).
 */
import path from "node:path";
import type { FileAction, FileActionResult, FileDescriptor } from "../../domain/contract/http-files.ts";
import { desktopEditorArgs } from "../../domain/file-links/editor-command.ts";
import { NO_EDITOR } from "../../domain/file-links/file-settings.ts";
import { approvalOf } from "../../domain/file-links/project-scope.ts";
import { sessionCwd } from "../session-resolution/session-cwd.ts";
import { readFilePreview } from "./file-preview.ts";
import { type FileLinkServices, homeOf } from "./file-link-services.ts";
import { editorSetup, type EditorSetup } from "./file-settings-store.ts";
import { launchDetached, launchFolder } from "./launchers.ts";
import { FILE_CHANGED, type FileIdentity, resolveFileLink } from "./link-resolution.ts";

export const REVEAL_UNAVAILABLE = "Showing files in their folder is not available on this server";

export interface FileActionRequest {
  readonly action: FileAction;
  readonly href: string;
  readonly basePath?: string;
  readonly allowOutsideProject?: boolean;
  readonly approvedPath?: string;
}

/** Test seams of `sessionFileAction` (never set by the route). */
export interface FileActionSeams {
  /** Runs after the link was resolved and approved, right before the preview opens the file. */
  readonly beforePreviewOpen?: () => Promise<void>;
}

/** The descriptor of a link as the server finds it now. */
export async function describeFileLink(
  services: FileLinkServices,
  cwd: string,
  request: Omit<FileActionRequest, "action">,
  setup: EditorSetup,
): Promise<FileDescriptor> {
  return (await inspectFileLink(services, cwd, request, setup)).descriptor;
}

/** The descriptor, and the identity of the file it checked (internal, for the reader). */
async function inspectFileLink(
  services: FileLinkServices,
  cwd: string,
  request: Omit<FileActionRequest, "action">,
  setup: EditorSetup,
): Promise<{ readonly descriptor: FileDescriptor; readonly identity: FileIdentity | undefined }> {
  const resolved = await resolveFileLink({
    cwd,
    href: request.href,
    home: homeOf(services.env),
    ...(request.basePath !== undefined ? { basePath: request.basePath } : {}),
  });
  const { error: resolveError, identity, ...found } = resolved;
  const approval =
    resolveError === undefined
      ? approvalOf({
          path: resolved.path,
          outsideProject: resolved.outsideProject,
          ...(request.allowOutsideProject !== undefined ? { allowOutsideProject: request.allowOutsideProject } : {}),
          ...(request.approvedPath !== undefined ? { approvedPath: request.approvedPath } : {}),
        })
      : { needsApproval: false };
  const error = resolveError ?? approval.error;
  const descriptor: FileDescriptor = {
    ...found,
    needsApproval: approval.needsApproval,
    editorAvailable: setup.editorProblem === null,
    terminalEditor: setup.terminal,
    revealLabel: setup.reveal?.label ?? null,
    ...(error !== undefined ? { error } : {}),
  };
  return { descriptor, identity };
}

function failedWith(descriptor: FileDescriptor, error: string): FileDescriptor {
  return { ...descriptor, error };
}

async function openInEditor(
  services: FileLinkServices,
  cwd: string,
  descriptor: FileDescriptor,
  setup: EditorSetup,
): Promise<FileActionResult> {
  if (setup.editorProblem !== null || setup.argv === null || setup.executable === null) {
    return failedWith(descriptor, setup.editorProblem ?? NO_EDITOR);
  }
  if (setup.terminal) return { ...descriptor, terminal: true };
  const args = desktopEditorArgs(setup.argv, descriptor.path, descriptor.line, descriptor.column);
  const launched = await launchDetached(setup.executable, args, {
    cwd: launchFolder(cwd, path.dirname(descriptor.path)),
    env: services.env,
  });
  if (!launched.ok) return failedWith(descriptor, `Could not start the editor: ${launched.error}`);
  return { ...descriptor, ok: true };
}

async function revealInFolder(services: FileLinkServices, descriptor: FileDescriptor, setup: EditorSetup): Promise<FileActionResult> {
  const reveal = setup.reveal;
  if (reveal === null) return failedWith(descriptor, REVEAL_UNAVAILABLE);
  const folder = path.dirname(descriptor.path);
  const launched = await launchDetached(reveal.program, reveal.argsFor(descriptor.path), { cwd: folder, env: services.env });
  if (!launched.ok) return failedWith(descriptor, `Could not show the folder: ${launched.error}`);
  return { ...descriptor, ok: true };
}

/** The route's answer (see the module comment). Throws `session_not_found` for an unknown session. */
export async function sessionFileAction(
  services: FileLinkServices,
  sessionId: string,
  request: FileActionRequest,
  seams: FileActionSeams = {},
): Promise<FileActionResult> {
  const cwd = await sessionCwd(services, sessionId);
  const setup = await editorSetup(services);
  const { descriptor, identity } = await inspectFileLink(services, cwd, request, setup);
  if (request.action === "resolve" || descriptor.error !== undefined || descriptor.needsApproval) return descriptor;
  switch (request.action) {
    case "preview": {
      if (identity === undefined) return failedWith(descriptor, FILE_CHANGED);
      await seams.beforePreviewOpen?.();
      const preview = await readFilePreview(descriptor.path, identity);
      if (preview.kind === "error") return failedWith(descriptor, preview.error);
      return { ...descriptor, ...preview };
    }
    case "editor":
      return openInEditor(services, cwd, descriptor, setup);
    case "reveal":
      return revealInFolder(services, descriptor, setup);
  }
}

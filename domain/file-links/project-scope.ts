/**
 * The project boundary of file links (spec "POST /api/pi/sessions/:id/file"): a file is outside the project
 * when its canonical path (every symlink resolved) is not inside the canonical session cwd. Acting on an outside
 * file needs the person's approval, given per request: `allowOutsideProject: true` with `approvedPath` equal to the
 * canonical path the server answered. The server resolves the link again on every request; when the path it
 * finds now differs from the approved one, the approval does not carry over (the file moved, or a link changed).
 *
 * Pure: the canonical paths come from the adapter.
 */

export const FILE_MOVED = "The file changed location since it was approved; review it again.";
export const APPROVED_PATH_MISSING = "allowOutsideProject needs approvedPath: the canonical path the server answered";

/** Whether `file` is `root` or inside it (both canonical, absolute, POSIX). */
export function isInsideProject(file: string, root: string): boolean {
  if (file === root) return true;
  const prefix = root.endsWith("/") ? root : `${root}/`;
  return file.startsWith(prefix);
}

export interface ApprovalInput {
  /** The canonical path found now. */
  readonly path: string;
  readonly outsideProject: boolean;
  readonly allowOutsideProject?: boolean;
  readonly approvedPath?: string;
}

/**
 * Whether the action still needs the person's approval, or why the approval given no longer holds. An approval
 * sent for a path that is not the one found now is an error even inside the project: the client acted on a
 * location that is no longer true.
 */
export function approvalOf(input: ApprovalInput): { readonly needsApproval: boolean; readonly error?: string } {
  if (input.allowOutsideProject !== true) return { needsApproval: input.outsideProject };
  if (input.approvedPath === undefined || input.approvedPath === "")
    return { needsApproval: input.outsideProject, error: APPROVED_PATH_MISSING };
  if (input.approvedPath !== input.path) return { needsApproval: input.outsideProject, error: FILE_MOVED };
  return { needsApproval: false };
}

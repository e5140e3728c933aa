/**
 * Typed functions for the local file routes (spec "Local file routes", domain/contract/http-files.ts): the Files
 * settings (the editor command and how it runs) and the session file route (resolve, preview, open in the editor,
 * show in the folder).
 *
 * The file route answers problems in the descriptor, not with an HTTP error: with `error` or `needsApproval` the
 * server did nothing. `fileActionWithApproval` keeps the order the spec asks for: the error first, then the
 * person's approval for a file outside the project, then the same action again with `allowOutsideProject` and
 * `approvedPath` (the canonical path the server returned).
 */
import type { RouteResponse } from "../../../domain/contract/http-route.ts";
import type {
  FileAction,
  FileActionBody,
  FileDescriptor,
  FileSettingsUpdate,
  getFileSettings as getFileSettingsRoute,
  ImageFilePreview,
  sessionFileAction,
  TextFilePreview,
} from "../../../domain/contract/http-files.ts";
import { http, request } from "./http.ts";

export type {
  FileAction,
  FileActionBody,
  FileDescriptor,
  FileSettings,
  FileSettingsUpdate,
  ImageFilePreview,
  TextFilePreview,
} from "../../../domain/contract/http-files.ts";

export type FileActionResult = RouteResponse<typeof sessionFileAction>;
type FileSettingsResponse = RouteResponse<typeof getFileSettingsRoute>;

/** A link to act on: as written, with the file it appeared in (relative links resolve beside it). */
export interface FileLinkRequest {
  readonly href: string;
  readonly basePath?: string;
}

/** The person's approval of a file outside the project: the canonical path they saw. */
export interface OutsideProjectApproval {
  readonly approvedPath: string;
}

const SETTINGS = "/api/pi/files/settings";

export function getFileSettings(): Promise<FileSettingsResponse> {
  return http.get<FileSettingsResponse>(SETTINGS);
}

/** Saves the editor settings; an invalid command is an ApiError(400) whose message is the server's reason. */
export function saveFileSettings(body: FileSettingsUpdate): Promise<FileSettingsResponse> {
  return request<FileSettingsResponse>("PUT", SETTINGS, { body });
}

/** The body of a file action on `link`, with the approval when there is one (empty fields left out). */
export function fileActionBody(action: FileAction, link: FileLinkRequest, approval: OutsideProjectApproval | null = null): FileActionBody {
  return {
    action,
    href: link.href,
    ...(link.basePath ? { basePath: link.basePath } : {}),
    ...(approval === null ? {} : { allowOutsideProject: true, approvedPath: approval.approvedPath }),
  };
}

/** One POST /api/pi/sessions/:id/file. */
export function fileAction(sessionId: string, body: FileActionBody, signal?: AbortSignal): Promise<FileActionResult> {
  return http.post<FileActionResult>(`/api/pi/sessions/${encodeURIComponent(sessionId)}/file`, body, signal ? { signal } : {});
}

/** How a file action ended: done (the answer may still carry `error`), or the person declined the approval. */
export type ApprovedActionOutcome =
  | { readonly status: "answered"; readonly result: FileActionResult; readonly approval: OutsideProjectApproval | null }
  | { readonly status: "declined"; readonly descriptor: FileDescriptor };

/**
 * A file action with the outside-project approval: asks `approve` only when the server needs it (and reported no
 * error), then repeats the action approved. An `approval` given up front (the person already approved this file)
 * is sent with the first request.
 */
export async function fileActionWithApproval(
  sessionId: string,
  action: FileAction,
  link: FileLinkRequest,
  approve: (descriptor: FileDescriptor) => Promise<boolean>,
  options: { approval?: OutsideProjectApproval | null; signal?: AbortSignal } = {},
): Promise<ApprovedActionOutcome> {
  const first = await fileAction(sessionId, fileActionBody(action, link, options.approval ?? null), options.signal);
  if (first.error !== undefined || !first.needsApproval) return { status: "answered", result: first, approval: options.approval ?? null };
  if (!(await approve(first))) return { status: "declined", descriptor: first };
  const approval = { approvedPath: first.path };
  const second = await fileAction(sessionId, fileActionBody(action, link, approval), options.signal);
  return { status: "answered", result: second, approval };
}

/** The preview in an answer, when it has one. */
export function previewOf(result: FileActionResult): TextFilePreview | ImageFilePreview | null {
  return "kind" in result ? result : null;
}

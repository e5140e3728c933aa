/**
 * `@file` completion for a session (GET /api/pi/sessions/:id/file-mentions): the session's folder (its open
 * runtime's, else its file's header), listed by project-files.ts and ranked by domain/file-mentions/file-query.ts.
 * A session whose folder is gone, or is not a folder, has no files; an unknown session is 404.
 */
import fs from "node:fs";
import { rankFiles } from "../../domain/file-mentions/file-query.ts";
import { sessionCwd, type SessionCwdServices } from "../session-resolution/session-cwd.ts";
import type { ProjectFileLister } from "./project-files.ts";

export interface FileMentionServices extends SessionCwdServices {
  readonly projectFiles: ProjectFileLister;
}

function isFolder(cwd: string): boolean {
  try {
    return fs.statSync(cwd).isDirectory();
  } catch {
    return false;
  }
}

export async function fileMentionsOf(
  services: FileMentionServices,
  sessionId: string,
  query: string,
  limit?: number,
): Promise<{ files: string[]; truncated: boolean }> {
  const cwd = await sessionCwd(services, sessionId);
  if (!isFolder(cwd)) return { files: [], truncated: false };
  const listing = await services.projectFiles.list(cwd);
  return { files: rankFiles(listing.files, query, limit), truncated: listing.truncated };
}

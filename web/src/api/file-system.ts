/**
 * The server's folder browser (api/fs.routes.ts): GET /api/pi/fs lists a folder's subfolders for the start
 * screen's folder picker.
 */
import type { DirectoryListing } from "./dto.ts";
import { http } from "./http.ts";

export type { DirectoryListing };

/** GET /api/pi/fs?path: the folder's subfolders (no path: the home folder). */
export function listDirectory(path?: string): Promise<DirectoryListing> {
  return http.get<DirectoryListing>("/api/pi/fs", { query: { path } });
}

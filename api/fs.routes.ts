/**
 * GET /api/pi/fs (spec "Filesystem route"): the directory browser of the start screen. The query's `path`
 * (default `~/`) and `cwd` resolve to a folder whose subfolders are listed (adapters/file-system/
 * directory-listing.ts, which says how paths resolve); a path that is missing, not a directory or unreadable
 * is a 500 with a message.
 */
import os from "node:os";
import type { FastifyPluginAsync } from "fastify";
import { listDirectory as listDirectoryRoute } from "../domain/contract/http-sessions.ts";
import { typed } from "./contract.ts";
import { listDirectory, resolveBrowsePath } from "../adapters/file-system/directory-listing.ts";

export interface FsRoutesOptions {
  /** The home directory (default `os.homedir()`). */
  readonly home?: string;
  /** Where other relative paths resolve from (default `process.cwd()`). */
  readonly processDir?: string;
}

export const fsRoutes: FastifyPluginAsync<FsRoutesOptions> = async (app, options) => {
  const home = options.home ?? os.homedir();
  const processDir = options.processDir ?? process.cwd();
  typed(app).get(listDirectoryRoute.url, { schema: listDirectoryRoute.schema }, async (request) => {
    const dir = resolveBrowsePath(request.query.path, request.query.cwd, home, processDir);
    return listDirectory(dir, home);
  });
};

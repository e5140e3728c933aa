/**
 * Local file routes (spec "Local file routes"), thin over adapters/file-links/: the Files settings
 * (GET/PUT /api/pi/files/settings) and the session file route (POST /api/pi/sessions/:id/file).
 *
 * A PUT that fails on the client's side (a body that is not an object or not JSON, a field of the wrong type, a
 * refused editor command) answers 400 with the current FileSettings fields and `error` (spec), through the
 * route's own error handler; anything else goes on to the app's handler. The file route answers resolution,
 * approval, preview and launch failures in the descriptor (200); an unknown session is 404.
 * GET /api/pi/sessions/:id/file-mentions?q= (Leyline's addition): the project files for `@file` completion; a
 * session whose folder is gone has none.
 */
import type { FastifyError, FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import { ERROR_STATUS } from "../domain/contract/error-codes.ts";
import {
  fileMentions,
  getFileSettings,
  saveFileSettings,
  sessionFileAction,
  type FileSettingsRejected,
} from "../domain/contract/http-files.ts";
import { fileMentionsOf } from "../adapters/file-mentions/file-mentions.ts";
import { createProjectFileLister } from "../adapters/file-mentions/project-files.ts";
import { ServiceError } from "../domain/service-error.ts";
import { sessionFileAction as runFileAction } from "../adapters/file-links/file-actions.ts";
import type { FileLinkServices } from "../adapters/file-links/file-link-services.ts";
import { fileSettingsOf, saveFileSettings as storeFileSettings } from "../adapters/file-links/file-settings-store.ts";
import type { ReadSide } from "../adapters/read-side/read-side.ts";
import type { RuntimeHost } from "../adapters/runtime-host/runtime-host.ts";
import { typed } from "./contract.ts";

export interface FilesRoutesOptions {
  readonly readSide: ReadSide;
  readonly host: RuntimeHost;
  /** Leyline's data dir (where the Files settings are kept). */
  readonly dataDir: string;
  /** The environment (EDITOR). */
  readonly env: NodeJS.ProcessEnv;
}

const CLIENT_BODY_ERRORS = new Set(["FST_ERR_CTP_INVALID_JSON_BODY", "FST_ERR_CTP_EMPTY_JSON_BODY"]);

/** Whether a failed PUT is the client's input (answered with the settings), not a server failure. */
function isInputError(error: FastifyError): boolean {
  if (error instanceof ServiceError) return error.code === "invalid_request" || error.code === "malformed_json";
  return CLIENT_BODY_ERRORS.has(error.code) || error.statusCode === 400;
}

export const filesRoutes: FastifyPluginAsync<FilesRoutesOptions> = async (app, options) => {
  const services: FileLinkServices = { readSide: options.readSide, host: options.host, dataDir: options.dataDir, env: options.env };
  const api = typed(app);

  api.get(getFileSettings.url, { schema: getFileSettings.schema }, async () => fileSettingsOf(services));

  const rejectWithSettings = async (error: FastifyError, _request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    // Not the client's input: the app's error handler answers it.
    if (!isInputError(error)) throw error;
    const body: FileSettingsRejected = { ...(await fileSettingsOf(services)), error: error.message };
    return reply.code(ERROR_STATUS.invalid_request).send(body);
  };

  api.put(saveFileSettings.url, { schema: saveFileSettings.schema, errorHandler: rejectWithSettings }, async (request) =>
    storeFileSettings(services, request.body),
  );

  api.post(sessionFileAction.url, { schema: sessionFileAction.schema }, async (request) =>
    runFileAction(services, request.params.id, request.body),
  );

  const mentions = { ...services, projectFiles: createProjectFileLister() };
  api.get(fileMentions.url, { schema: fileMentions.schema }, async (request) => {
    const { q, limit } = request.query;
    return fileMentionsOf(mentions, request.params.id, q ?? "", limit === undefined ? undefined : Number(limit));
  });
};

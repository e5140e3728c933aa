/**
 * Vision agent routes (spec "Vision agent routes"): the vision model and thinking per scope, stored in
 * leyline.sqlite (adapters/vision), and one vision agent run.
 * - GET /api/pi/vision/config?cwd&sessionPath → VisionConfig `{ context, overrides, model, modelSource, thinking,
 *   thinkingSource }`; missing cwd → 400;
 * - PUT /api/pi/vision/override `{ cwd, sessionPath?, scope, model?, thinking? }` → VisionConfig: replaces the
 *   scope's values (an omitted or empty field is cleared there; both empty deletes the scope). The model's
 *   availability, image support and thinking support are not checked;
 * - DELETE /api/pi/vision/override `{ cwd, sessionPath?, scope }` → VisionConfig (clearing an absent scope is
 *   no error);
 * - POST /api/pi/vision/resolve `{ cwd, sessionPath?, staticModel? }` → `{ model?, modelSource, thinking?,
 *   thinkingSource }` (`inherit` is returned unchanged);
 * - POST /api/pi/vision → the subagent route's result (adapters/vision/vision-runner.ts): waits for the child;
 *   closing the connection aborts it.
 *
 * Statuses: a missing or non-string cwd, a bad scope, model or thinking value, a bad image (not PNG, JPEG, GIF
 * or WebP, empty data), or the session scope without a sessionPath → 400. A failing vision run (no usable
 * model, a model without image input or authentication, the child's setup or run) → 500 `{ error }`, or 503
 * when the server is stopping (as POST /api/pi/subagent).
 */
import type { FastifyPluginAsync } from "fastify";
import {
  clearVisionOverride,
  getVisionConfig,
  resolveVisionRoute,
  runVisionRoute,
  setVisionOverride as setVisionOverrideRoute,
} from "../domain/contract/http-vision.ts";
import type { VisionScope } from "../domain/vision/vision-types.ts";
import type { ReadSide } from "../adapters/read-side/read-side.ts";
import { persistedFileOf } from "../adapters/read-side/session-lookup.ts";
import { errorText } from "../adapters/runtime-host/runtime-host-error.ts";
import type { RuntimeHost } from "../adapters/runtime-host/runtime-host.ts";
import { canonicalPath } from "../adapters/subagents/subagent-context.ts";
import { scopeIdOf } from "../adapters/subagents/subagent-overrides.ts";
import { deleteVisionOverride, setVisionOverride } from "../adapters/vision/vision-overrides.ts";
import { runVisionAgent, visionRequestOf } from "../adapters/vision/vision-runner.ts";
import {
  resolveVisionSettings,
  visionConfig,
  visionContext,
  visionResolutionDto,
  type VisionContextInput,
} from "../adapters/vision/vision-settings.ts";
import { PROMPT_BODY_LIMIT_BYTES } from "./body-limits.ts";
import { typed } from "./contract.ts";
import { HttpError } from "./http-error.ts";
import { SUBAGENT_STOPPING_ERROR } from "./subagent.routes.ts";

export interface VisionRoutesOptions {
  readonly readSide: ReadSide;
  readonly host: RuntimeHost;
}

/** A null string field is absent. */
function given(value: string | null | undefined): string | undefined {
  return value === null || value === undefined ? undefined : value;
}

export const VISION_STOPPING_ERROR = SUBAGENT_STOPPING_ERROR.replace("subagent", "vision agent");

export const visionRoutes: FastifyPluginAsync<VisionRoutesOptions> = async (app, options) => {
  const { readSide, host } = options;

  /** An open runtime's id for a session file pi has not written yet (else the file's header gives it). */
  const sessionIdOf = (sessionFile: string): string | null => {
    const runtime = host.openRuntimes().find((r) => r.sessionFile !== null && canonicalPath(r.sessionFile) === sessionFile);
    return runtime?.sessionId ?? null;
  };
  const contextInput = (cwd: string, sessionPath: string | undefined): VisionContextInput => ({
    cwd: cwd.trim(),
    sessionPath,
    sessionIdOf,
  });
  const database = async () => (await readSide.database()).db;

  /** The context and scope row of a PUT/DELETE; the session scope needs a session. */
  const target = (body: { cwd: string; sessionPath?: string | null; scope: VisionScope }) => {
    const sessionPath = given(body.sessionPath);
    const context = visionContext(contextInput(body.cwd, sessionPath));
    const scopeId = scopeIdOf(body.scope, context);
    if (scopeId === null) throw new HttpError("invalid_request", "sessionPath is required for the session scope");
    return { context, ref: { scope: body.scope, scopeId } };
  };

  const api = typed(app);

  api.get(getVisionConfig.url, { schema: getVisionConfig.schema }, async (request) => {
    const { cwd, sessionPath } = request.query;
    return visionConfig(await database(), visionContext(contextInput(cwd, sessionPath)));
  });

  api.put(setVisionOverrideRoute.url, { schema: setVisionOverrideRoute.schema }, async (request) => {
    const { context, ref } = target(request.body);
    const db = await database();
    await setVisionOverride(db, { ...ref, model: request.body.model ?? "", thinking: request.body.thinking ?? "" });
    return visionConfig(db, context);
  });

  api.delete(clearVisionOverride.url, { schema: clearVisionOverride.schema }, async (request) => {
    const { context, ref } = target(request.body);
    const db = await database();
    await deleteVisionOverride(db, ref);
    return visionConfig(db, context);
  });

  api.post(resolveVisionRoute.url, { schema: resolveVisionRoute.schema }, async (request) => {
    const { cwd, sessionPath, staticModel } = request.body;
    const settings = await resolveVisionSettings(await database(), {
      ...contextInput(cwd, given(sessionPath)),
      staticModel: given(staticModel),
    });
    return visionResolutionDto(settings);
  });

  // The image travels in the body: the prompt routes' limit (body-limits.ts), not Fastify's 1 MiB.
  api.post(runVisionRoute.url, { schema: runVisionRoute.schema, bodyLimit: PROMPT_BODY_LIMIT_BYTES }, async (request, reply) => {
    const parsed = visionRequestOf(request.body);
    // As POST /api/pi/subagent: the response closes early only when the connection goes away before the answer.
    const controller = new AbortController();
    const onClose = (): void => {
      if (!reply.raw.writableFinished) controller.abort();
    };
    reply.raw.on("close", onClose);
    try {
      return await runVisionAgent(host, parsed, {
        signal: controller.signal,
        findSessionFile: (sessionId) => persistedFileOf(readSide, sessionId),
        parentTraceId: (sessionId, toolCallId) => app.leyline.traces.anchorOf(sessionId, toolCallId),
        resolve: async (parentSessionPath) =>
          resolveVisionSettings(await database(), contextInput(parsed.cwd, parentSessionPath ?? undefined)),
      });
    } catch (error) {
      if (host.stopping) throw new HttpError("capacity_reached", VISION_STOPPING_ERROR);
      throw new HttpError("runtime_failed", errorText(error));
    } finally {
      reply.raw.off("close", onClose);
    }
  });
};

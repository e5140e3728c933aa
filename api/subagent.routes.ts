/**
 * POST /api/pi/subagent (spec "Internal bundled-extension execution route"): runs one task in a child
 * runtime and answers once it completed (adapters/subagents/subagent-runner.ts).
 *
 * Body: `task` (non-empty string), `cwd` (non-empty string), optional `parentSessionPath`, `parentSessionId`,
 * `_toolCallId`, `model` ("provider/id" or `{ provider, id }`), `thinkingLevel` (off … xhigh, or `max`, which
 * pi 0.74 does not have: it runs as xhigh), `tools` or `excludeTools` (string arrays, never both),
 * `systemPrompt`. Leyline additions for the marker: `agent` (string; `researcher` implies read-only bash) and
 * `readOnlyBash` (boolean). Empty optional strings count as absent; unknown fields are ignored.
 *
 * Model: the body's; else, for a named `agent`, its stored override or definition model
 * (`resolveSubagentSettings`, with the parent file as the session scope; none for the researcher); else the
 * parent's current model when the parent is open; else the child's default.
 *
 * Bad bodies → 400: the route's schema (domain/contract/http-subagents.ts) checks the types, then
 * adapters/subagents/subagent-request.ts the rules a schema cannot state (model, thinking level, tools or
 * excludeTools). Any failure of the child (setup, a run that fails, an assistant error, an unknown or
 * invalid parent, capacity) → 500 `{ error }`, except a run cut because the server is stopping → 503
 * `{ error: SUBAGENT_STOPPING_ERROR }` (the subagent extension then leaves the research thread running, so
 * that the next start of the session re-runs it). When the HTTP connection closes before the answer, the
 * child is interrupted and closed.
 */
import type { FastifyPluginAsync } from "fastify";
import { runSubagent as runSubagentRoute } from "../domain/contract/http-subagents.ts";
import type { ReadSide } from "../adapters/read-side/read-side.ts";
import { persistedFileOf } from "../adapters/read-side/session-lookup.ts";
import { errorText } from "../adapters/runtime-host/runtime-host-error.ts";
import type { RuntimeHost } from "../adapters/runtime-host/runtime-host.ts";
import { subagentRequestOf } from "../adapters/subagents/subagent-request.ts";
import { parseModelRef, runSubagent, type SubagentModelRef, type SubagentRequest } from "../adapters/subagents/subagent-runner.ts";
import { resolveSubagentSettings } from "../adapters/subagents/subagent-settings.ts";
import { PROMPT_BODY_LIMIT_BYTES } from "./body-limits.ts";
import { typed } from "./contract.ts";
import { HttpError } from "./http-error.ts";

export interface SubagentRoutesOptions {
  readonly readSide: ReadSide;
  readonly host: RuntimeHost;
  /** pi's agent dir (agent definitions for the model resolution). */
  readonly agentDir: string;
}

/** The error of a run cut by the server stopping (answered with 503). */
export const SUBAGENT_STOPPING_ERROR = "Leyline is stopping: the subagent run was interrupted";

export const subagentRoutes: FastifyPluginAsync<SubagentRoutesOptions> = async (app, options) => {
  const { readSide, host, agentDir } = options;

  /** The stored override or definition model of the request's agent, if any. */
  const resolveModel = async (context: {
    request: SubagentRequest;
    parentSessionPath: string | null;
  }): Promise<SubagentModelRef | undefined> => {
    const { request, parentSessionPath } = context;
    if (request.agent === undefined) return undefined;
    const db = (await readSide.ready()).database.db;
    const settings = await resolveSubagentSettings(db, {
      agentDir,
      cwd: request.cwd,
      ...(parentSessionPath !== null ? { sessionPath: parentSessionPath } : {}),
      agentName: request.agent,
    });
    return settings?.model !== undefined ? (parseModelRef(settings.model) ?? undefined) : undefined;
  };

  // A task may carry a chain's previous output: the prompt routes' limit (body-limits.ts), not Fastify's 1 MiB.
  typed(app).post(runSubagentRoute.url, { schema: runSubagentRoute.schema, bodyLimit: PROMPT_BODY_LIMIT_BYTES }, async (request, reply) => {
    const parsed = subagentRequestOf(request.body);
    // The request stream closes as soon as its body was read; the response closes early only when the
    // connection goes away before the answer.
    const controller = new AbortController();
    const onClose = (): void => {
      if (!reply.raw.writableFinished) controller.abort();
    };
    reply.raw.on("close", onClose);
    try {
      return await runSubagent(host, parsed, {
        signal: controller.signal,
        findSessionFile: (sessionId) => persistedFileOf(readSide, sessionId),
        parentTraceId: (sessionId, toolCallId) => app.leyline.traces.anchorOf(sessionId, toolCallId),
        resolveModel,
      });
    } catch (error) {
      if (host.stopping) throw new HttpError("capacity_reached", SUBAGENT_STOPPING_ERROR);
      throw new HttpError("runtime_failed", errorText(error));
    } finally {
      reply.raw.off("close", onClose);
    }
  });
};

/**
 * Subagent routes (spec "Subagent routes"): model overrides of agent definitions, stored in leyline.sqlite.
 * - GET /api/pi/subagents?cwd&sessionPath → SubagentsView (`{ context, agents }`); missing cwd → 400;
 * - PUT /api/pi/subagents/:agentKey/model `{ cwd, sessionPath?, scope, model }` → SubagentsView: sets the
 *   override at that scope (model trimmed, non-empty; the model's existence is not checked);
 * - DELETE /api/pi/subagents/:agentKey/model `{ cwd, sessionPath?, scope }` → SubagentsView: clears it
 *   (clearing an absent override is no error);
 * - POST /api/pi/subagents/resolve `{ agentKey, cwd, sessionPath?, staticModel?, staticThinking? }` →
 *   `{ model?, modelSource, thinking?, thinkingSource }` (adapters/subagents/subagent-settings.ts).
 *
 * Statuses: a missing or non-string cwd, a bad scope, an empty model, or the session scope without a
 * sessionPath → 400; an agent key no discovered agent has (from this cwd) → 404 `Subagent not found`. The
 * built-in researcher is not listed and takes no overrides (PUT/DELETE on its key → 404); resolve accepts its
 * key (`builtin:researcher`). Agent keys are URL-encoded path segments (up to the router's maxParamLength).
 */
import type { FastifyPluginAsync } from "fastify";
import { clearSubagentModel, listSubagents, resolveSubagent, setSubagentModel } from "../domain/contract/http-subagents.ts";
import type { SubagentScope } from "../domain/subagent/subagent-types.ts";
import {
  lookupSubagents,
  resolutionDto,
  resolveSubagentSettings,
  subagentsView,
  type SubagentLookupInput,
} from "../adapters/subagents/subagent-settings.ts";
import { canonicalPath } from "../adapters/subagents/subagent-context.ts";
import { deleteSubagentOverride, scopeIdOf, setSubagentOverride } from "../adapters/subagents/subagent-overrides.ts";
import type { ReadSide } from "../adapters/read-side/read-side.ts";
import { typed } from "./contract.ts";
import { HttpError } from "./http-error.ts";
import type { RuntimeHostView } from "./runtime-host.ts";

export interface SubagentsRoutesOptions {
  readonly readSide: ReadSide;
  readonly runtimeHost: RuntimeHostView;
  /** pi's agent dir (user agents in `<agentDir>/agents`). */
  readonly agentDir: string;
}

export const SUBAGENT_NOT_FOUND = "Subagent not found";

/** A blank or null string field is absent. */
function given(value: string | null | undefined): string | undefined {
  return value === null || value === undefined ? undefined : value;
}

/** The session scope needs a session (a rule its schema cannot state). */
function requireSessionFor(scope: SubagentScope, sessionPath: string | undefined): void {
  if (scope === "session" && (sessionPath === undefined || sessionPath.trim() === "")) {
    throw new HttpError("invalid_request", "sessionPath is required for the session scope");
  }
}

export const subagentsRoutes: FastifyPluginAsync<SubagentsRoutesOptions> = async (app, options) => {
  const { readSide, runtimeHost, agentDir } = options;

  /** An open runtime's id for a session file pi has not written yet (else the file's header gives it). */
  const sessionIdOf = (sessionFile: string): string | null => {
    const runtime = runtimeHost.openRuntimes().find((r) => r.sessionFile !== null && canonicalPath(r.sessionFile) === sessionFile);
    return runtime?.sessionId ?? null;
  };
  const lookupInput = (cwd: string, sessionPath: string | undefined): SubagentLookupInput => ({
    agentDir,
    cwd,
    sessionPath,
    sessionIdOf,
  });
  const database = async () => (await readSide.ready()).database.db;

  const api = typed(app);

  api.get(listSubagents.url, { schema: listSubagents.schema }, async (request) => {
    const { cwd, sessionPath } = request.query;
    const db = await database();
    return subagentsView(db, lookupSubagents(lookupInput(cwd, sessionPath)));
  });

  /** Finds the agent of a PUT/DELETE (its body checked by the route's schema); returns what the write needs. */
  const prepareWrite = (agentKey: string, body: { cwd: string; sessionPath?: string | null; scope: SubagentScope }, model: string) => {
    const cwd = body.cwd.trim();
    const sessionPath = given(body.sessionPath);
    const scope = body.scope;
    requireSessionFor(scope, sessionPath);
    const lookup = lookupSubagents(lookupInput(cwd, sessionPath));
    const agent = lookup.discovery.agents.find((a) => a.key === agentKey);
    if (agent === undefined) throw new HttpError("subagent_not_found", SUBAGENT_NOT_FOUND);
    const scopeId = scopeIdOf(scope, lookup.context);
    if (scopeId === null) throw new HttpError("invalid_request", "sessionPath is required for the session scope");
    return { lookup, ref: { agentKey, scope, scopeId }, model: model.trim() };
  };

  api.put(setSubagentModel.url, { schema: setSubagentModel.schema }, async (request) => {
    const { lookup, ref, model } = prepareWrite(request.params.agentKey, request.body, request.body.model);
    const db = await database();
    await setSubagentOverride(db, { ...ref, model });
    return subagentsView(db, lookup);
  });

  api.delete(clearSubagentModel.url, { schema: clearSubagentModel.schema }, async (request) => {
    const { lookup, ref } = prepareWrite(request.params.agentKey, request.body, "");
    const db = await database();
    await deleteSubagentOverride(db, ref);
    return subagentsView(db, lookup);
  });

  api.post(resolveSubagent.url, { schema: resolveSubagent.schema }, async (request) => {
    const body = request.body;
    const agentKey = given(body.agentKey) ?? "";
    if (agentKey === "") throw new HttpError("invalid_request", "agentKey must be a non-empty string");
    const cwd = body.cwd.trim();
    const sessionPath = given(body.sessionPath);
    const staticModel = given(body.staticModel);
    const staticThinking = given(body.staticThinking);
    const db = await database();
    const settings = await resolveSubagentSettings(db, { ...lookupInput(cwd, sessionPath), agentKey, staticModel, staticThinking });
    if (settings === null) throw new HttpError("subagent_not_found", SUBAGENT_NOT_FOUND);
    return resolutionDto(settings);
  });
};

/**
 * POST /api/pi/subagent's body → the runner's request (subagent-runner.ts). The route's schema
 * (domain/contract/http-subagents.ts) has already checked every field's type; these are the rules it cannot
 * state, each a `invalid_request` ServiceError (400) with the spec's words:
 * - `tools` and `excludeTools` never both;
 * - `model` is "provider/id" (the first slash splits; ids may contain more) or `{ provider, id }`;
 * - `thinkingLevel` is one of pi's levels or `max`, which pi 0.74 does not have: it runs as xhigh;
 * - empty optional strings count as absent; `_toolCallId` becomes `toolCallId`; unknown fields are ignored.
 * Pure (it stays beside the runner because pi's thinking levels and the request type live in adapters/).
 */
import type { RouteBody } from "../../domain/contract/http-route.ts";
import type { runSubagent } from "../../domain/contract/http-subagents.ts";
import { ServiceError } from "../../domain/service-error.ts";
import { THINKING_LEVELS, type ThinkingLevelName } from "../runtime-protocol/runtime-protocol.ts";
import { parseModelRef, type SubagentModelRef, type SubagentRequest } from "./subagent-runner.ts";

/** The body as the route's schema let it through. */
export type SubagentBody = RouteBody<typeof runSubagent>;

/** The spec's thinking levels; `max` maps to pi's highest, `xhigh`. */
export const SUBAGENT_THINKING_LEVELS = [...THINKING_LEVELS, "max"] as const;

const MODEL_MESSAGE = 'model must be "provider/id" or { provider, id }';

function invalid(message: string): ServiceError {
  return new ServiceError("invalid_request", message);
}

/** An optional string: null and "" are absent. */
function present(value: string | null | undefined): string | undefined {
  return value === undefined || value === null || value === "" ? undefined : value;
}

function modelOf(value: SubagentBody["model"]): SubagentModelRef | undefined {
  if (value === undefined || value === null || value === "") return undefined;
  if (typeof value === "string") {
    const ref = parseModelRef(value.trim());
    if (ref === null) throw invalid(MODEL_MESSAGE);
    return ref;
  }
  return { provider: value.provider, id: value.id };
}

function thinkingLevelOf(value: SubagentBody["thinkingLevel"]): ThinkingLevelName | undefined {
  if (value === undefined || value === null || value === "") return undefined;
  if (!(SUBAGENT_THINKING_LEVELS as readonly string[]).includes(value)) {
    throw invalid(`thinkingLevel must be one of ${SUBAGENT_THINKING_LEVELS.join(", ")}`);
  }
  return value === "max" ? "xhigh" : (value as ThinkingLevelName);
}

/** The runner's request for a body; throws an `invalid_request` ServiceError (400) for a rule it breaks. */
export function subagentRequestOf(body: SubagentBody): SubagentRequest {
  const { task, cwd } = body;
  const tools = body.tools ?? undefined;
  const excludeTools = body.excludeTools ?? undefined;
  if (tools !== undefined && excludeTools !== undefined) throw invalid("tools and excludeTools cannot be combined");
  const model = modelOf(body.model);
  const thinkingLevel = thinkingLevelOf(body.thinkingLevel);
  const optional = {
    parentSessionPath: present(body.parentSessionPath),
    parentSessionId: present(body.parentSessionId),
    toolCallId: present(body._toolCallId),
    systemPrompt: present(body.systemPrompt),
    agent: present(body.agent),
  };
  const request: SubagentRequest = { task, cwd };
  for (const [key, value] of Object.entries(optional)) {
    if (value !== undefined) request[key as keyof typeof optional] = value;
  }
  if (model !== undefined) request.model = model;
  if (thinkingLevel !== undefined) request.thinkingLevel = thinkingLevel;
  if (tools !== undefined) request.tools = tools;
  if (excludeTools !== undefined) request.excludeTools = excludeTools;
  if (typeof body.readOnlyBash === "boolean") request.readOnlyBash = body.readOnlyBash;
  return request;
}

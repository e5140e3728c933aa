/** The subagent routes (spec "Subagent routes"): one child run, and the model overrides of agent definitions. */
import { Type } from "typebox";
import {
  SUBAGENT_SCOPES,
  type SubagentResolution as SubagentResolutionType,
  type SubagentsView as SubagentsViewType,
} from "../subagent/subagent-types.ts";
import { defineRoute } from "./http-route.ts";
import { domainObject, failsWith, literals, optionalString, requiredString } from "./schema-kit.ts";

const tags = ["subagents"];

function requiredText(name: string) {
  return failsWith(Type.String({ pattern: "\\S" }), `${name} must be a non-empty string`);
}
function optionalStrings(name: string) {
  return Type.Optional(failsWith(Type.Union([Type.Array(Type.String()), Type.Null()]), `${name} must be an array of strings`));
}

const MODEL_MESSAGE = 'model must be "provider/id" or { provider, id }';

export const runSubagent = defineRoute("POST", "/api/pi/subagent", {
  summary: "Run one child agent to completion and answer its result",
  description: "The request waits for the child run; closing the connection aborts it.",
  tags,
  body: Type.Object({
    task: requiredText("task"),
    cwd: requiredText("cwd"),
    tools: optionalStrings("tools"),
    excludeTools: optionalStrings("excludeTools"),
    readOnlyBash: Type.Optional(failsWith(Type.Union([Type.Boolean(), Type.Null()]), "readOnlyBash must be a boolean")),
    model: Type.Optional(
      failsWith(
        Type.Union([
          Type.String(),
          Type.Null(),
          Type.Object({ provider: Type.String({ minLength: 1 }), id: Type.String({ minLength: 1 }) }),
        ]),
        MODEL_MESSAGE,
      ),
    ),
    thinkingLevel: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    parentSessionPath: optionalString("parentSessionPath"),
    parentSessionId: optionalString("parentSessionId"),
    _toolCallId: optionalString("_toolCallId"),
    systemPrompt: optionalString("systemPrompt"),
    agent: optionalString("agent"),
  }),
  response: {
    200: Type.Object({}, { additionalProperties: true, description: "The child run's result (spec SubagentResult)." }),
  },
});

export const SubagentsView = domainObject<SubagentsViewType>(
  "SubagentsView",
  {
    context: Type.Object({}, { additionalProperties: true }),
    agents: Type.Array(Type.Object({ key: Type.String() }, { additionalProperties: true })),
  },
  "The agents a folder (and session) sees, with their model overrides per scope (domain/subagent/subagent-types.ts).",
);

const AgentKeyParams = Type.Object({ agentKey: failsWith(Type.String({ minLength: 1 }), "agentKey must be a non-empty string") });

export const listSubagents = defineRoute("GET", "/api/pi/subagents", {
  summary: "The agents a folder (and session) sees, with their model overrides",
  tags,
  querystring: Type.Object({
    cwd: failsWith(Type.String({ pattern: "\\S" }), "Missing query parameter: cwd"),
    sessionPath: Type.Optional(Type.String()),
  }),
  response: { 200: SubagentsView },
});

const SCOPE_MESSAGE = "scope must be global, project or session";
const OverrideTarget = {
  cwd: requiredString("cwd"),
  sessionPath: optionalString("sessionPath"),
  scope: failsWith(literals(SUBAGENT_SCOPES), SCOPE_MESSAGE),
};

export const setSubagentModel = defineRoute("PUT", "/api/pi/subagents/:agentKey/model", {
  summary: "Set an agent's model override at a scope",
  tags,
  params: AgentKeyParams,
  body: Type.Object({ ...OverrideTarget, model: requiredString("model") }),
  response: { 200: SubagentsView },
});

export const clearSubagentModel = defineRoute("DELETE", "/api/pi/subagents/:agentKey/model", {
  summary: "Clear an agent's model override at a scope",
  tags,
  params: AgentKeyParams,
  body: Type.Object(OverrideTarget),
  response: { 200: SubagentsView },
});

export const SubagentResolution = Type.Object({
  model: Type.Optional(Type.String()),
  modelSource: Type.String(),
  thinking: Type.Optional(Type.String()),
  thinkingSource: Type.Literal("definition"),
});

export const resolveSubagent = defineRoute("POST", "/api/pi/subagents/resolve", {
  summary: "The model and thinking level an agent would run with",
  tags,
  body: Type.Object({
    agentKey: Type.Optional(failsWith(Type.Union([Type.String(), Type.Null()]), "agentKey must be a string")),
    cwd: requiredString("cwd"),
    sessionPath: optionalString("sessionPath"),
    staticModel: optionalString("staticModel"),
    staticThinking: optionalString("staticThinking"),
  }),
  response: { 200: Type.Unsafe<SubagentResolutionType>(SubagentResolution) },
});

export const SUBAGENT_ROUTES = [runSubagent, listSubagents, setSubagentModel, clearSubagentModel, resolveSubagent] as const;

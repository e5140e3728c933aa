/**
 * The vision agent routes (spec "Vision agent routes"): the vision model and thinking per scope (global,
 * project, session) in leyline.sqlite, their resolution for the bundled extension, and one vision agent run
 * (POST /api/pi/vision, answered like POST /api/pi/subagent).
 */
import { Type } from "typebox";
import { SUBAGENT_SCOPES } from "../subagent/subagent-types.ts";
import { PROMPT_IMAGE_MIME_TYPES } from "../runtime/runtime-types.ts";
import {
  VISION_THINKING_VALUES,
  type VisionConfig as VisionConfigType,
  type VisionResolution as VisionResolutionType,
} from "../vision/vision-types.ts";
import { defineRoute } from "./http-route.ts";
import { domainObject, failsWith, literals, optionalString, requiredString } from "./schema-kit.ts";

const tags = ["vision"];

const SCOPE_MESSAGE = "scope must be global, project or session";
const THINKING_MESSAGE = `thinking must be one of ${VISION_THINKING_VALUES.join(", ")} or empty`;
/** The levels the execution route takes (no `inherit`: the extension resolves it to the parent's level). */
export const VISION_RUN_THINKING_LEVELS = ["off", "minimal", "low", "medium", "high", "xhigh", "max"] as const;

export const VisionConfig = domainObject<VisionConfigType>(
  "VisionConfig",
  {
    context: Type.Object({}, { additionalProperties: true }),
    overrides: Type.Object({}, { additionalProperties: true }),
    model: Type.String(),
    modelSource: literals(["session", "project", "global", "none"]),
    thinking: Type.String(),
    thinkingSource: literals(["session", "project", "global", "none"]),
  },
  "The vision overrides of a folder (and session) per scope and the resolved model and thinking (domain/vision/vision-types.ts).",
);

export const getVisionConfig = defineRoute("GET", "/api/pi/vision/config", {
  summary: "The vision model and thinking per scope, and the values that apply",
  tags,
  querystring: Type.Object({
    cwd: failsWith(Type.String({ pattern: "\\S" }), "Missing query parameter: cwd"),
    sessionPath: Type.Optional(Type.String()),
  }),
  response: { 200: VisionConfig },
});

const OverrideTarget = {
  cwd: requiredString("cwd"),
  sessionPath: optionalString("sessionPath"),
  scope: failsWith(literals(SUBAGENT_SCOPES), SCOPE_MESSAGE),
};

export const setVisionOverride = defineRoute("PUT", "/api/pi/vision/override", {
  summary: "Set the vision model and thinking at a scope",
  description: "An omitted or empty field clears that field at this scope; both empty deletes the scope's row.",
  tags,
  body: Type.Object({
    ...OverrideTarget,
    model: optionalString("model"),
    thinking: Type.Optional(failsWith(Type.Union([literals(VISION_THINKING_VALUES), Type.Literal(""), Type.Null()]), THINKING_MESSAGE)),
  }),
  response: { 200: VisionConfig },
});

export const clearVisionOverride = defineRoute("DELETE", "/api/pi/vision/override", {
  summary: "Clear the vision model and thinking at a scope",
  tags,
  body: Type.Object(OverrideTarget),
  response: { 200: VisionConfig },
});

export const VisionResolution = Type.Object({
  model: Type.Optional(Type.String()),
  modelSource: literals(["session", "project", "global", "static"]),
  thinking: Type.Optional(Type.String()),
  thinkingSource: literals(["session", "project", "global", "none"]),
});

export const resolveVisionRoute = defineRoute("POST", "/api/pi/vision/resolve", {
  summary: "The vision model and thinking the vision agent would run with",
  tags,
  body: Type.Object({
    cwd: requiredString("cwd"),
    sessionPath: optionalString("sessionPath"),
    staticModel: optionalString("staticModel"),
  }),
  response: { 200: Type.Unsafe<VisionResolutionType>(VisionResolution) },
});

const IMAGE_MESSAGE = 'image must be { type: "image", data: string, mimeType: string }';
const MODEL_MESSAGE = 'model must be "provider/id" or { provider, id }';

export const runVisionRoute = defineRoute("POST", "/api/pi/vision", {
  summary: "Run the vision agent once on an image and answer its result",
  description: "A hidden child session with no tools; the request waits for it, and closing the connection aborts it.",
  tags,
  body: Type.Object({
    question: optionalString("question"),
    cwd: requiredString("cwd"),
    parentSessionPath: optionalString("parentSessionPath"),
    parentSessionId: optionalString("parentSessionId"),
    _toolCallId: optionalString("_toolCallId"),
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
    thinking: Type.Optional(
      failsWith(
        Type.Union([literals(VISION_RUN_THINKING_LEVELS), Type.Literal(""), Type.Null()]),
        `thinking must be one of ${VISION_RUN_THINKING_LEVELS.join(", ")}`,
      ),
    ),
    image: failsWith(
      Type.Object({
        type: Type.Literal("image"),
        data: Type.String({ minLength: 1 }),
        mimeType: failsWith(literals(PROMPT_IMAGE_MIME_TYPES), "image must be PNG, JPEG, GIF or WebP"),
      }),
      IMAGE_MESSAGE,
    ),
  }),
  response: {
    200: Type.Object({}, { additionalProperties: true, description: "The child run's result (as POST /api/pi/subagent answers)." }),
  },
});

export const VISION_ROUTES = [getVisionConfig, setVisionOverride, clearVisionOverride, resolveVisionRoute, runVisionRoute] as const;

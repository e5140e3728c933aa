/**
 * One vision agent run (spec "POST /api/pi/vision"): the subagent runner (adapters/subagents/subagent-runner.ts)
 * with a hidden child session that has an empty tool allowlist, the vision system prompt, the resolved vision
 * model and thinking, and the image sent with the question. The answer is the subagent route's.
 *
 * Model: the request's, else the stored vision model (session scope = the parent's file, then project, then
 * global), else the parent's current model. Thinking: the request's, else the stored value (`inherit` and none
 * leave the parent's current level), `max` runs as pi's highest, xhigh. The opened child's model must take
 * images and have provider authentication (it is among the runtime's available models); otherwise the run
 * fails before anything is prompted. Every failure throws SubagentRunError (the route answers 500).
 */
import type { RouteBody } from "../../domain/contract/http-route.ts";
import type { runVisionRoute } from "../../domain/contract/http-vision.ts";
import type { Active, PromptImage } from "../../domain/runtime/runtime-types.ts";
import { ServiceError } from "../../domain/service-error.ts";
import type { VisionResolution } from "../../domain/vision/vision-types.ts";
import type { RuntimeHost } from "../runtime-host/runtime-host.ts";
import { THINKING_LEVELS, type ThinkingLevelName } from "../runtime-protocol/runtime-protocol.ts";
import {
  parseModelRef,
  runSubagent,
  SubagentRunError,
  type SubagentModelRef,
  type SubagentRequest,
  type SubagentResult,
  type SubagentRunOptions,
} from "../subagents/subagent-runner.ts";

/** The agent name the child's `leyline-subagent` marker records. */
export const VISION_AGENT_NAME = "vision";

export const DEFAULT_VISION_QUESTION = "Describe this image in detail. Quote any visible text exactly.";

export const VISION_SYSTEM_PROMPT = [
  "You are Leyline's vision agent. Another model, which cannot see images, asks you about the attached image.",
  "Answer its question from what the image shows: be precise and complete, quote visible text exactly, give",
  "numbers, positions and colours where they matter, and say plainly when something cannot be made out.",
  "You have no tools; answer in text only.",
].join(" ");

/** A checked request (the route's schema and `visionRequestOf` made it). */
export interface VisionRunRequest {
  question?: string;
  cwd: string;
  parentSessionPath?: string;
  parentSessionId?: string;
  toolCallId?: string;
  model?: SubagentModelRef;
  thinkingLevel?: ThinkingLevelName;
  image: PromptImage;
}

/** An optional string: null and "" (or blank) are absent. */
function present(value: string | null | undefined): string | undefined {
  return value === undefined || value === null || value.trim() === "" ? undefined : value;
}

/**
 * POST /api/pi/vision's body (its types checked by the route's schema) → the runner's request; a model that is
 * not "provider/id" throws an `invalid_request` ServiceError (400).
 */
export function visionRequestOf(body: RouteBody<typeof runVisionRoute>): VisionRunRequest {
  let model: SubagentModelRef | undefined;
  if (typeof body.model === "string" && body.model.trim() !== "") {
    const parsed = parseModelRef(body.model.trim());
    if (parsed === null) throw new ServiceError("invalid_request", 'model must be "provider/id" or { provider, id }');
    model = parsed;
  } else if (typeof body.model === "object" && body.model !== null) {
    model = { provider: body.model.provider, id: body.model.id };
  }
  const thinkingLevel = childThinkingLevel(body.thinking ?? undefined);
  const optional = {
    question: present(body.question),
    parentSessionPath: present(body.parentSessionPath),
    parentSessionId: present(body.parentSessionId),
    toolCallId: present(body._toolCallId),
  };
  const request: VisionRunRequest = {
    cwd: body.cwd.trim(),
    image: { type: "image", data: body.image.data, mimeType: body.image.mimeType },
  };
  for (const [key, value] of Object.entries(optional)) {
    if (value !== undefined) request[key as keyof typeof optional] = value;
  }
  if (model !== undefined) request.model = model;
  if (thinkingLevel !== undefined) request.thinkingLevel = thinkingLevel;
  return request;
}

export interface VisionRunOptions {
  signal?: AbortSignal;
  /** The persisted file of a session id (the session index), for a parent given by id only. */
  findSessionFile?: (sessionId: string) => Promise<string | null>;
  /** The stored vision settings with the parent's file as the session scope (null: no parent file). */
  resolve: (parentSessionPath: string | null) => Promise<VisionResolution>;
  /** The parent's trace that made the tool call, kept in the child's marker. */
  parentTraceId?: SubagentRunOptions["parentTraceId"];
}

/** A stored thinking value as the child's level: `inherit`, none or unknown → undefined (the parent's level). */
export function childThinkingLevel(value: string | undefined): ThinkingLevelName | undefined {
  if (value === "max") return "xhigh";
  return (THINKING_LEVELS as readonly string[]).includes(value ?? "") ? (value as ThinkingLevelName) : undefined;
}

/** Why the opened child cannot run as the vision agent, or null. */
export function visionChildProblem(active: Active): string | null {
  const model = active.state.model;
  if (model === undefined) return "The vision agent has no model: choose a vision model in Settings → Vision";
  const name = `${model.provider}/${model.id}`;
  if (!model.supportsImages) return `Vision model ${name} does not support image input`;
  if (!active.state.availableModels.some((candidate) => candidate.provider === model.provider && candidate.id === model.id)) {
    return `Vision model ${name} has no provider authentication`;
  }
  return null;
}

async function parentFile(host: RuntimeHost, request: VisionRunRequest, options: VisionRunOptions): Promise<string | null> {
  if (request.parentSessionPath !== undefined) return request.parentSessionPath;
  if (request.parentSessionId === undefined) return null;
  return host.get(request.parentSessionId)?.sessionFile ?? (await options.findSessionFile?.(request.parentSessionId)) ?? null;
}

export async function runVisionAgent(host: RuntimeHost, request: VisionRunRequest, options: VisionRunOptions): Promise<SubagentResult> {
  const stored = await options.resolve(await parentFile(host, request, options));
  let model = request.model;
  if (model === undefined && stored.model !== undefined) {
    const parsed = parseModelRef(stored.model);
    if (parsed === null) throw new SubagentRunError(`Invalid vision model "${stored.model}": expected provider/id`);
    model = parsed;
  }
  const thinkingLevel = request.thinkingLevel ?? childThinkingLevel(stored.thinking);
  const question = request.question?.trim() ?? "";
  const child: SubagentRequest = {
    task: question === "" ? DEFAULT_VISION_QUESTION : question,
    cwd: request.cwd,
    tools: [],
    systemPrompt: VISION_SYSTEM_PROMPT,
    agent: VISION_AGENT_NAME,
    readOnlyBash: false,
    images: [{ type: "image", data: request.image.data, mimeType: request.image.mimeType }],
    ...(request.parentSessionPath !== undefined ? { parentSessionPath: request.parentSessionPath } : {}),
    ...(request.parentSessionId !== undefined ? { parentSessionId: request.parentSessionId } : {}),
    ...(request.toolCallId !== undefined ? { toolCallId: request.toolCallId } : {}),
    ...(model !== undefined ? { model } : {}),
    ...(thinkingLevel !== undefined ? { thinkingLevel } : {}),
  };
  return runSubagent(host, child, {
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.findSessionFile ? { findSessionFile: options.findSessionFile } : {}),
    ...(options.parentTraceId ? { parentTraceId: options.parentTraceId } : {}),
    checkChild: visionChildProblem,
  });
}

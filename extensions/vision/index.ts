/**
 * Leyline's bundled vision extension (spec "Vision agent routes", "Prompt": image preparation):
 * - the `vision_agent` tool: `{ path, question? }` reads an image file (PNG, JPEG, GIF, WebP; a relative path is
 *   taken from the session's working folder, `ctx.cwd`; like pi's own read tool, any readable image path is
 *   accepted, up to 20 MiB) and asks Leyline's vision agent about it through POST
 *   `${LEYLINE_API_URL}/api/pi/vision` (a hidden child session with no tools and the vision model the settings
 *   resolve; the parent's thinking level where they say `inherit`). The answer is the tool's text;
 * - the parent model's context: when the session's model has no image input and Leyline runs the extension
 *   (LEYLINE_VISION_DIR is set), each image of a user message is replaced, in the context sent to the model only,
 *   by the path of its attachment file and the instruction to call vision_agent. The session file keeps the
 *   images. The control plane checked the vision model and saved the files when the prompt was submitted; an
 *   image whose file is missing (an older turn, a fork) is saved here.
 */
import path from "node:path";
import type { ExtensionAPI, ToolDefinition } from "@earendil-works/pi-coding-agent";
import { Type } from "typebox";
import { replaceUserImages, VISION_AGENT_TOOL, VISION_DIR_ENV } from "../../domain/vision/vision-attachments.ts";
import { finalOutput, leylineApiUrl, parseSubagentResponse, postJson } from "../subagent/subagent-client.ts";
import { ensureAttachment, readImageFile } from "./vision-files.ts";

export const VISION_ROUTE = "/api/pi/vision";

export const VisionAgentSchema = Type.Object({
  path: Type.String({ description: "The image file (an attachment path from the conversation, or any PNG, JPEG, GIF or WebP file)" }),
  question: Type.Optional(Type.String({ description: "What you need to know about the image (default: a detailed description)" })),
});

export interface VisionAgentDetails {
  path: string;
  childSession?: { path: string; id: string; cwd: string };
  model?: string;
}

/** The attachments folder when Leyline runs this extension, else null. */
export function visionDir(env: NodeJS.ProcessEnv = process.env): string | null {
  const value = env[VISION_DIR_ENV]?.trim() ?? "";
  return value === "" ? null : value;
}

export function visionAgentTool(post: typeof postJson = postJson): ToolDefinition<typeof VisionAgentSchema, VisionAgentDetails> {
  return {
    name: VISION_AGENT_TOOL,
    label: "Vision agent",
    description:
      "Ask a vision-capable model about an image file: it answers your question (or describes the image) in text. Use it for images attached to the conversation when you cannot view images yourself.",
    parameters: VisionAgentSchema,
    async execute(toolCallId, params, signal, _onUpdate, ctx) {
      const file = path.resolve(ctx.cwd, params.path);
      const image = readImageFile(file);
      const manager = ctx.sessionManager;
      const sessionFile = manager.getSessionFile();
      const body = {
        cwd: ctx.cwd,
        ...(params.question !== undefined && params.question.trim() !== "" ? { question: params.question } : {}),
        ...(sessionFile !== undefined ? { parentSessionPath: sessionFile } : {}),
        parentSessionId: manager.getSessionId(),
        _toolCallId: toolCallId,
        image,
      };
      const response = parseSubagentResponse(await post(leylineApiUrl(), VISION_ROUTE, body, signal));
      if (response === null) throw new Error("The vision route answered an unexpected body");
      const answer = finalOutput(response).trim();
      return {
        content: [{ type: "text", text: answer === "" ? "(The vision agent gave no answer.)" : answer }],
        details: { path: file, childSession: response.childSession, ...(response.model !== undefined ? { model: response.model } : {}) },
      };
    },
  };
}

export default function visionExtension(pi: ExtensionAPI): void {
  pi.registerTool(visionAgentTool());

  pi.on("context", (event, ctx) => {
    const dir = visionDir();
    if (dir === null || ctx.model === undefined || ctx.model.input.includes("image")) return undefined;
    const sessionId = ctx.sessionManager.getSessionId();
    const { messages, changed } = replaceUserImages(event.messages, (image) => ensureAttachment(dir, sessionId, image));
    return changed ? { messages } : undefined;
  });
}

/**
 * The control plane's image preparation (spec "Prompt": image preparation), run by the prompt dispatcher for
 * every submission with images (a direct prompt, a steer, an edited prompt, a queued task when it is sent):
 * - the session's model takes images (or there is no model: pi reports that itself): nothing to do, pi gets
 *   the images;
 * - otherwise the vision model is resolved (session, project, global: adapters/vision/vision-settings.ts) and
 *   checked against the runtime's available models (it must exist, have credentials and take images); a missing
 *   or unusable one throws a 500 RuntimeHostError, which fails the submission (a direct prompt answers it, a
 *   queued task stays and the queue holds with the error);
 * - then each image is saved under `<data dir>/vision-attachments/<session>/` (domain/vision/vision-attachments.ts
 *   names the file from its content; 0600, written through a temp file and a rename; an existing file is kept).
 * pi still gets the images, so the session file keeps them; the bundled vision extension gives the parent model
 * the saved paths and the vision_agent instruction in their place (extensions/vision).
 */
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type { Kysely } from "kysely";
import type { PromptImage } from "../../domain/runtime/runtime-types.ts";
import { attachmentFileName, sessionFolderName, visionModelProblem } from "../../domain/vision/vision-attachments.ts";
import type { ImagePreparer } from "../runtime-host/runtime-handle.ts";
import { RuntimeHostError } from "../runtime-host/runtime-host-error.ts";
import type { LeylineDatabase } from "../sqlite/leyline-database.ts";
import { resolveVisionSettings } from "./vision-settings.ts";

/** The path of an image's attachment file in `visionDir` for `sessionId` (null for an unsupported type). */
export function attachmentPath(visionDir: string, sessionId: string, image: Pick<PromptImage, "data" | "mimeType">): string | null {
  const name = attachmentFileName(createHash("sha256").update(image.data).digest("hex"), image.mimeType);
  return name === null ? null : path.join(visionDir, sessionFolderName(sessionId), name);
}

/** Saves one image as its attachment file (kept when it exists); answers its path, or null for an unsupported type. */
export function saveAttachment(visionDir: string, sessionId: string, image: Pick<PromptImage, "data" | "mimeType">): string | null {
  const file = attachmentPath(visionDir, sessionId, image);
  if (file === null) return null;
  if (fs.existsSync(file)) return file;
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const temp = `${file}.${process.pid}.tmp`;
  try {
    fs.writeFileSync(temp, Buffer.from(image.data, "base64"), { mode: 0o600 });
    fs.renameSync(temp, file);
  } finally {
    fs.rmSync(temp, { force: true });
  }
  return file;
}

export interface VisionPreparerOptions {
  /** leyline.sqlite (the vision overrides). */
  readonly database: () => Promise<Kysely<LeylineDatabase>>;
  /** `<data dir>/vision-attachments`. */
  readonly visionDir: string;
}

export function createVisionPreparer(options: VisionPreparerOptions): ImagePreparer {
  return async (context) => {
    if (context.model === undefined || context.model.supportsImages) return;
    const db = await options.database();
    const settings = await resolveVisionSettings(db, {
      cwd: context.cwd,
      ...(context.sessionFile !== null ? { sessionPath: context.sessionFile } : {}),
    });
    const problem = visionModelProblem(settings.model ?? "", context.availableModels);
    if (problem !== null) {
      throw new RuntimeHostError(
        "runtime_failed",
        `${context.model.provider}/${context.model.id} cannot read images and the vision agent cannot run. ${problem}`,
      );
    }
    try {
      for (const image of context.images) saveAttachment(options.visionDir, context.sessionId, image);
    } catch (error) {
      throw new RuntimeHostError(
        "runtime_failed",
        `Cannot save the image attachments: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  };
}

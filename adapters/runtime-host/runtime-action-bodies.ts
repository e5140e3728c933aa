/**
 * Validation of the runtime action request bodies the handle accepts (spec "Runtime action routes"). Each
 * parser returns the typed body or throws a RuntimeHostError with the spec's status.
 */
import type { PromptImage, PromptKind, StreamingBehavior } from "../../domain/runtime/runtime-types.ts";
import { RuntimeHostError } from "./runtime-host-error.ts";

export interface PromptBody {
  text: string;
  images: PromptImage[];
  streamingBehavior: StreamingBehavior | null;
  kind: PromptKind | null;
  handoffId: string | null;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function bad(message: string): RuntimeHostError {
  return new RuntimeHostError(400, message);
}

export function parsePromptBody(body: unknown): PromptBody {
  if (!isRecord(body)) throw bad("Request body must be an object");
  const text = body["text"];
  if (typeof text !== "string") throw bad("text must be a string");
  const rawImages = body["images"];
  let images: PromptImage[] = [];
  if (rawImages !== undefined) {
    if (!Array.isArray(rawImages)) throw bad("images must be an array");
    images = rawImages.map((image, index) => {
      if (!isRecord(image) || image["type"] !== "image" || typeof image["data"] !== "string" || typeof image["mimeType"] !== "string") {
        throw bad(`images[${index}] must be { type: "image", data: string, mimeType: string }`);
      }
      return { type: "image", data: image["data"], mimeType: image["mimeType"] };
    });
  }
  const streamingBehavior = body["streamingBehavior"];
  if (streamingBehavior !== undefined && streamingBehavior !== "steer" && streamingBehavior !== "followUp") {
    throw bad("streamingBehavior must be steer or followUp");
  }
  const kind = body["kind"];
  if (kind !== undefined && kind !== "session" && kind !== "research") throw bad("kind must be session or research");
  const handoffId = body["handoffId"];
  if (handoffId !== undefined && typeof handoffId !== "string") throw bad("handoffId must be a string");
  return {
    text,
    images,
    streamingBehavior: streamingBehavior ?? null,
    kind: kind ?? null,
    handoffId: handoffId ?? null,
  };
}

/** Session names: whitespace runs collapse to one space; empty after trimming is rejected. */
export function normalizeSessionName(name: unknown): string {
  if (typeof name !== "string") throw bad("name must be a string");
  const collapsed = name.replace(/\s+/g, " ").trim();
  if (collapsed === "") throw bad("name must not be empty");
  return collapsed;
}

/**
 * Validation of the runtime action request bodies the handle accepts (spec "Runtime action routes"). Each
 * parser returns the typed body or throws a RuntimeHostError 400. Deliberate departure: the spec answers 500
 * for invalid model and Ultrafast bodies; they are the client's error, so 400 (clients read `error` either way).
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

/** POST .../model `{ provider, id }`: both non-empty strings (400 otherwise; an unknown model is the handle's 500). */
export function parseModelBody(body: unknown): { provider: string; id: string } {
  if (!isRecord(body)) throw bad("Request body must be an object");
  const provider = body["provider"];
  const id = body["id"];
  if (typeof provider !== "string" || provider.trim() === "") throw bad("provider must be a non-empty string");
  if (typeof id !== "string" || id.trim() === "") throw bad("id must be a non-empty string");
  return { provider, id };
}

/** POST .../ultrafast `{ enabled }`: a boolean (400 otherwise). */
export function parseUltrafastEnabled(enabled: unknown): boolean {
  if (typeof enabled !== "boolean") throw bad("enabled must be a boolean");
  return enabled;
}

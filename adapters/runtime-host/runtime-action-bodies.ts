/**
 * Runtime action bodies as the actions use them. The routes' schemas (domain/contract/http-runtime-actions.ts)
 * already checked their types and the spec's messages; what is left here is normalizing (absent fields
 * become null or empty) and the rules a schema does not state.
 */
import type { Static } from "typebox";
import type { PromptBody as PromptBodySchema } from "../../domain/contract/http-runtime-actions.ts";
import type { PromptImage, PromptKind, StreamingBehavior } from "../../domain/runtime/runtime-types.ts";
import { RuntimeHostError } from "./runtime-host-error.ts";

/** A prompt as the routes accept it. */
export type PromptRequest = Static<typeof PromptBodySchema>;

/** A prompt as the dispatcher sends it: every optional field resolved. */
export interface PromptBody {
  text: string;
  images: PromptImage[];
  streamingBehavior: StreamingBehavior | null;
  kind: PromptKind | null;
  handoffId: string | null;
}

export function promptBody(request: PromptRequest): PromptBody {
  return {
    text: request.text,
    images: (request.images ?? []).map((image) => ({ type: "image", data: image.data, mimeType: image.mimeType })),
    streamingBehavior: request.streamingBehavior ?? null,
    kind: request.kind ?? null,
    handoffId: request.handoffId ?? null,
  };
}

/** Session names: whitespace runs collapse to one space; empty after trimming is rejected. */
export function normalizeSessionName(name: string): string {
  const collapsed = name.replace(/\s+/g, " ").trim();
  if (collapsed === "") throw new RuntimeHostError("invalid_request", "name must not be empty");
  return collapsed;
}

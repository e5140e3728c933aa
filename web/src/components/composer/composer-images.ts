/**
 * Images attached to a prompt (paste or drop): PNG, JPEG, GIF and WebP files read into base64 `PromptImage`s
 * with a data: URL for the thumbnail.
 */
import type { PromptImage } from "../../../../domain/runtime/runtime-types.ts";
import { isPromptImageType } from "./composer-logic.ts";

export interface Attachment {
  /** Local id (list key and remove target). */
  id: string;
  name: string;
  image: PromptImage;
  /** data: URL for the thumbnail. */
  url: string;
}

const CHUNK = 0x8000;

/** Base64 of bytes (chunked so large images do not overflow the argument list). */
export function bytesToBase64(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += CHUNK) binary += String.fromCharCode(...bytes.subarray(i, i + CHUNK));
  return btoa(binary);
}

let nextId = 0;

/** Reads an image file; null when its type is not one a prompt accepts. */
export async function readAttachment(file: File): Promise<Attachment | null> {
  const mimeType = file.type.toLowerCase();
  if (!isPromptImageType(mimeType)) return null;
  const data = bytesToBase64(new Uint8Array(await file.arrayBuffer()));
  nextId += 1;
  return {
    id: `attachment-${nextId}`,
    name: file.name === "" ? "pasted image" : file.name,
    image: { type: "image", data, mimeType },
    url: `data:${mimeType};base64,${data}`,
  };
}

/** The files of a paste or drop (clipboard items of kind "file", or the dropped files). */
export function filesOf(transfer: DataTransfer | null | undefined): File[] {
  if (transfer === null || transfer === undefined) return [];
  const files: File[] = [];
  if (transfer.items !== undefined && transfer.items.length > 0) {
    for (const item of Array.from(transfer.items)) {
      if (item.kind !== "file") continue;
      const file = item.getAsFile();
      if (file !== null) files.push(file);
    }
    if (files.length > 0) return files;
  }
  return Array.from(transfer.files ?? []);
}

/**
 * Reading pi message content defensively: session files are user data, so every shape is checked before
 * use and anything unrecognised is dropped rather than thrown on.
 */
import type { ImageBlock, TranscriptBlock } from "./transcript-types.ts";

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function stringField(record: Record<string, unknown>, key: string): string | undefined {
  const value = record[key];
  return typeof value === "string" ? value : undefined;
}

export function numberField(record: Record<string, unknown>, key: string): number | undefined {
  const value = record[key];
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

export interface MappedContent {
  /** Text blocks joined with "\n"; a string content as is. */
  text: string;
  blocks: TranscriptBlock[];
}

function imageBlock(block: Record<string, unknown>): ImageBlock | null {
  const data = stringField(block, "data");
  const mimeType = stringField(block, "mimeType");
  return data !== undefined && mimeType !== undefined ? { type: "image", mimeType, data } : null;
}

/**
 * Maps a pi content value (string, or text/image/thinking/toolCall blocks) to transcript blocks.
 * Tool calls are not blocks here (they become `tool` entries); unknown block types are dropped.
 */
export function mapContent(content: unknown): MappedContent {
  if (typeof content === "string") return { text: content, blocks: [{ type: "text", text: content }] };
  if (!Array.isArray(content)) return { text: "", blocks: [] };
  const blocks: TranscriptBlock[] = [];
  const texts: string[] = [];
  for (const block of content) {
    if (!isRecord(block)) continue;
    switch (block["type"]) {
      case "text": {
        const text = stringField(block, "text");
        if (text === undefined) break;
        blocks.push({ type: "text", text });
        texts.push(text);
        break;
      }
      case "image": {
        const image = imageBlock(block);
        if (image) blocks.push(image);
        break;
      }
      case "thinking": {
        const text = stringField(block, "thinking") ?? "";
        blocks.push(block["redacted"] === true ? { type: "thinking", text, redacted: true } : { type: "thinking", text });
        break;
      }
      default:
        break;
    }
  }
  return { text: texts.join("\n"), blocks };
}

/** The image blocks of a content array (tool results). */
export function imageBlocks(content: unknown): ImageBlock[] {
  if (!Array.isArray(content)) return [];
  const images: ImageBlock[] = [];
  for (const block of content) {
    if (isRecord(block) && block["type"] === "image") {
      const image = imageBlock(block);
      if (image) images.push(image);
    }
  }
  return images;
}

export interface ToolCallBlock {
  id: string;
  name: string;
  arguments: Record<string, unknown>;
}

/** The tool calls of an assistant content array, in order. Calls without a string id are dropped. */
export function toolCallBlocks(content: unknown): ToolCallBlock[] {
  if (!Array.isArray(content)) return [];
  const calls: ToolCallBlock[] = [];
  for (const block of content) {
    if (!isRecord(block) || block["type"] !== "toolCall") continue;
    const id = stringField(block, "id");
    if (id === undefined) continue;
    const args = block["arguments"];
    calls.push({ id, name: stringField(block, "name") ?? "", arguments: isRecord(args) ? args : {} });
  }
  return calls;
}

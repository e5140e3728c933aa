/**
 * Retry after a provider error (a 429, an overloaded model): which failed answer of the branch offers Retry, and
 * what Retry re-sends. Pure.
 *
 * Only the branch's last word can be retried: walking back from the end over entries that are not conversation
 * (model and thinking-level changes, system-prompt notes, usage records, extension messages), the first entry
 * found must be an assistant message that ended with `stopReason: "error"`. Retry re-sends the user prompt that
 * led to it (the nearest user message before it, with its images) through edit-prompt: pi moves the leaf to
 * before that prompt and submits it again, so the failed attempt stays in the file as a branch. A prompt pi has
 * not written yet (provisional) cannot be retried.
 *
 * Retry re-runs the whole turn: when tools ran between the prompt and the failure (an edit, a command), they run
 * again, so the button says so and asks first (`retryConfirmation`). Also the images of a prompt as edit-prompt
 * takes them (`promptImagesOf`, shared with the transcript's prompt editor).
 */
import type {
  AssistantMessageTranscriptEntry,
  MessageTranscriptEntry,
  TranscriptEntry,
  UserMessageTranscriptEntry,
} from "../../../../domain/transcript/transcript-types.ts";
import type { PromptImage } from "../../../../domain/runtime/runtime-types.ts";
import { isProvisionalEntry } from "../../lib/provisional-entries.ts";

export interface RetryTarget {
  /** The failed assistant message (where Retry shows). */
  error: AssistantMessageTranscriptEntry;
  /** The prompt Retry re-sends. */
  prompt: UserMessageTranscriptEntry;
  /** The tools called between the prompt and the failure, in order (Retry runs them again). */
  toolsRun: readonly string[];
}

/** Entries that are not conversation: they neither end a branch's exchange nor hide a failure before them. */
function isAside(entry: TranscriptEntry): boolean {
  switch (entry.type) {
    case "model_change":
    case "thinking_level_change":
    case "system":
    case "usage":
      return true;
    case "message":
      return entry.role === "custom";
    default:
      return false;
  }
}

export function retryTargetOf(entries: readonly TranscriptEntry[]): RetryTarget | null {
  let index = entries.length - 1;
  while (index >= 0 && isAside(entries[index] as TranscriptEntry)) index--;
  const last = entries[index];
  if (last === undefined || last.type !== "message" || last.role !== "assistant" || last.stopReason !== "error") return null;
  const toolsRun: string[] = [];
  for (let i = index - 1; i >= 0; i--) {
    const entry = entries[i] as TranscriptEntry;
    if (entry.type === "tool") toolsRun.unshift(entry.name);
    if (entry.type === "message" && entry.role === "user")
      return isProvisionalEntry(entry) ? null : { error: last, prompt: entry, toolsRun };
  }
  return null;
}

/** The images of a prompt's blocks, as edit-prompt takes them. */
export function promptImagesOf(blocks: MessageTranscriptEntry["blocks"]): PromptImage[] {
  return blocks.flatMap((block) =>
    block.type === "image" ? [{ type: "image" as const, data: block.data, mimeType: block.mimeType }] : [],
  );
}

/** What Retry sends to edit-prompt: the prompt's entry, its words as the person wrote them, and its images. */
export function retryRequestOf(target: RetryTarget): { entryId: string; text: string; images: PromptImage[] } {
  const prompt = target.prompt;
  const original = prompt.contextEdit?.original ?? { text: prompt.text, blocks: prompt.blocks };
  return { entryId: prompt.id, text: original.text, images: promptImagesOf(original.blocks) };
}

/** "3 tool calls (edit ×2, bash)": how many, and which tools, each once with its count. */
function toolCallsText(names: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const name of names) counts.set(name, (counts.get(name) ?? 0) + 1);
  const which = [...counts].map(([name, count]) => (count > 1 ? `${name} ×${count}` : name)).join(", ");
  return `${names.length} tool call${names.length === 1 ? "" : "s"} (${which})`;
}

/** The Retry button's title: what it sends, and that the turn's tool calls run again when there were some. */
export function retryTitle(target: RetryTarget): string {
  if (target.toolsRun.length === 0) return "Send the prompt that led here again (the failed attempt stays as a branch)";
  return (
    `Send the prompt that led here again: the whole turn runs again, with its ${toolCallsText(target.toolsRun)}; ` +
    "asks first (the failed attempt stays as a branch)"
  );
}

/** The confirmation Retry asks first when the turn called tools (they run again), else null. */
export function retryConfirmation(target: RetryTarget): { title: string; message: string; confirmLabel: string } | null {
  if (target.toolsRun.length === 0) return null;
  return {
    title: "Retry the whole turn?",
    message:
      `Retry sends the prompt again and pi runs the whole turn again: the ${toolCallsText(target.toolsRun)} it made before ` +
      "the failure run again, and may change files or run commands a second time. The failed attempt stays as a branch.",
    confirmLabel: "Retry",
  };
}

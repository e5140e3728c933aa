/**
 * pi 1.x system messages and their transcript entries.
 *
 * pi 1.x stores what it sends as system messages (`{ role: "system", content, sections?, toolsAdded?,
 * toolsRemoved?, timestamp }`): the first request of a session stores every prompt section and tool, later
 * requests store patches (a section by name, `null` removing it; tools added or removed by name), and a compaction
 * stores the replayed state at its boundary (`systemMessage`). Each system message becomes a SystemTranscriptEntry
 * with the diff against the state before it on the same path: a section is "added" when the path had none of that
 * name and "changed" otherwise; a patch that changes nothing still shows (pi stored it), with its content text.
 */
import type { SessionEntry } from "../session-log.ts";
import { entryBase } from "./entry-mapping.ts";
import { isRecord, numberField } from "./message-content.ts";
import { PREAMBLE_SECTION, systemPromptText, type SystemPromptDiff } from "./system-prompt.ts";
import type { SystemToolRecord, SystemTranscriptEntry } from "./transcript-types.ts";

/** The prompt sections and tools the model has, as pi's system messages on a path built them. */
export interface PiSystemState {
  /** Section name → text, in first-seen order. */
  sections: Record<string, string>;
  /** Tool name → description. */
  tools: Record<string, string>;
}

export function emptyPiSystemState(): PiSystemState {
  return { sections: {}, tools: {} };
}

/** The diff a system message applies to `state` (mutated to the state after it; works on drafts). */
export function applyPiSystemMessage(state: PiSystemState, message: Record<string, unknown>): SystemPromptDiff {
  const diff: SystemPromptDiff = {
    sections: [],
    addedSections: [],
    changedSections: [],
    removedSections: [],
    toolsAdded: [],
    toolsChanged: [],
    toolsRemoved: [],
  };
  const sections = message["sections"];
  if (isRecord(sections)) {
    for (const [name, value] of Object.entries(sections)) {
      const had = Object.hasOwn(state.sections, name);
      if (value === null) {
        if (!had) continue;
        delete state.sections[name];
        diff.removedSections.push(name);
        diff.sections.push({ name, text: "", removed: true });
      } else if (typeof value === "string") {
        if (had && state.sections[name] === value) continue;
        (had ? diff.changedSections : diff.addedSections).push(name);
        state.sections[name] = value;
        diff.sections.push({ name, text: value, removed: false });
      }
    }
  }
  for (const tool of arrayField(message, "toolsAdded")) {
    if (!isRecord(tool) || typeof tool["name"] !== "string") continue;
    const name = tool["name"];
    const description = typeof tool["description"] === "string" ? tool["description"] : "";
    const had = Object.hasOwn(state.tools, name);
    if (had && state.tools[name] === description) continue;
    if (had) diff.toolsChanged.push(name);
    state.tools[name] = description;
    diff.toolsAdded.push({ name, description });
  }
  for (const tool of arrayField(message, "toolsRemoved")) {
    const name = isRecord(tool) && typeof tool["name"] === "string" ? tool["name"] : typeof tool === "string" ? tool : null;
    if (name === null || !Object.hasOwn(state.tools, name)) continue;
    delete state.tools[name];
    diff.toolsRemoved.push(name);
  }
  return diff;
}

/** Replaces `state` with the replayed state a compaction stored (its `systemMessage`; works on drafts). */
export function resetPiSystemState(state: PiSystemState, replayed: unknown): void {
  for (const name of Object.keys(state.sections)) delete state.sections[name];
  for (const name of Object.keys(state.tools)) delete state.tools[name];
  if (isRecord(replayed)) applyPiSystemMessage(state, replayed);
}

/**
 * The short summary: "system prompt: 5 sections, 7 tools" when the message carries the preamble (the first
 * message of a session, or a replayed prompt), else the kinds of change, else "system message".
 */
export function piSystemCode(diff: SystemPromptDiff, state: PiSystemState): string {
  if (diff.sections.some((section) => section.name === PREAMBLE_SECTION && !section.removed)) {
    const sectionCount = Object.keys(state.sections).length;
    const toolCount = Object.keys(state.tools).length;
    return `system prompt: ${plural(sectionCount, "section")}${toolCount > 0 ? `, ${plural(toolCount, "tool")}` : ""}`;
  }
  const parts: string[] = [];
  const toolsNew = diff.toolsAdded.filter((tool) => !diff.toolsChanged.includes(tool.name)).map((tool) => tool.name);
  if (diff.addedSections.length > 0) parts.push(`sections added: ${nameList(diff.addedSections)}`);
  if (diff.changedSections.length > 0) parts.push(`sections changed: ${nameList(diff.changedSections)}`);
  if (diff.removedSections.length > 0) parts.push(`sections removed: ${nameList(diff.removedSections)}`);
  if (toolsNew.length > 0) parts.push(`tools added: ${nameList(toolsNew)}`);
  if (diff.toolsChanged.length > 0) parts.push(`tools changed: ${nameList(diff.toolsChanged)}`);
  if (diff.toolsRemoved.length > 0) parts.push(`tools removed: ${nameList(diff.toolsRemoved)}`);
  return parts.length > 0 ? parts.join("; ") : "system message";
}

/** The transcript entry of a pi system message on a path whose system state was `state` (mutated to the state after it). */
export function piSystemMessageEntry(entry: SessionEntry, message: Record<string, unknown>, state: PiSystemState): SystemTranscriptEntry {
  const diff = applyPiSystemMessage(state, message);
  const content = message["content"];
  const contentText = typeof content === "string" ? content : "";
  const changes = systemPromptText(diff);
  const mapped: SystemTranscriptEntry = {
    ...entryBase(entry),
    type: "system",
    label: "System",
    code: piSystemCode(diff, state),
    sections: diff.sections,
    toolsAdded: diff.toolsAdded.map((tool): SystemToolRecord => ({ name: tool.name, description: tool.description })),
    toolsRemoved: diff.toolsRemoved,
    text: [contentText, changes].filter((part) => part !== "").join("\n\n"),
  };
  const messageTimestamp = numberField(message, "timestamp");
  if (messageTimestamp !== undefined) mapped.messageTimestamp = messageTimestamp;
  return mapped;
}

function arrayField(record: Record<string, unknown>, key: string): unknown[] {
  const value = record[key];
  return Array.isArray(value) ? value : [];
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? "" : "s"}`;
}

function nameList(names: readonly string[]): string {
  const shown = names.slice(0, 3).join(", ");
  return names.length > 3 ? `${shown} +${names.length - 3} more` : shown;
}

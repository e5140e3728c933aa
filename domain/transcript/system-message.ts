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
import { emptySystemPromptDiff, systemDiffCode, systemPromptText, type SystemPromptDiff } from "./system-prompt.ts";
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
  const diff = emptySystemPromptDiff();
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

/** The short summary (system-prompt.ts `systemDiffCode`), "system message" when the message changed nothing. */
export function piSystemCode(diff: SystemPromptDiff, state: PiSystemState): string {
  return systemDiffCode(diff, { sections: Object.keys(state.sections).length, tools: Object.keys(state.tools).length }) || "system message";
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

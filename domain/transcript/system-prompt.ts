/**
 * System-prompt snapshots and their transcript entries.
 *
 * pi does not persist the system prompt. Leyline's runtime host records it as a custom entry
 * `{ type: "custom", customType: "leyline-system-prompt", data: { version: 1, prompt, tools: [{ name, description }] } }`
 * whenever the effective system prompt or tool set changes. Custom entries are not LLM context, so pi and
 * other readers ignore them. Each snapshot becomes a SystemTranscriptEntry holding the diff against the
 * previous snapshot on the same branch; a snapshot equal to the previous one yields no entry.
 *
 * Sections: the text before the first Markdown heading is the section "preamble" (omitted when blank);
 * each `#`, `##` or `###` heading outside a fenced code block starts a section named by its heading text
 * (a repeated name gets " (2)", " (3)"...). A section's text is its body without the heading line, with
 * blank lines at either end trimmed.
 */
import type { CustomEntry, SessionEntry } from "../session-log.ts";
import { entryBase } from "./entry-mapping.ts";
import { isRecord } from "./message-content.ts";
import type { SystemPromptSection, SystemToolRecord, SystemTranscriptEntry } from "./transcript-types.ts";

export const SYSTEM_PROMPT_CUSTOM_TYPE = "leyline-system-prompt";
export const SYSTEM_PROMPT_SNAPSHOT_VERSION = 1;
export const PREAMBLE_SECTION = "preamble";

export interface SystemPromptSnapshot {
  version: 1;
  prompt: string;
  tools: SystemToolRecord[];
}

export type SystemPromptEntry = CustomEntry<SystemPromptSnapshot> & { customType: typeof SYSTEM_PROMPT_CUSTOM_TYPE };

export function isSystemPromptSnapshot(data: unknown): data is SystemPromptSnapshot {
  if (!isRecord(data) || data["version"] !== SYSTEM_PROMPT_SNAPSHOT_VERSION || typeof data["prompt"] !== "string") return false;
  const tools = data["tools"];
  return (
    Array.isArray(tools) &&
    tools.every((tool) => isRecord(tool) && typeof tool["name"] === "string" && typeof tool["description"] === "string")
  );
}

/** True for a custom entry of our system-prompt type (its data may still be invalid: check with isSystemPromptSnapshot). */
export function isSystemPromptCustomEntry(entry: SessionEntry): entry is CustomEntry {
  return entry.type === "custom" && entry.customType === SYSTEM_PROMPT_CUSTOM_TYPE;
}

/** True for a system-prompt custom entry with valid snapshot data. */
export function isSystemPromptEntry(entry: SessionEntry): entry is SystemPromptEntry {
  return isSystemPromptCustomEntry(entry) && isSystemPromptSnapshot(entry.data);
}

/** Builds the custom entry the runtime host appends (the host supplies id, parentId and timestamp). */
export function systemPromptEntry(
  base: { id: string; parentId: string | null; timestamp: string },
  prompt: string,
  tools: readonly SystemToolRecord[],
): SystemPromptEntry {
  return {
    ...base,
    type: "custom",
    customType: SYSTEM_PROMPT_CUSTOM_TYPE,
    data: { version: 1, prompt, tools: tools.map((tool) => ({ name: tool.name, description: tool.description })) },
  };
}

export interface PromptSection {
  name: string;
  text: string;
}

const HEADING = /^(#{1,3})[ \t]+(.*?)[ \t]*#*[ \t]*$/;
const FENCE = /^[ \t]{0,3}(```|~~~)/;

function trimBlankLines(lines: readonly string[]): string {
  let start = 0;
  let end = lines.length;
  while (start < end && (lines[start] ?? "").trim() === "") start++;
  while (end > start && (lines[end - 1] ?? "").trim() === "") end--;
  return lines.slice(start, end).join("\n");
}

/** Splits a prompt into named sections (see the module comment). */
export function splitPromptSections(prompt: string): PromptSection[] {
  const sections: PromptSection[] = [];
  const seen: Record<string, number> = Object.create(null);
  let name = PREAMBLE_SECTION;
  let body: string[] = [];
  let inFence = false;
  const flush = () => {
    const text = trimBlankLines(body);
    if (name !== PREAMBLE_SECTION || text !== "") sections.push({ name, text });
  };
  for (const line of prompt.split(/\r?\n/)) {
    if (FENCE.test(line)) inFence = !inFence;
    const heading = inFence ? null : HEADING.exec(line);
    if (heading === null) {
      body.push(line);
      continue;
    }
    flush();
    const title = (heading[2] ?? "").trim() || "(untitled)";
    const count = (seen[title] ?? 0) + 1;
    seen[title] = count;
    name = count === 1 ? title : `${title} (${count})`;
    body = [];
  }
  flush();
  return sections;
}

export interface SystemPromptDiff {
  sections: SystemPromptSection[];
  addedSections: string[];
  changedSections: string[];
  removedSections: string[];
  toolsAdded: SystemToolRecord[];
  /** Names among toolsAdded that existed before with another description. */
  toolsChanged: string[];
  toolsRemoved: string[];
}

/** A diff with no changes, to fill in. */
export function emptySystemPromptDiff(): SystemPromptDiff {
  return { sections: [], addedSections: [], changedSections: [], removedSections: [], toolsAdded: [], toolsChanged: [], toolsRemoved: [] };
}

/** The diff of `next` against `previous` (null = nothing before); null when nothing changed. */
export function diffSystemPrompt(previous: SystemPromptSnapshot | null, next: SystemPromptSnapshot): SystemPromptDiff | null {
  const before = previous ? splitPromptSections(previous.prompt) : [];
  const after = splitPromptSections(next.prompt);
  const beforeText: Record<string, string> = Object.create(null);
  for (const section of before) beforeText[section.name] = section.text;
  const afterNames: Record<string, true> = Object.create(null);
  const diff = emptySystemPromptDiff();
  for (const section of after) {
    afterNames[section.name] = true;
    const old = Object.hasOwn(beforeText, section.name) ? beforeText[section.name] : undefined;
    if (old === section.text) continue;
    (old === undefined ? diff.addedSections : diff.changedSections).push(section.name);
    diff.sections.push({ name: section.name, text: section.text, removed: false });
  }
  for (const section of before) {
    if (Object.hasOwn(afterNames, section.name)) continue;
    diff.removedSections.push(section.name);
    diff.sections.push({ name: section.name, text: "", removed: true });
  }
  const beforeTools: Record<string, string> = Object.create(null);
  for (const tool of previous?.tools ?? []) beforeTools[tool.name] = tool.description;
  const afterTools: Record<string, true> = Object.create(null);
  for (const tool of next.tools) {
    if (Object.hasOwn(afterTools, tool.name)) continue;
    afterTools[tool.name] = true;
    const old = Object.hasOwn(beforeTools, tool.name) ? beforeTools[tool.name] : undefined;
    if (old === tool.description) continue;
    if (old !== undefined) diff.toolsChanged.push(tool.name);
    diff.toolsAdded.push({ name: tool.name, description: tool.description });
  }
  for (const name of Object.keys(beforeTools)) if (!Object.hasOwn(afterTools, name)) diff.toolsRemoved.push(name);
  const empty = diff.sections.length === 0 && diff.toolsAdded.length === 0 && diff.toolsRemoved.length === 0;
  return empty ? null : diff;
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? "" : "s"}`;
}

function nameList(names: readonly string[]): string {
  const shown = names.slice(0, 3).join(", ");
  return names.length > 3 ? `${shown} +${names.length - 3} more` : shown;
}

/**
 * The short summary: a full prompt summary ("system prompt: 5 sections, 7 tools") when the diff carries a
 * non-removed preamble (e.g. the first snapshot), otherwise the kinds of change ("tools added: vision_agent").
 */
export function systemPromptCode(diff: SystemPromptDiff, next: SystemPromptSnapshot): string {
  return systemDiffCode(diff, { sections: splitPromptSections(next.prompt).length, tools: next.tools.length });
}

/**
 * The short summary of a diff given the whole prompt's counts after it: the full prompt summary when the diff
 * carries a non-removed preamble, else the kinds of change ("" when there are none).
 */
export function systemDiffCode(diff: SystemPromptDiff, after: { sections: number; tools: number }): string {
  if (diff.sections.some((section) => section.name === PREAMBLE_SECTION && !section.removed)) {
    const tools = after.tools > 0 ? `, ${plural(after.tools, "tool")}` : "";
    return `system prompt: ${plural(after.sections, "section")}${tools}`;
  }
  const parts: string[] = [];
  const toolsNew = diff.toolsAdded.filter((tool) => !diff.toolsChanged.includes(tool.name)).map((tool) => tool.name);
  if (diff.addedSections.length > 0) parts.push(`sections added: ${nameList(diff.addedSections)}`);
  if (diff.changedSections.length > 0) parts.push(`sections changed: ${nameList(diff.changedSections)}`);
  if (diff.removedSections.length > 0) parts.push(`sections removed: ${nameList(diff.removedSections)}`);
  if (toolsNew.length > 0) parts.push(`tools added: ${nameList(toolsNew)}`);
  if (diff.toolsChanged.length > 0) parts.push(`tools changed: ${nameList(diff.toolsChanged)}`);
  if (diff.toolsRemoved.length > 0) parts.push(`tools removed: ${nameList(diff.toolsRemoved)}`);
  return parts.join("; ");
}

/** Readable descriptions of the prompt and tool changes, one paragraph each. */
export function systemPromptText(diff: SystemPromptDiff): string {
  const paragraphs: string[] = [];
  for (const section of diff.sections) {
    if (section.removed) {
      paragraphs.push(`Section "${section.name}" removed.`);
      continue;
    }
    const verb = diff.addedSections.includes(section.name) ? "added" : "changed";
    paragraphs.push(section.text === "" ? `Section "${section.name}" ${verb}.` : `Section "${section.name}" ${verb}:\n${section.text}`);
  }
  const added = diff.toolsAdded.filter((tool) => !diff.toolsChanged.includes(tool.name));
  const changed = diff.toolsAdded.filter((tool) => diff.toolsChanged.includes(tool.name));
  const describe = (tool: SystemToolRecord) => (tool.description === "" ? `- ${tool.name}` : `- ${tool.name}: ${tool.description}`);
  if (added.length > 0) paragraphs.push(`Tools added:\n${added.map(describe).join("\n")}`);
  if (changed.length > 0) paragraphs.push(`Tool descriptions changed:\n${changed.map(describe).join("\n")}`);
  if (diff.toolsRemoved.length > 0) paragraphs.push(`Tools removed: ${diff.toolsRemoved.join(", ")}`);
  return paragraphs.join("\n\n");
}

/** The transcript entry for a snapshot entry given the previous snapshot on the branch; null when nothing changed. */
export function systemPromptTranscriptEntry(entry: SystemPromptEntry, previous: SystemPromptSnapshot | null): SystemTranscriptEntry | null {
  const next = entry.data;
  if (next === undefined) return null;
  const diff = diffSystemPrompt(previous, next);
  if (diff === null) return null;
  return {
    ...entryBase(entry),
    type: "system",
    label: "System",
    code: systemPromptCode(diff, next),
    sections: diff.sections,
    toolsAdded: diff.toolsAdded,
    toolsRemoved: diff.toolsRemoved,
    text: systemPromptText(diff),
  };
}

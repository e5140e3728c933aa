import { describe, it, expect } from "vitest";
import type { SessionEntry } from "../session-log.ts";
import {
  diffSystemPrompt,
  isSystemPromptEntry,
  isSystemPromptSnapshot,
  splitPromptSections,
  SYSTEM_PROMPT_CUSTOM_TYPE,
  systemPromptEntry,
  type SystemPromptSnapshot,
} from "./system-prompt.ts";
import { buildTranscript, transcriptOfPath } from "./transcript-builder.ts";
import type { SystemTranscriptEntry } from "./transcript-types.ts";

const PROMPT_V1 = [
  "You are an expert coding assistant operating inside pi.",
  "",
  "# Tools",
  "Use read before edit.",
  "",
  "## Guidelines",
  "- Be concise.",
  "```md",
  "# not a heading (fenced)",
  "```",
  "### Examples",
  "none",
  "# Context",
  "cwd: /home/u/proj",
].join("\n");

const READ = { name: "read", description: "Read a file" };
const BASH = { name: "bash", description: "Run a command" };
const VISION = { name: "vision_agent", description: "Describe images" };

let n = 0;
function snapshots(...snaps: { prompt: string; tools: { name: string; description: string }[] }[]): SessionEntry[] {
  let parentId: string | null = null;
  return snaps.map((snap) => {
    const id = `s${n++}`;
    const entry = systemPromptEntry({ id, parentId, timestamp: "2026-01-01T00:00:00.000Z" }, snap.prompt, snap.tools);
    parentId = id;
    return entry;
  });
}

const systems = (entries: SessionEntry[]) => transcriptOfPath(entries) as SystemTranscriptEntry[];

describe("splitPromptSections", () => {
  it("splits at # to ### headings outside code fences; the text before the first is the preamble", () => {
    expect(splitPromptSections(PROMPT_V1)).toEqual([
      { name: "preamble", text: "You are an expert coding assistant operating inside pi." },
      { name: "Tools", text: "Use read before edit." },
      { name: "Guidelines", text: "- Be concise.\n```md\n# not a heading (fenced)\n```" },
      { name: "Examples", text: "none" },
      { name: "Context", text: "cwd: /home/u/proj" },
    ]);
  });

  it("omits a blank preamble, ignores #### headings, numbers repeated names", () => {
    expect(splitPromptSections("\n# A\none\n#### deep\n# A\ntwo\n#NoSpace")).toEqual([
      { name: "A", text: "one\n#### deep" },
      { name: "A (2)", text: "two\n#NoSpace" },
    ]);
    expect(splitPromptSections("")).toEqual([]);
  });
});

describe("system prompt snapshots", () => {
  it("defines the custom entry format with a guard", () => {
    const [entry] = snapshots({ prompt: "p", tools: [READ] });
    expect(entry).toMatchObject({
      type: "custom",
      customType: SYSTEM_PROMPT_CUSTOM_TYPE,
      data: { version: 1, prompt: "p", tools: [READ] },
    });
    expect(isSystemPromptEntry(entry as SessionEntry)).toBe(true);
    expect(isSystemPromptSnapshot({ version: 2, prompt: "p", tools: [] })).toBe(false);
    expect(isSystemPromptSnapshot({ version: 1, prompt: "p", tools: [{ name: "x" }] })).toBe(false);
    expect(isSystemPromptSnapshot({ version: 1, prompt: "p", tools: [] })).toBe(true);
  });

  it("projects the first snapshot as a full prompt summary", () => {
    const [first] = systems(snapshots({ prompt: PROMPT_V1, tools: [READ, BASH] }));
    expect(first).toMatchObject({
      type: "system",
      label: "System",
      code: "system prompt: 5 sections, 2 tools",
      toolsAdded: [READ, BASH],
      toolsRemoved: [],
    });
    expect(first?.sections.map((s) => [s.name, s.removed])).toEqual([
      ["preamble", false],
      ["Tools", false],
      ["Guidelines", false],
      ["Examples", false],
      ["Context", false],
    ]);
    expect(first?.text).toContain('Section "preamble" added:\nYou are an expert coding assistant operating inside pi.');
    expect(first?.text).toContain("Tools added:\n- read: Read a file\n- bash: Run a command");
    expect(first).not.toHaveProperty("role");
    expect(first).not.toHaveProperty("blocks");
    expect(first).not.toHaveProperty("copyText");
    expect(first).not.toHaveProperty("messageTimestamp");
    expect(first?.rolloutFeedback).toBe("");
    expect(first?.rolloutFeedbackText).toBe("");
  });

  it("omits the tool count from the full summary when there are no tools", () => {
    expect(systems(snapshots({ prompt: "Just a preamble.", tools: [] }))[0]?.code).toBe("system prompt: 1 section");
  });

  it("diffs a later snapshot: changed, added and removed sections, tools added and removed", () => {
    const next = PROMPT_V1.replace("Use read before edit.", "Use read before edit. Prefer grep.")
      .replace("### Examples\nnone\n", "")
      .concat("\n## Vision\nCall vision_agent for images.");
    const [, second] = systems(snapshots({ prompt: PROMPT_V1, tools: [READ, BASH] }, { prompt: next, tools: [READ, VISION] }));
    expect(second?.sections).toEqual([
      { name: "Tools", text: "Use read before edit. Prefer grep.", removed: false },
      { name: "Vision", text: "Call vision_agent for images.", removed: false },
      { name: "Examples", text: "", removed: true },
    ]);
    expect(second?.toolsAdded).toEqual([VISION]);
    expect(second?.toolsRemoved).toEqual(["bash"]);
    expect(second?.code).toBe(
      "sections added: Vision; sections changed: Tools; sections removed: Examples; tools added: vision_agent; tools removed: bash",
    );
    expect(second?.text).toBe(
      [
        'Section "Tools" changed:\nUse read before edit. Prefer grep.',
        'Section "Vision" added:\nCall vision_agent for images.',
        'Section "Examples" removed.',
        "Tools added:\n- vision_agent: Describe images",
        "Tools removed: bash",
      ].join("\n\n"),
    );
  });

  it("summarises a tools-only change as in the spec", () => {
    const [, second] = systems(snapshots({ prompt: PROMPT_V1, tools: [READ] }, { prompt: PROMPT_V1, tools: [READ, VISION] }));
    expect(second).toMatchObject({ code: "tools added: vision_agent", sections: [], toolsAdded: [VISION], toolsRemoved: [] });
  });

  it("reports a changed tool description as an added record and says so", () => {
    const diff = diffSystemPrompt(
      { version: 1, prompt: "p", tools: [READ] },
      { version: 1, prompt: "p", tools: [{ name: "read", description: "Read files" }] },
    );
    expect(diff).toMatchObject({ toolsAdded: [{ name: "read", description: "Read files" }], toolsChanged: ["read"], toolsRemoved: [] });
  });

  it("a changed preamble gives the full summary again; a removed preamble does not", () => {
    const [, changed, removed] = systems(
      snapshots(
        { prompt: PROMPT_V1, tools: [READ] },
        { prompt: PROMPT_V1.replace("inside pi", "inside Leyline"), tools: [READ] },
        { prompt: "# Tools\nUse read before edit.", tools: [READ] },
      ),
    );
    expect(changed?.code).toBe("system prompt: 5 sections, 1 tool");
    expect(removed?.code).toBe("sections removed: preamble, Guidelines, Examples +1 more");
  });

  it("an identical snapshot yields no entry, and diffs are against the previous snapshot on the branch", () => {
    const snap = { prompt: PROMPT_V1, tools: [READ] };
    const entries = snapshots(snap, snap, { prompt: PROMPT_V1, tools: [] }, snap);
    const mapped = systems(entries);
    expect(mapped.map((m) => m.id)).toEqual([entries[0]?.id, entries[2]?.id, entries[3]?.id]);
    expect(mapped[1]).toMatchObject({ code: "tools removed: read" });
    expect(mapped[2]).toMatchObject({ code: "tools added: read" });
    expect(diffSystemPrompt(null, { version: 1, prompt: "", tools: [] })).toBeNull();
  });

  it("skips a system-prompt entry with invalid data as an anomaly, keeping the previous snapshot", () => {
    const [a] = snapshots({ prompt: "p", tools: [] });
    const bad = {
      type: "custom",
      customType: SYSTEM_PROMPT_CUSTOM_TYPE,
      data: { version: 1, prompt: 3 },
      id: "bad",
      parentId: a?.id,
      timestamp: "t",
    } as SessionEntry;
    const state = buildTranscript([a as SessionEntry, bad]);
    expect(state.entries.length).toBe(1);
    expect(state.anomalies).toBe(1);
    expect((state.systemPrompt as SystemPromptSnapshot).prompt).toBe("p");
  });
});

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { SessionEntry } from "../session-log.ts";
import { applyPiSystemMessage, emptyPiSystemState, type PiSystemState } from "./system-message.ts";
import { transcriptOfPath } from "./transcript-builder.ts";
import type { SystemTranscriptEntry } from "./transcript-types.ts";

// Shapes as pi 1.6 writes them (AgentSession's first request, later patches, a compaction's replayed state).
const tool = (name: string, description = `${name} tool`) => ({ name, description, parameters: { type: "object", properties: {} } });
const systemMessage = (fields: Record<string, unknown>) => ({
  type: "message",
  message: { role: "system", content: "", timestamp: 1765233665000, ...fields },
});
const first = systemMessage({
  sections: { preamble: "You are an expert coding assistant.", tools: "Available tools: read, bash", cwd: "Current working directory: /w" },
  toolsAdded: [tool("read"), tool("bash")],
});
const user = (text: string) => ({
  type: "message",
  message: { role: "user", content: [{ type: "text", text }], timestamp: 1765233665292 },
});

function chain(bodies: Record<string, unknown>[]): SessionEntry[] {
  let parentId: string | null = null;
  return bodies.map((body, index) => {
    const id = `s${index.toString(16).padStart(7, "0")}`;
    const entry = { id, parentId, timestamp: `2026-11-30T10:00:0${index % 10}.000Z`, ...body } as SessionEntry;
    parentId = id;
    return entry;
  });
}

function systemEntries(bodies: Record<string, unknown>[]): SystemTranscriptEntry[] {
  return transcriptOfPath(chain(bodies)).filter((entry): entry is SystemTranscriptEntry => entry.type === "system");
}

describe("pi system messages in the transcript", () => {
  it("shows the first message of a session as the whole prompt: every section and tool added", () => {
    const [entry] = systemEntries([first, user("hi")]);
    expect(entry).toMatchObject({
      type: "system",
      label: "System",
      code: "system prompt: 3 sections, 2 tools",
      toolsAdded: [
        { name: "read", description: "read tool" },
        { name: "bash", description: "bash tool" },
      ],
      toolsRemoved: [],
      messageTimestamp: 1765233665000,
    });
    expect(entry?.sections.map((section) => [section.name, section.removed])).toEqual([
      ["preamble", false],
      ["tools", false],
      ["cwd", false],
    ]);
    expect(entry?.text).toContain('Section "preamble" added:\nYou are an expert coding assistant.');
    expect(entry?.text).toContain("Tools added:\n- read: read tool\n- bash: bash tool");
  });

  it("shows a patch as what it changed: a section changed, added or removed, tools added or removed", () => {
    const [, patch, removal] = systemEntries([
      first,
      user("hi"),
      systemMessage({
        sections: { cwd: "Current working directory: /x", leyline_research_protocol: "<p>" },
        toolsAdded: [tool("research_update")],
      }),
      systemMessage({ sections: { leyline_research_protocol: null }, toolsRemoved: [{ name: "bash" }] }),
    ]);
    expect(patch).toMatchObject({
      code: "sections added: leyline_research_protocol; sections changed: cwd; tools added: research_update",
      sections: [
        { name: "cwd", text: "Current working directory: /x", removed: false },
        { name: "leyline_research_protocol", text: "<p>", removed: false },
      ],
      toolsAdded: [{ name: "research_update", description: "research_update tool" }],
    });
    expect(removal).toMatchObject({
      code: "sections removed: leyline_research_protocol; tools removed: bash",
      sections: [{ name: "leyline_research_protocol", text: "", removed: true }],
      toolsRemoved: ["bash"],
    });
  });

  it("keeps a message that changes nothing, with its own text, and reads content arrays as no text", () => {
    const [, same, array] = systemEntries([
      first,
      systemMessage({ content: "Note from pi.", sections: { cwd: "Current working directory: /w" } }),
      systemMessage({ content: [{ type: "text", text: "ignored" }] }),
    ]);
    expect(same).toMatchObject({ code: "system message", sections: [], toolsAdded: [], toolsRemoved: [], text: "Note from pi." });
    expect(array).toMatchObject({ code: "system message", text: "" });
  });

  it("diffs a patch after a compaction against the state the compaction replayed", () => {
    const compaction = {
      type: "compaction",
      summary: "Earlier work",
      firstKeptEntryId: "s0000001",
      tokensBefore: 1000,
      systemMessage: {
        role: "system",
        content: "",
        sections: { preamble: "Replayed.", cwd: "Current working directory: /y" },
        toolsAdded: [tool("read")],
        timestamp: 1,
      },
    };
    const [, after] = systemEntries([
      first,
      user("hi"),
      compaction,
      systemMessage({ sections: { cwd: "Current working directory: /y", tools: "Available tools: read" }, toolsAdded: [tool("read")] }),
    ]);
    // cwd equals the replayed text; "tools" was not in the replayed state, so it is added again; read is known.
    expect(after).toMatchObject({ code: "sections added: tools", toolsAdded: [] });
  });

  it("holds, after any sequence of patches, exactly the sections and tools last set and not removed", () => {
    const name = fc.constantFrom("preamble", "tools", "cwd", "extra");
    const patchArb = fc.record({
      sections: fc.dictionary(name, fc.option(fc.constantFrom("a", "b", ""), { nil: null })),
      toolsAdded: fc.array(fc.record({ name: fc.constantFrom("read", "bash", "edit"), description: fc.constantFrom("x", "y") }), {
        maxLength: 3,
      }),
      toolsRemoved: fc.array(fc.record({ name: fc.constantFrom("read", "bash", "edit") }), { maxLength: 2 }),
    });
    fc.assert(
      fc.property(fc.array(patchArb, { maxLength: 8 }), (patches) => {
        const state: PiSystemState = emptyPiSystemState();
        const sections = new Map<string, string>();
        const tools = new Map<string, string>();
        for (const patch of patches) {
          const diff = applyPiSystemMessage(state, patch);
          for (const [key, value] of Object.entries(patch.sections)) {
            if (value === null) sections.delete(key);
            else sections.set(key, value);
          }
          for (const added of patch.toolsAdded) tools.set(added.name, added.description);
          for (const removed of patch.toolsRemoved) tools.delete(removed.name);
          // every reported change is a real one: no added section that existed with the same text
          for (const section of diff.sections)
            expect(section.removed ? !sections.has(section.name) : sections.get(section.name) === section.text).toBe(true);
        }
        expect(new Map(Object.entries(state.sections))).toEqual(sections);
        expect(new Map(Object.entries(state.tools))).toEqual(tools);
      }),
      { numRuns: 300 },
    );
  });
});

import { describe, expect, it } from "vitest";
import { agentKeyOf, parseAgentDefinition, toolList } from "./agent-definition.ts";

const file = { source: "project" as const, path: "/p/.pi/agents/scout.md" };

describe("parseAgentDefinition", () => {
  it("reads name, description, tools, model, thinking and the body as the system prompt", () => {
    const parsed = parseAgentDefinition(
      "---\nname: scout\ndescription: Fast recon\ntools: read, grep , find,read\nmodel: claude-haiku-4-5\nthinking: low\n---\n\nYou are a scout.\n",
      file,
    );
    expect(parsed).toEqual({
      ok: true,
      definition: {
        key: "project:/p/.pi/agents/scout.md#scout",
        name: "scout",
        description: "Fast recon",
        source: "project",
        path: "/p/.pi/agents/scout.md",
        model: "claude-haiku-4-5",
        thinking: "low",
        tools: ["read", "grep", "find"],
        systemPrompt: "You are a scout.",
      },
    });
  });

  it('defaults model and thinking to "" and tools to [] (the child runtime\'s defaults)', () => {
    const parsed = parseAgentDefinition("---\nname: a\ndescription: b\n---\nbody", file);
    expect(parsed.ok && parsed.definition).toMatchObject({ model: "", thinking: "", tools: [] });
  });

  it("requires a name and a description, as pi's example does", () => {
    expect(parseAgentDefinition("---\ndescription: b\n---\n", file)).toEqual({ ok: false, reason: "missing name in frontmatter" });
    expect(parseAgentDefinition("---\nname: a\n---\n", file)).toEqual({ ok: false, reason: "missing description in frontmatter" });
    expect(parseAgentDefinition("just text", file).ok).toBe(false);
  });
});

describe("agent keys and tool lists", () => {
  it("keys join source, canonical path and name", () => {
    expect(agentKeyOf("user", "/home/u/.pi/agent/agents/a#b.md", "x")).toBe("user:/home/u/.pi/agent/agents/a#b.md#x");
  });

  it("tool lists accept YAML lists and comma lists, without blanks or repeats", () => {
    expect(toolList(["read", "grep, find", " ", "read"])).toEqual(["read", "grep", "find"]);
    expect(toolList(undefined)).toEqual([]);
  });
});

import { describe, expect, it } from "vitest";
import { MAX_SOURCES_PER_RESULT } from "../research/source-ledger.ts";
import { isReservedAgentName, RESEARCHER_AGENT, RESEARCHER_AGENT_NAME, RESEARCHER_SYSTEM_PROMPT } from "./researcher-agent.ts";

describe("the researcher agent", () => {
  it("is named researcher, excludes write and edit, keeps bash read-only and inherits the parent model", () => {
    expect(RESEARCHER_AGENT_NAME).toBe("researcher");
    expect(RESEARCHER_AGENT).toMatchObject({ name: "researcher", source: "builtin", bash: "read-only", inheritsParentModel: true });
    expect([...RESEARCHER_AGENT.excludeTools].sort()).toEqual(["edit", "write"]);
  });

  it("its prompt forbids file changes, limits bash, and asks for one research_result block of at most 20 sources", () => {
    const prompt = RESEARCHER_SYSTEM_PROMPT;
    expect(prompt).toContain("Do not change any file");
    expect(prompt).toMatch(/create, modify, move, rename or delete/);
    expect(prompt).toMatch(/Use bash only to run command-line tools/);
    expect(prompt).toContain("exactly one block");
    expect(prompt).toContain(`at most ${MAX_SOURCES_PER_RESULT}`);
    expect(MAX_SOURCES_PER_RESULT).toBe(20);
    for (const field of [
      "threadId",
      "title",
      "summary",
      "sources",
      "url",
      "path",
      "publisher",
      "publishedAt",
      "kind",
      "claim",
      "evidence",
    ]) {
      expect(prompt).toContain(`"${field}"`);
    }
  });

  it("its example block is valid JSON with the spec's fields", () => {
    const match = /<research_result>([\s\S]*?)<\/research_result>/.exec(RESEARCHER_SYSTEM_PROMPT);
    expect(match).not.toBeNull();
    const example = JSON.parse(match?.[1] ?? "") as { threadId: string; sources: Record<string, unknown>[] };
    expect(Object.keys(example)).toEqual(["threadId", "title", "summary", "sources"]);
    expect(Object.keys(example.sources[0] ?? {})).toEqual(["url", "title", "publisher", "publishedAt", "kind", "claim", "evidence"]);
    expect(RESEARCHER_SYSTEM_PROMPT.match(/<research_result>/g)).toHaveLength(1);
  });

  it("reserves exactly the name researcher", () => {
    expect(isReservedAgentName("researcher")).toBe(true);
    expect(isReservedAgentName(" researcher ")).toBe(true);
    expect(isReservedAgentName("researcher-2")).toBe(false);
  });
});

import { describe, expect, it } from "vitest";
import type { SessionEntry } from "../session-log.ts";
import { focusTargetOf, indexableText, MAX_DOCUMENT_CHARS, searchDocumentsOf } from "./search-documents.ts";

const base = { id: "e1", parentId: null, timestamp: "2025-01-02T03:04:05.000Z" };
const entry = (value: Record<string, unknown>): SessionEntry => ({ ...base, ...value }) as unknown as SessionEntry;
const message = (value: Record<string, unknown>): SessionEntry => entry({ type: "message", message: value });

describe("searchDocumentsOf", () => {
  it("takes user and assistant text, not thinking; tool calls by name and short arguments", () => {
    expect(searchDocumentsOf(message({ role: "user", content: "plain prompt" }))).toEqual([
      { entryId: "e1", kind: "user", timestamp: base.timestamp, toolCallId: "", text: "plain prompt" },
    ]);
    const assistant = message({
      role: "assistant",
      content: [
        { type: "thinking", thinking: "secret musing" },
        { type: "text", text: "first" },
        { type: "toolCall", id: "c1", name: "bash", arguments: { command: "npm test", content: "x".repeat(5000) } },
        { type: "text", text: "second" },
        { type: "toolCall", id: "c2", name: "write", arguments: { path: "src/a.ts", content: "body text" } },
      ],
    });
    expect(searchDocumentsOf(assistant).map((d) => [d.kind, d.toolCallId, d.text])).toEqual([
      ["assistant", "", "first\nsecond"],
      ["toolCall", "c1", "bash\nnpm test"],
      ["toolCall", "c2", "write\nsrc/a.ts"],
    ]);
  });

  it("takes tool results, `!` commands, summaries and displayed custom messages", () => {
    expect(searchDocumentsOf(message({ role: "toolResult", toolCallId: "c1", content: [{ type: "text", text: "ok 3 tests" }] }))).toEqual([
      { entryId: "e1", kind: "toolResult", timestamp: base.timestamp, toolCallId: "c1", text: "ok 3 tests" },
    ]);
    expect(searchDocumentsOf(message({ role: "bashExecution", command: "ls", output: "a.txt" }))[0]?.text).toBe("ls\na.txt");
    expect(searchDocumentsOf(entry({ type: "compaction", summary: "we did X" }))[0]?.kind).toBe("compaction");
    expect(searchDocumentsOf(entry({ type: "branch_summary", summary: "tried Y" }))[0]?.kind).toBe("branchSummary");
    expect(searchDocumentsOf(entry({ type: "custom_message", customType: "n", content: "shown", display: true }))[0]?.text).toBe("shown");
    expect(searchDocumentsOf(entry({ type: "custom_message", customType: "n", content: "hidden", display: false }))).toEqual([]);
    expect(searchDocumentsOf(message({ role: "custom", content: "hook", display: false }))).toEqual([]);
  });

  it("gives nothing for entries without text a person searches for, empty texts and odd shapes", () => {
    for (const value of [
      entry({ type: "model_change", provider: "p", modelId: "m" }),
      entry({ type: "label", targetId: "x", label: "name" }),
      entry({ type: "session_info", name: "n" }),
      entry({ type: "custom", customType: "state", data: { text: "no" } }),
      message({ role: "user", content: "   " }),
      message({ role: "user", content: 42 }),
      entry({ type: "message", message: null }),
      { ...base, id: undefined, type: "message", message: { role: "user", content: "no id" } } as unknown as SessionEntry,
    ]) {
      expect(searchDocumentsOf(value)).toEqual([]);
    }
  });

  it("cuts long texts, never inside a surrogate pair", () => {
    expect(indexableText("a\u0001b")).toBe("a\u0001b");
    expect(indexableText("x".repeat(MAX_DOCUMENT_CHARS + 10))).toHaveLength(MAX_DOCUMENT_CHARS);
    const pair = "x".repeat(MAX_DOCUMENT_CHARS - 1) + "🎉";
    expect(indexableText(pair)).toHaveLength(MAX_DOCUMENT_CHARS - 1);
  });
});

describe("focusTargetOf", () => {
  it("is the transcript's tool row for a tool call, else the session entry", () => {
    expect(focusTargetOf({ entryId: "a1", role: "toolCall", toolCallId: "c1" })).toBe("a1:c1");
    expect(focusTargetOf({ entryId: "r1", role: "toolResult", toolCallId: "c1" })).toBe("r1");
    expect(focusTargetOf({ entryId: "u1", role: "user" })).toBe("u1");
  });
});

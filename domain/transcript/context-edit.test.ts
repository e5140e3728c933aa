import { describe, expect, it } from "vitest";
import type { SessionEntry } from "../session-log.ts";
import { buildTranscript, transcriptEntries, transcriptOfPath } from "./transcript-builder.ts";
import type { MessageTranscriptEntry, ToolTranscriptEntry, UsageTranscriptEntry } from "./transcript-types.ts";

// Shapes as pi 1.6 writes them: an auto-retry omits the failed assistant message and its tool results.
const usage = {
  input: 10,
  output: 5,
  cacheRead: 100,
  cacheWrite: 0,
  totalTokens: 115,
  cost: { input: 0.001, output: 0.002, cacheRead: 0.0001, cacheWrite: 0, total: 0.0031 },
};
const user = (id: string, text: string) => ({
  id,
  type: "message",
  message: { role: "user", content: [{ type: "text", text }], timestamp: 1 },
});
const assistant = (id: string, content: unknown[], stopReason = "stop") => ({
  id,
  type: "message",
  message: { role: "assistant", content, api: "faux", provider: "faux", model: "faux-1", usage, stopReason, timestamp: 2 },
});
const toolResult = (id: string, callId: string, text: string) => ({
  id,
  type: "message",
  message: { role: "toolResult", toolCallId: callId, toolName: "read", content: [{ type: "text", text }], isError: false, timestamp: 3 },
});
const edit = (id: string, targetId: string, replacement: unknown) => ({ id, type: "context_edit", targetId, replacement });

function chain(bodies: Record<string, unknown>[]): SessionEntry[] {
  let parentId: string | null = null;
  return bodies.map((body, index) => {
    const entry = { parentId, timestamp: `2026-11-30T10:00:0${index % 10}.000Z`, ...body } as unknown as SessionEntry;
    parentId = entry.id;
    return entry;
  });
}

describe("context_edit entries in the transcript", () => {
  it("shows an omitted assistant attempt and its tool calls as the model sees them, with the originals kept", () => {
    const entries = transcriptOfPath(
      chain([
        user("u1", "read it"),
        assistant(
          "a1",
          [
            { type: "text", text: "Reading." },
            { type: "toolCall", id: "c1", name: "read", arguments: { path: "x" } },
          ],
          "toolUse",
        ),
        toolResult("r1", "c1", "file text"),
        assistant("a2", [], "error"),
        edit("x1", "a1", null),
        edit("x2", "r1", null),
        assistant("a3", [{ type: "text", text: "Done." }]),
      ]),
    );
    const attempt = entries.find((entry) => entry.id === "a1") as MessageTranscriptEntry;
    expect(attempt).toMatchObject({
      text: "",
      blocks: [],
      copyText: "",
      contextEdit: { editId: "x1", kind: "omitted", original: { text: "Reading." } },
    });
    const tool = entries.find((entry) => entry.type === "tool") as ToolTranscriptEntry;
    expect(tool).toMatchObject({
      resultEntryId: "r1",
      resultText: "",
      contextEdit: { editId: "x2", kind: "omitted", original: { text: "file text", blocks: [] } },
    });
    expect((entries.at(-1) as MessageTranscriptEntry).contextEdit).toBeUndefined();
  });

  it("shows a replacement in place of the content, and the latest edit of a target wins over the first original", () => {
    const entries = transcriptOfPath(
      chain([
        user("u1", "a very long pasted log"),
        edit("x1", "u1", { content: "[log elided]" }),
        edit("x2", "u1", { content: [{ type: "text", text: "[log summarised]" }] }),
      ]),
    );
    expect(entries[0]).toMatchObject({
      text: "[log summarised]",
      blocks: [{ type: "text", text: "[log summarised]" }],
      contextEdit: { editId: "x2", kind: "replaced", original: { text: "a very long pasted log" } },
    });
  });

  it("counts an edit whose target is not on the path, or whose shape is unusable, as an anomaly and changes nothing", () => {
    const state = buildTranscript(
      chain([user("u1", "hi"), edit("x1", "elsewhere", null), { id: "x2", type: "context_edit", targetId: "u1" }]),
    );
    expect(state.anomalies).toBe(2);
    expect(transcriptEntries(state)).toEqual(transcriptOfPath(chain([user("u1", "hi")])));
  });
});

describe("usage entries in the transcript", () => {
  it("shows model work outside the conversation as a usage entry, not a message", () => {
    const entries = transcriptOfPath(
      chain([
        user("u1", "hi"),
        { id: "w1", type: "usage", kind: "cache_warm", provider: "anthropic", model: "claude-x", usage, note: "extension override" },
      ]),
    );
    expect(entries.map((entry) => entry.type)).toEqual(["message", "usage"]);
    expect(entries[1] as UsageTranscriptEntry).toMatchObject({
      kind: "cache_warm",
      provider: "anthropic",
      model: "claude-x",
      note: "extension override",
      usage: { input: 10, cacheRead: 100, cost: { total: 0.0031 } },
      copyText: "cache_warm · anthropic/claude-x · 115 tokens · $0.0031",
    });
  });

  it("skips a usage entry without a kind or usage (an anomaly)", () => {
    const state = buildTranscript(
      chain([
        { id: "w1", type: "usage", provider: "p", model: "m", usage },
        { id: "w2", type: "usage", kind: "cache_warm" },
      ]),
    );
    expect(state.anomalies).toBe(2);
    expect(state.entries.length).toBe(0);
  });
});

import { describe, it, expect } from "vitest";
import type { SessionEntry } from "../session-log.ts";
import { transcriptOfPath, buildTranscript, TRANSCRIPT_CHUNK_SIZE, transcriptEntryAt, transcriptLength } from "./transcript-builder.ts";
import type { TranscriptEntry, ToolTranscriptEntry } from "./transcript-types.ts";

// Shapes copied from test/fixtures/pi-sessions (v1 files migrated to v3 ids).
const usage = {
  input: 2775,
  output: 141,
  cacheRead: 0,
  cacheWrite: 0,
  totalTokens: 2916,
  cost: { input: 0.013875, output: 0.003525, cacheRead: 0, cacheWrite: 0, total: 0.0174 },
};

let counter = 0;
function chain(bodies: Record<string, unknown>[]): SessionEntry[] {
  let parentId: string | null = null;
  return bodies.map((body) => {
    const id = `e${(counter++).toString(16).padStart(7, "0")}`;
    const entry = { id, parentId, timestamp: `2025-12-08T22:41:0${counter % 10}.306Z`, ...body } as SessionEntry;
    parentId = id;
    return entry;
  });
}

const user = (text: string) => ({
  type: "message",
  message: { role: "user", content: [{ type: "text", text }], timestamp: 1765233665292 },
});
const assistant = (content: unknown[], extra: Record<string, unknown> = {}) => ({
  type: "message",
  message: {
    role: "assistant",
    content,
    api: "anthropic-messages",
    provider: "anthropic",
    model: "claude-opus-4-5",
    usage,
    stopReason: "toolUse",
    timestamp: 1765233665294,
    ...extra,
  },
});
const call = (id: string, name: string, args: Record<string, unknown>) => ({ type: "toolCall", id, name, arguments: args });
const result = (toolCallId: string, toolName: string, text: string, extra: Record<string, unknown> = {}) => ({
  type: "message",
  message: {
    role: "toolResult",
    toolCallId,
    toolName,
    content: [{ type: "text", text }],
    isError: false,
    timestamp: 1765234562153,
    ...extra,
  },
});

const tools = (entries: TranscriptEntry[]): ToolTranscriptEntry[] => entries.filter((e): e is ToolTranscriptEntry => e.type === "tool");

describe("message entries", () => {
  it("maps a user message with text and image blocks", () => {
    const [entry] = chain([
      {
        type: "message",
        message: {
          role: "user",
          content: [
            { type: "text", text: "look" },
            { type: "image", mimeType: "image/png", data: "iVBOR" },
            { type: "text", text: "here" },
          ],
          timestamp: 5,
        },
      },
    ]);
    const [mapped] = transcriptOfPath([entry as SessionEntry]);
    expect(mapped).toEqual({
      id: entry?.id,
      timestamp: entry?.timestamp,
      rolloutFeedback: "",
      rolloutFeedbackText: "",
      type: "message",
      role: "user",
      text: "look\nhere",
      blocks: [
        { type: "text", text: "look" },
        { type: "image", mimeType: "image/png", data: "iVBOR" },
        { type: "text", text: "here" },
      ],
      copyText: "look\nhere",
      messageTimestamp: 5,
    });
  });

  it("maps a string user content as one text block", () => {
    const mapped = transcriptOfPath(chain([{ type: "message", message: { role: "user", content: "hi", timestamp: 1 } }]));
    expect(mapped[0]).toMatchObject({ role: "user", text: "hi", blocks: [{ type: "text", text: "hi" }] });
  });

  it("maps an assistant message: text and thinking blocks, model, usage, stop reason", () => {
    const mapped = transcriptOfPath(
      chain([
        assistant(
          [
            { type: "thinking", thinking: "plan", thinkingSignature: "sig" },
            { type: "thinking", thinking: "", redacted: true },
            { type: "text", text: "Now I have a complete picture." },
          ],
          { stopReason: "stop" },
        ),
      ]),
    );
    expect(mapped).toHaveLength(1);
    expect(mapped[0]).toMatchObject({
      type: "message",
      role: "assistant",
      text: "Now I have a complete picture.",
      copyText: "Now I have a complete picture.",
      blocks: [
        { type: "thinking", text: "plan" },
        { type: "thinking", text: "", redacted: true },
        { type: "text", text: "Now I have a complete picture." },
      ],
      provider: "anthropic",
      model: "claude-opus-4-5",
      stopReason: "stop",
      usage,
      messageTimestamp: 1765233665294,
    });
    expect(mapped[0]).not.toHaveProperty("errorMessage");
  });

  it("keeps aborted and empty errored assistant messages, with the error message", () => {
    const mapped = transcriptOfPath(
      chain([
        assistant([{ type: "thinking", thinking: "The user wants me to", thinkingSignature: "" }], { stopReason: "aborted" }),
        assistant([], { stopReason: "error", errorMessage: '400 {"type":"error"}' }),
      ]),
    );
    expect(mapped.map((e) => e.type === "message" && e.role === "assistant" && e.stopReason)).toEqual(["aborted", "error"]);
    expect(mapped[1]).toMatchObject({ text: "", blocks: [], errorMessage: '400 {"type":"error"}' });
  });

  it("maps custom_message entries and custom-role messages as role custom", () => {
    const [a, b] = chain([
      { type: "custom_message", customType: "notice", content: [{ type: "text", text: "build ok" }], display: false },
      { type: "message", message: { role: "custom", customType: "note", content: "remember", display: true, timestamp: 7 } },
    ]);
    const mapped = transcriptOfPath([a as SessionEntry, b as SessionEntry]);
    expect(mapped[0]).toMatchObject({
      type: "message",
      role: "custom",
      customType: "notice",
      display: false,
      text: "build ok",
      messageTimestamp: Date.parse(a?.timestamp ?? ""),
    });
    expect(mapped[1]).toMatchObject({
      type: "message",
      role: "custom",
      customType: "note",
      display: true,
      text: "remember",
      messageTimestamp: 7,
    });
  });

  it("maps a system-role message: string content is the text, arrays contribute nothing", () => {
    const mapped = transcriptOfPath(
      chain([
        { type: "message", message: { role: "system", content: "You are helpful.", timestamp: 9 } },
        { type: "message", message: { role: "system", content: [{ type: "text", text: "ignored" }] } },
      ]),
    );
    expect(mapped[0]).toMatchObject({
      type: "system",
      label: "System",
      text: "You are helpful.",
      messageTimestamp: 9,
      sections: [],
      toolsAdded: [],
      toolsRemoved: [],
    });
    expect(mapped[0]).not.toHaveProperty("role");
    expect(mapped[0]).not.toHaveProperty("copyText");
    expect(mapped[1]).toMatchObject({ type: "system", text: "" });
    expect(mapped[1]).not.toHaveProperty("messageTimestamp");
  });
});

describe("other entry kinds", () => {
  it("maps bashExecution, model, thinking level, compaction and branch summary entries", () => {
    const entries = chain([
      {
        type: "message",
        message: {
          role: "bashExecution",
          command: "ls",
          output: "AGENTS.md\n",
          exitCode: 0,
          cancelled: false,
          truncated: false,
          timestamp: 1765238302057,
        },
      },
      {
        type: "message",
        message: {
          role: "bashExecution",
          command: "sleep 9",
          output: "",
          exitCode: undefined,
          cancelled: true,
          truncated: true,
          excludeFromContext: true,
          fullOutputPath: "/tmp/out",
          timestamp: 2,
        },
      },
      { type: "model_change", provider: "anthropic", modelId: "claude-3-opus-20240229" },
      { type: "thinking_level_change", thinkingLevel: "minimal" },
      { type: "compaction", summary: "# Context Checkpoint", firstKeptEntryId: "e0000001", tokensBefore: 151234 },
      { type: "branch_summary", fromId: "root", summary: "tried X", fromHook: true },
    ]);
    const mapped = transcriptOfPath(entries);
    expect(mapped.map((e) => e.type)).toEqual(["bash", "bash", "model_change", "thinking_level_change", "compaction", "branch_summary"]);
    expect(mapped[0]).toMatchObject({
      command: "ls",
      output: "AGENTS.md\n",
      exitCode: 0,
      cancelled: false,
      truncated: false,
      excludeFromContext: false,
      copyText: "$ ls\nAGENTS.md\n",
    });
    expect(mapped[1]).toMatchObject({
      exitCode: null,
      cancelled: true,
      truncated: true,
      excludeFromContext: true,
      fullOutputPath: "/tmp/out",
    });
    expect(mapped[2]).toMatchObject({ provider: "anthropic", modelId: "claude-3-opus-20240229" });
    expect(mapped[3]).toMatchObject({ thinkingLevel: "minimal" });
    expect(mapped[4]).toMatchObject({
      summary: "# Context Checkpoint",
      tokensBefore: 151234,
      firstKeptEntryId: "e0000001",
      fromHook: false,
    });
    expect(mapped[5]).toMatchObject({ summary: "tried X", fromId: "root", fromHook: true });
    mapped.forEach((m, i) =>
      expect(m).toMatchObject({ id: entries[i]?.id, timestamp: entries[i]?.timestamp, rolloutFeedback: "", rolloutFeedbackText: "" }),
    );
  });

  it("skips labels, session_info, other custom entries, unknown types and unusable messages", () => {
    const state = buildTranscript(
      chain([
        { type: "label", targetId: "x", label: "mark" },
        { type: "session_info", name: "n" },
        { type: "custom", customType: "todo", data: { a: 1 } },
        { type: "x_future_entry", payload: 1 },
        { type: "message", message: { role: "branchSummary", summary: "s", fromId: "a", timestamp: 1 } },
        { type: "message" },
      ]),
    );
    expect(state.entries.length).toBe(0);
    expect(state.anomalies).toBe(1);
  });
});

describe("tool pairing", () => {
  it("pairs results with their calls after the assistant message, in call order", () => {
    const entries = chain([
      user("read both"),
      assistant([call("toolu_a", "read", { path: "/src/main.ts" }), call("toolu_b", "read", { path: "/src/tui.ts" })]),
      result("toolu_b", "read", "tui source"),
      result("toolu_a", "read", "main source"),
    ]);
    const mapped = transcriptOfPath(entries);
    expect(mapped.map((e) => e.type)).toEqual(["message", "message", "tool", "tool"]);
    const [a, b] = tools(mapped);
    expect(a).toMatchObject({
      id: `${entries[1]?.id}:toolu_a`,
      timestamp: entries[1]?.timestamp,
      toolCallId: "toolu_a",
      name: "read",
      arguments: { path: "/src/main.ts" },
      status: "done",
      resultText: "main source",
      isError: false,
      callEntryId: entries[1]?.id,
      resultEntryId: entries[3]?.id,
      resultTimestamp: entries[3]?.timestamp,
      resultMessageTimestamp: 1765234562153,
      copyText: "main source",
    });
    expect(b).toMatchObject({ status: "done", resultText: "tui source", resultEntryId: entries[2]?.id });
    expect(a).not.toHaveProperty("file");
  });

  it("marks an error result, keeps result images and details", () => {
    const mapped = transcriptOfPath(
      chain([
        assistant([call("toolu_e", "edit", { path: "src/core/index.ts", edits: [{ oldText: "a", newText: "b" }] })]),
        result("toolu_e", "edit", "Could not find the exact text in src/core/index.ts.", { isError: true, details: {} }),
      ]),
    );
    expect(tools(mapped)[0]).toMatchObject({ status: "error", isError: true, details: {}, file: "src/core/index.ts", resultImages: [] });
    const withImage = transcriptOfPath(
      chain([
        assistant([call("t1", "read", { path: "a.png" })]),
        {
          type: "message",
          message: {
            role: "toolResult",
            toolCallId: "t1",
            toolName: "read",
            content: [
              { type: "text", text: "Read image" },
              { type: "image", mimeType: "image/png", data: "AAAA" },
            ],
            isError: false,
            timestamp: 3,
          },
        },
      ]),
    );
    expect(tools(withImage)[0]).toMatchObject({
      resultText: "Read image",
      resultImages: [{ type: "image", mimeType: "image/png", data: "AAAA" }],
    });
  });

  it("surfaces the edit diff from details and the file from arguments", () => {
    const diff = "   83   get state(): AgentState;\n-  87   get messages(): Message[];\n+  87   get messages(): AppMessage[];";
    const mapped = transcriptOfPath(
      chain([
        assistant([
          call("toolu_d", "edit", { path: "docs/refactor.md", edits: [] }),
          call("toolu_w", "write", { path: "docs/plan.md", content: "# Plan" }),
          call("toolu_p", "apply_patch", { patch: "*** Begin Patch" }),
        ]),
        result("toolu_d", "edit", "Successfully replaced text in docs/refactor.md.", { details: { diff, firstChangedLine: 87 } }),
        result("toolu_w", "write", "Successfully wrote 6 bytes to docs/plan.md"),
      ]),
    );
    const [edit, write, patch] = tools(mapped);
    expect(edit).toMatchObject({ file: "docs/refactor.md", diff, details: { diff, firstChangedLine: 87 }, status: "done" });
    expect(write).toMatchObject({ file: "docs/plan.md", status: "done", details: null });
    expect(write).not.toHaveProperty("diff");
    expect(patch).toMatchObject({ patch: "*** Begin Patch", status: "pending" });
  });

  it("leaves a call without a result pending", () => {
    const mapped = transcriptOfPath(chain([assistant([call("toolu_x", "bash", { command: "npm test" })], { stopReason: "aborted" })]));
    expect(tools(mapped)[0]).toMatchObject({ status: "pending", resultText: "", resultEntryId: null, details: null, copyText: "bash" });
  });

  it("shows a result whose call is not on the branch as an orphan tool entry", () => {
    const entries = chain([user("hi"), result("toolu_gone", "bash", "Switched to a new branch 'refactor'\n")]);
    const mapped = transcriptOfPath(entries);
    expect(mapped[1]).toMatchObject({
      type: "tool",
      id: entries[1]?.id,
      toolCallId: "toolu_gone",
      name: "bash",
      arguments: {},
      status: "done",
      resultText: "Switched to a new branch 'refactor'\n",
      callEntryId: null,
      resultEntryId: entries[1]?.id,
    });
  });

  it("treats a second result for an answered call as an orphan", () => {
    const mapped = transcriptOfPath(chain([assistant([call("c1", "read", {})]), result("c1", "read", "one"), result("c1", "read", "two")]));
    expect(tools(mapped).map((t) => [t.callEntryId === null, t.resultText])).toEqual([
      [false, "one"],
      [true, "two"],
    ]);
  });

  it("pairs across chunk boundaries", () => {
    const fillers = Array.from({ length: TRANSCRIPT_CHUNK_SIZE - 1 }, (_, i) => user(`u${i}`));
    const state = buildTranscript(
      chain([...fillers, assistant([call("c1", "read", {}), call("c2", "read", {})]), result("c2", "read", "second")]),
    );
    expect(transcriptLength(state)).toBe(TRANSCRIPT_CHUNK_SIZE + 2);
    expect(state.entries.chunks.map((c) => c.length)).toEqual([TRANSCRIPT_CHUNK_SIZE, 2]);
    expect(transcriptEntryAt(state, TRANSCRIPT_CHUNK_SIZE + 1)).toMatchObject({ toolCallId: "c2", status: "done" });
    expect(transcriptEntryAt(state, TRANSCRIPT_CHUNK_SIZE)).toMatchObject({ toolCallId: "c1", status: "pending" });
    expect(state.pendingToolIndexByCallId).toEqual({ c1: TRANSCRIPT_CHUNK_SIZE });
  });
});

/**
 * Test support for the transcript: TranscriptEntry builders for every entry type, and a synthetic transcript
 * of any length that cycles through them (user prompt, assistant with thinking, tool call with a diff, …).
 */
import type {
  AssistantMessageTranscriptEntry,
  BashTranscriptEntry,
  ToolTranscriptEntry,
  TranscriptEntry,
  UserMessageTranscriptEntry,
} from "../../../../domain/transcript/transcript-types.ts";

const BASE_TIME = Date.UTC(2026, 10, 30, 9, 0, 0);

function base(id: string, index: number) {
  return { id, timestamp: new Date(BASE_TIME + index * 1000).toISOString(), rolloutFeedback: "" as const, rolloutFeedbackText: "" };
}

const USAGE = {
  input: 10,
  output: 20,
  cacheRead: 0,
  cacheWrite: 0,
  totalTokens: 30,
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
};

export function userEntry(id: string, text: string, index = 0): UserMessageTranscriptEntry {
  return {
    ...base(id, index),
    type: "message",
    role: "user",
    text,
    blocks: [{ type: "text", text }],
    copyText: text,
    messageTimestamp: BASE_TIME + index * 1000,
  };
}

export function assistantEntry(id: string, text: string, thinking: string | null, index = 0): AssistantMessageTranscriptEntry {
  return {
    ...base(id, index),
    type: "message",
    role: "assistant",
    text,
    blocks: [...(thinking === null ? [] : [{ type: "thinking" as const, text: thinking }]), { type: "text" as const, text }],
    copyText: text,
    messageTimestamp: BASE_TIME + index * 1000,
    provider: "faux",
    model: "faux-1",
    stopReason: "stop",
    usage: USAGE,
  };
}

export function toolEntry(
  callEntryId: string,
  callId: string,
  overrides: Partial<ToolTranscriptEntry> = {},
  index = 0,
): ToolTranscriptEntry {
  return {
    ...base(`${callEntryId}:${callId}`, index),
    type: "tool",
    toolCallId: callId,
    name: "edit",
    arguments: { path: "src/app.ts", oldText: "a", newText: "b" },
    status: "done",
    resultText: "Edited src/app.ts",
    resultImages: [],
    details: null,
    isError: false,
    callEntryId,
    resultEntryId: `${callEntryId}-result`,
    file: "src/app.ts",
    diff: "--- a/src/app.ts\n+++ b/src/app.ts\n@@ -1,2 +1,2 @@\n-const a = 1;\n+const a = 2;\n unchanged();",
    copyText: "Edited src/app.ts",
    ...overrides,
  };
}

export function bashEntry(id: string, command: string, output: string, exitCode: number | null, index = 0): BashTranscriptEntry {
  return {
    ...base(id, index),
    type: "bash",
    command,
    output,
    exitCode,
    cancelled: false,
    truncated: false,
    excludeFromContext: false,
    messageTimestamp: BASE_TIME + index * 1000,
    copyText: `$ ${command}\n${output}`,
  };
}

/** One of each entry type (ids e0…e9), in a plausible order. */
export function everyEntryType(): TranscriptEntry[] {
  return [
    {
      ...base("e0", 0),
      id: "e0",
      type: "system",
      label: "System",
      code: "tools added: read",
      sections: [],
      toolsAdded: [{ name: "read", description: "Read a file" }],
      toolsRemoved: [],
      text: "Tools added: read",
    },
    { ...base("e1", 1), type: "model_change", provider: "faux", modelId: "faux-1", copyText: "Model: faux/faux-1" },
    { ...base("e2", 2), type: "thinking_level_change", thinkingLevel: "high", copyText: "Thinking: high" },
    userEntry("e3", "Fix the **bug**", 3),
    assistantEntry("e4", "Done. See `app.ts`.", "The bug is an off-by-one.", 4),
    toolEntry("e4", "call-1", {}, 4),
    bashEntry("e5", "npm test", "1 passed", 0, 5),
    {
      ...base("e6", 6),
      type: "compaction",
      summary: "Earlier: fixed a bug.",
      tokensBefore: 12345,
      firstKeptEntryId: "e3",
      fromHook: false,
      copyText: "Earlier: fixed a bug.",
    },
    {
      ...base("e7", 7),
      type: "branch_summary",
      summary: "Tried another approach.",
      fromId: "e4",
      fromHook: false,
      copyText: "Tried another approach.",
    },
    {
      ...base("e8", 8),
      type: "message",
      role: "custom",
      customType: "note",
      display: true,
      text: "A note",
      blocks: [{ type: "text", text: "A note" }],
      copyText: "A note",
      messageTimestamp: BASE_TIME,
    },
    {
      ...base("e9", 9),
      type: "message",
      role: "custom",
      customType: "hidden",
      display: false,
      text: "hidden",
      blocks: [],
      copyText: "hidden",
      messageTimestamp: BASE_TIME,
    },
  ];
}

/** `count` entries cycling user → assistant (with thinking) → tool → bash, ids `n0`…. */
export function syntheticTranscript(count: number): TranscriptEntry[] {
  const entries: TranscriptEntry[] = [];
  for (let i = 0; i < count; i++) {
    const id = `n${i}`;
    switch (i % 4) {
      case 0:
        entries.push(userEntry(id, `Prompt number ${i}: please look at item ${i}.`, i));
        break;
      case 1:
        entries.push(
          assistantEntry(id, `Answer ${i}.\n\n- point one\n- point two\n\n\`\`\`ts\nconst n = ${i};\n\`\`\``, `Reasoning about ${i}`, i),
        );
        break;
      case 2:
        entries.push({ ...toolEntry(`n${i - 1}`, `c${i}`, {}, i), id });
        break;
      default:
        entries.push(bashEntry(id, `echo ${i}`, String(i), 0, i));
    }
  }
  return entries;
}

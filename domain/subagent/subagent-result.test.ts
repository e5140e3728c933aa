import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { SessionEntry } from "../session-log.ts";
import { summarizeSubagentBranch } from "./subagent-result.ts";

let counter = 0;
function message(message: unknown): SessionEntry {
  counter += 1;
  return { type: "message", id: `m${counter}`, parentId: null, timestamp: "2025-01-01T00:00:00.000Z", message } as SessionEntry;
}

function assistant(
  text: string,
  usage: { input: number; output: number; total: number; cost: number },
  extra: Record<string, unknown> = {},
): SessionEntry {
  return message({
    role: "assistant",
    content: [
      { type: "thinking", thinking: "hmm" },
      { type: "text", text },
      { type: "toolCall", id: "c", name: "bash", arguments: {} },
    ],
    provider: "faux",
    model: "faux-1",
    api: "faux",
    usage: {
      input: usage.input,
      output: usage.output,
      cacheRead: 3,
      cacheWrite: 1,
      totalTokens: usage.total,
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: usage.cost },
    },
    stopReason: "stop",
    timestamp: 1,
    ...extra,
  });
}

describe("summarizeSubagentBranch", () => {
  it("collects user and assistant texts in order, sums usage over assistant messages (cache tokens count as input), reports the last stop", () => {
    const branch: SessionEntry[] = [
      { type: "model_change", id: "x", parentId: null, timestamp: "2025-01-01T00:00:00.000Z", provider: "faux", modelId: "faux-1" },
      message({ role: "user", content: "Do the task", timestamp: 1 }),
      assistant("Looking", { input: 10, output: 5, total: 19, cost: 0.5 }, { stopReason: "toolUse" }),
      message({
        role: "toolResult",
        toolCallId: "c",
        toolName: "bash",
        content: [{ type: "text", text: "out" }],
        isError: false,
        timestamp: 1,
      }),
      assistant("Done", { input: 20, output: 7, total: 31, cost: 0.25 }, { provider: "faux", model: "faux-2" }),
    ];
    expect(summarizeSubagentBranch(branch)).toEqual({
      messages: [
        { role: "user", content: "Do the task" },
        { role: "assistant", content: "Looking" },
        { role: "assistant", content: "Done" },
      ],
      usage: { inputTokens: 38, outputTokens: 12, totalTokens: 50, cost: 0.75, turns: 2 },
      stopReason: "stop",
      model: "faux/faux-2",
    });
  });

  it("reports the error message of a failed last turn", () => {
    const summary = summarizeSubagentBranch([
      message({
        role: "user",
        content: [
          { type: "text", text: "a" },
          { type: "image", data: "x", mimeType: "image/png" },
          { type: "text", text: "b" },
        ],
      }),
      assistant("", { input: 0, output: 0, total: 0, cost: 0 }, { stopReason: "error", errorMessage: "No scripted reply" }),
    ]);
    expect(summary.messages[0]).toEqual({ role: "user", content: "a\nb" });
    expect(summary).toMatchObject({ stopReason: "error", errorMessage: "No scripted reply" });
  });

  it("is empty without messages", () => {
    expect(summarizeSubagentBranch([])).toEqual({
      messages: [],
      usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0, cost: 0, turns: 0 },
    });
  });

  it("never throws and counts every assistant message as a turn, whatever the message data", () => {
    fc.assert(
      fc.property(fc.array(fc.anything()), (payloads) => {
        const summary = summarizeSubagentBranch(payloads.map((payload) => message(payload)));
        const assistants = payloads.filter(
          (p) => typeof p === "object" && p !== null && !Array.isArray(p) && (p as { role?: unknown }).role === "assistant",
        );
        expect(summary.usage.turns).toBe(assistants.length);
        expect(Number.isFinite(summary.usage.cost)).toBe(true);
      }),
    );
  });
});

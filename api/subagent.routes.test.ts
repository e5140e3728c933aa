import { describe, expect, it } from "vitest";
import { HttpError } from "./http-error.ts";
import { parseSubagentBody } from "./subagent.routes.ts";

function errorOf(body: unknown): string {
  try {
    parseSubagentBody(body);
  } catch (error) {
    if (error instanceof HttpError && error.statusCode === 400) return error.message;
    throw error;
  }
  throw new Error("parsed");
}

describe("parseSubagentBody", () => {
  it("reads every field; _toolCallId becomes toolCallId; max runs as xhigh; empty optional strings are absent", () => {
    expect(
      parseSubagentBody({
        task: "T",
        cwd: "/w",
        parentSessionPath: "/s/p.jsonl",
        parentSessionId: "",
        _toolCallId: "call_1",
        model: "openrouter/meta/llama",
        thinkingLevel: "max",
        excludeTools: ["write", "edit"],
        systemPrompt: "Be careful.",
        agent: "researcher",
        readOnlyBash: false,
        unknown: 1,
      }),
    ).toEqual({
      task: "T",
      cwd: "/w",
      parentSessionPath: "/s/p.jsonl",
      toolCallId: "call_1",
      model: { provider: "openrouter", id: "meta/llama" },
      thinkingLevel: "xhigh",
      excludeTools: ["write", "edit"],
      systemPrompt: "Be careful.",
      agent: "researcher",
      readOnlyBash: false,
    });
    expect(parseSubagentBody({ task: "T", cwd: "/w", model: { provider: "faux", id: "faux-1" }, tools: [] })).toEqual({
      task: "T",
      cwd: "/w",
      model: { provider: "faux", id: "faux-1" },
      tools: [],
    });
  });

  it.each([
    [null, "task must be a non-empty string"],
    [[], "Request body must be a JSON object"],
    [{ task: "T", cwd: "/w", tools: ["a"], excludeTools: ["b"] }, "tools and excludeTools cannot be combined"],
    [{ task: "T", cwd: "" }, "cwd must be a non-empty string"],
    [{ task: "T", cwd: "/w", thinkingLevel: "inherit" }, "thinkingLevel must be one of off, minimal, low, medium, high, xhigh, max"],
    [{ task: "T", cwd: "/w", model: 3 }, 'model must be "provider/id" or { provider, id }'],
    [{ task: "T", cwd: "/w", model: "faux/" }, 'model must be "provider/id" or { provider, id }'],
    [{ task: "T", cwd: "/w", excludeTools: [1] }, "excludeTools must be an array of strings"],
    [{ task: "T", cwd: "/w", parentSessionId: 5 }, "parentSessionId must be a string"],
    [{ task: "T", cwd: "/w", readOnlyBash: "yes" }, "readOnlyBash must be a boolean"],
  ])("rejects %j with 400", (body, error) => {
    expect(errorOf(body)).toBe(error);
  });
});

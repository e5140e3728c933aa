import { describe, expect, it } from "vitest";
import { ServiceError } from "../../domain/service-error.ts";
import { subagentRequestOf, type SubagentBody } from "./subagent-request.ts";

function errorOf(body: SubagentBody): string {
  try {
    subagentRequestOf(body);
  } catch (error) {
    if (error instanceof ServiceError && error.code === "invalid_request") return error.message;
    throw error;
  }
  throw new Error("parsed");
}

describe("subagentRequestOf", () => {
  it("reads every field; _toolCallId becomes toolCallId; max runs as xhigh; empty optional strings are absent", () => {
    expect(
      subagentRequestOf({
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
      } as SubagentBody),
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
    expect(subagentRequestOf({ task: "T", cwd: "/w", model: { provider: "faux", id: "faux-1" }, tools: [] })).toEqual({
      task: "T",
      cwd: "/w",
      model: { provider: "faux", id: "faux-1" },
      tools: [],
    });
  });

  it("treats null like absent", () => {
    expect(
      subagentRequestOf({
        task: "T",
        cwd: "/w",
        tools: null,
        excludeTools: ["x"],
        model: null,
        thinkingLevel: null,
        readOnlyBash: null,
        agent: null,
      }),
    ).toEqual({ task: "T", cwd: "/w", excludeTools: ["x"] });
  });

  it.each<[SubagentBody, string]>([
    [{ task: "T", cwd: "/w", tools: ["a"], excludeTools: ["b"] }, "tools and excludeTools cannot be combined"],
    [{ task: "T", cwd: "/w", thinkingLevel: "inherit" }, "thinkingLevel must be one of off, minimal, low, medium, high, xhigh, max"],
    [{ task: "T", cwd: "/w", model: "faux/" }, 'model must be "provider/id" or { provider, id }'],
  ])("rejects %j with invalid_request", (body, error) => {
    expect(errorOf(body)).toBe(error);
  });
});

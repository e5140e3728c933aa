import { describe, expect, it } from "vitest";
import { MAX_PARALLEL_TASKS, subagentPlan } from "./subagent-params.ts";

describe("subagentPlan", () => {
  it("reads the three modes", () => {
    expect(subagentPlan({ agent: "researcher", task: "t1: x", model: "faux/faux-2", thinking: " low " })).toEqual({
      ok: true,
      mode: "single",
      tasks: [{ agent: "researcher", task: "t1: x", model: "faux/faux-2", thinking: "low" }],
    });
    expect(
      subagentPlan({
        tasks: [
          { agent: "a", task: "1" },
          { agent: "b", task: "2", cwd: "/tmp", threadId: "t9" },
        ],
      }),
    ).toEqual({
      ok: true,
      mode: "parallel",
      tasks: [
        { agent: "a", task: "1" },
        { agent: "b", task: "2", cwd: "/tmp", threadId: "t9" },
      ],
    });
    expect(
      subagentPlan({
        chain: [
          { agent: "a", task: "1" },
          { agent: "b", task: "use {previous}" },
        ],
      }),
    ).toMatchObject({ ok: true, mode: "chain" });
  });

  it("refuses no mode, several modes, empty agents or tasks, and too many parallel tasks", () => {
    expect(subagentPlan({})).toMatchObject({ ok: false, error: expect.stringContaining("exactly one mode") as unknown });
    expect(subagentPlan({ agent: "a", task: "x", tasks: [{ agent: "a", task: "y" }] })).toMatchObject({ ok: false });
    expect(subagentPlan({ tasks: [], chain: [] })).toMatchObject({ ok: false });
    expect(subagentPlan({ agent: "a" })).toEqual({ ok: false, error: "Single mode needs a non-empty agent and task" });
    expect(subagentPlan({ tasks: [{ agent: "a", task: " " }] })).toEqual({ ok: false, error: "tasks[0] needs a non-empty agent and task" });
    const many = Array.from({ length: MAX_PARALLEL_TASKS + 1 }, (_, i) => ({ agent: "a", task: String(i) }));
    expect(subagentPlan({ tasks: many })).toEqual({
      ok: false,
      error: `Too many parallel tasks (${MAX_PARALLEL_TASKS + 1}); at most ${MAX_PARALLEL_TASKS} per call`,
    });
    expect(subagentPlan(null)).toEqual({ ok: false, error: "Invalid parameters" });
  });
});

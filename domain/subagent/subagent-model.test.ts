import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { resolveSubagentModel } from "./subagent-model.ts";
import type { SubagentModelOverrides } from "./subagent-types.ts";

describe("resolveSubagentModel", () => {
  it("takes the session override first, then project, then global, then the static model", () => {
    const all = { session: "s/m", project: "p/m", global: "g/m" };
    expect(resolveSubagentModel({ overrides: all, staticModel: "d/m" })).toEqual({
      model: "s/m",
      modelSource: "session",
      thinkingSource: "definition",
    });
    expect(resolveSubagentModel({ overrides: { project: "p/m", global: "g/m" }, staticModel: "d/m" })).toMatchObject({
      model: "p/m",
      modelSource: "project",
    });
    expect(resolveSubagentModel({ overrides: { global: "g/m" }, staticModel: "d/m" })).toMatchObject({
      model: "g/m",
      modelSource: "global",
    });
    expect(resolveSubagentModel({ overrides: {}, staticModel: "d/m" })).toMatchObject({
      model: "d/m",
      modelSource: "definition",
    });
  });

  it("omits the model when nothing sets one, and treats blank values as absent", () => {
    expect(resolveSubagentModel({ overrides: {} })).toEqual({ modelSource: "definition", thinkingSource: "definition" });
    expect(resolveSubagentModel({ overrides: { session: " ", project: "" }, staticModel: "  " })).toEqual({
      modelSource: "definition",
      thinkingSource: "definition",
    });
    expect(resolveSubagentModel({ overrides: { session: "", global: " g/m " } })).toMatchObject({
      model: "g/m",
      modelSource: "global",
    });
  });

  it("takes thinking only from the static thinking level, whatever the overrides", () => {
    expect(resolveSubagentModel({ overrides: { session: "s/m" }, staticThinking: "high" })).toEqual({
      model: "s/m",
      modelSource: "session",
      thinking: "high",
      thinkingSource: "definition",
    });
    expect(resolveSubagentModel({ overrides: { session: "s/m" }, staticThinking: "" })).not.toHaveProperty("thinking");
  });

  it("law: the model is the first non-blank of session, project, global, static, and its source says which", () => {
    const value = fc.option(fc.oneof(fc.constant(""), fc.constant("  "), fc.stringMatching(/^[a-z]{1,3}\/[a-z0-9]{1,4}$/)), {
      nil: undefined,
    });
    fc.assert(
      fc.property(value, value, value, value, (session, project, global, staticModel) => {
        const overrides: SubagentModelOverrides = {};
        if (session !== undefined) overrides.session = session;
        if (project !== undefined) overrides.project = project;
        if (global !== undefined) overrides.global = global;
        const result = resolveSubagentModel({ overrides, staticModel });
        const chain = [
          ["session", session],
          ["project", project],
          ["global", global],
          ["definition", staticModel],
        ] as const;
        const first = chain.find(([, v]) => v !== undefined && v.trim() !== "");
        expect(result.model).toBe(first?.[1]?.trim());
        expect(result.modelSource).toBe(first === undefined || first[0] === "definition" ? "definition" : first[0]);
      }),
    );
  });
});

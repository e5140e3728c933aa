import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { normalizeVisionOverride, resolveVision, resolveVisionField, visionConfigValues } from "./vision-resolution.ts";
import type { VisionOverride, VisionOverrides } from "./vision-types.ts";

const SCOPES = ["session", "project", "global"] as const;

describe("vision resolution", () => {
  it("resolves model and thinking independently, session before project before global", () => {
    const overrides: VisionOverrides = {
      session: { model: "", thinking: "high" },
      project: { model: "p/vision", thinking: "" },
      global: { model: "g/vision", thinking: "low" },
    };
    expect(visionConfigValues(overrides)).toEqual({
      model: "p/vision",
      modelSource: "project",
      thinking: "high",
      thinkingSource: "session",
    });
    expect(resolveVision({ overrides, staticModel: "s/static" })).toEqual({
      model: "p/vision",
      modelSource: "project",
      thinking: "high",
      thinkingSource: "session",
    });
  });

  it("falls back to the static model for the model only, and reports none/static when nothing is set", () => {
    expect(visionConfigValues({})).toEqual({ model: "", modelSource: "none", thinking: "", thinkingSource: "none" });
    expect(resolveVision({ overrides: {} })).toEqual({ modelSource: "static", thinkingSource: "none" });
    expect(resolveVision({ overrides: { global: { model: "", thinking: "off" } }, staticModel: " a/b " })).toEqual({
      model: "a/b",
      modelSource: "static",
      thinking: "off",
      thinkingSource: "global",
    });
  });

  it("returns inherit unchanged", () => {
    expect(resolveVision({ overrides: { project: { model: "", thinking: "inherit" } } })).toMatchObject({
      thinking: "inherit",
      thinkingSource: "project",
    });
  });

  it("normalizes a scope's values and drops a scope with neither", () => {
    expect(normalizeVisionOverride(" a/b ", null)).toEqual({ model: "a/b", thinking: "" });
    expect(normalizeVisionOverride("", " ")).toBeNull();
    expect(normalizeVisionOverride(undefined, "max")).toEqual({ model: "", thinking: "max" });
  });

  const value = fc.oneof(
    fc.constant(""),
    fc.constant("  "),
    fc.stringMatching(/^[a-z]{1,3}\/[a-z0-9]{1,4}$/),
    fc.constantFrom("inherit", "off", "max"),
  );
  const scope = fc.option(fc.record({ model: value, thinking: value }), { nil: undefined });
  const overridesArb = fc.record({ session: scope, project: scope, global: scope }).map((record) => {
    const out: VisionOverrides = {};
    for (const key of SCOPES) {
      const entry: VisionOverride | undefined = record[key];
      if (entry !== undefined) out[key] = entry;
    }
    return out;
  });
  const staticArb = fc.option(value, { nil: undefined });

  it("law: each field is the first non-blank of session, project, global (the model then the static one), and its source says which", () => {
    fc.assert(
      fc.property(overridesArb, staticArb, (overrides, staticModel) => {
        const result = resolveVision({ overrides, staticModel });
        for (const field of ["model", "thinking"] as const) {
          const first = SCOPES.find((key) => (overrides[key]?.[field].trim() ?? "") !== "");
          const expected = first === undefined ? undefined : overrides[first]?.[field].trim();
          if (field === "model") {
            const fallback = staticModel?.trim() ? staticModel.trim() : undefined;
            expect(result.model).toBe(expected ?? fallback);
            expect(result.modelSource).toBe(first ?? "static");
          } else {
            expect(result.thinking).toBe(expected);
            expect(result.thinkingSource).toBe(first ?? "none");
          }
        }
      }),
    );
  });

  it("law: the fields are independent (changing one field at any scope never changes the other's resolution)", () => {
    fc.assert(
      fc.property(overridesArb, fc.constantFrom(...SCOPES), value, (overrides, key, replacement) => {
        const before = resolveVisionField(overrides, "thinking");
        const changed: VisionOverrides = { ...overrides, [key]: { model: replacement, thinking: overrides[key]?.thinking ?? "" } };
        expect(resolveVisionField(changed, "thinking")).toEqual(before);
        const beforeModel = resolveVisionField(overrides, "model");
        const changedThinking: VisionOverrides = { ...overrides, [key]: { model: overrides[key]?.model ?? "", thinking: replacement } };
        expect(resolveVisionField(changedThinking, "model")).toEqual(beforeModel);
      }),
    );
  });

  it("law: a non-blank session value always wins, and clearing the winning scope falls through to the next", () => {
    fc.assert(
      fc.property(overridesArb, fc.stringMatching(/^[a-z]{1,3}\/[a-z]{1,3}$/), (overrides, model) => {
        const withSession: VisionOverrides = { ...overrides, session: { model, thinking: overrides.session?.thinking ?? "" } };
        expect(resolveVisionField(withSession, "model")).toEqual({ value: model, source: "session" });
        const cleared: VisionOverrides = { ...withSession };
        delete cleared.session;
        expect(resolveVisionField(cleared, "model")).toEqual(
          resolveVisionField({ project: overrides.project, global: overrides.global }, "model"),
        );
      }),
    );
  });
});

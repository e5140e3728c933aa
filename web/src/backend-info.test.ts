import { describe, expect, it } from "vitest";
import { CAPABILITY_NAMES, checkBackendInfo } from "./backend-info.ts";

const allFalse = Object.fromEntries(CAPABILITY_NAMES.map((name) => [name, false]));

describe("checkBackendInfo", () => {
  it("accepts a Leyline API v2 answer and keeps its flags", () => {
    const check = checkBackendInfo({ name: "Leyline", version: "1.2.3", apiVersion: 2, capabilities: { ...allFalse, research: true } });
    expect(check).toEqual({
      ok: true,
      info: { name: "Leyline", version: "1.2.3", apiVersion: 2, capabilities: { ...allFalse, research: true } },
    });
  });

  it("treats missing or non-boolean flags as unavailable", () => {
    const check = checkBackendInfo({ name: "Leyline", version: "1", apiVersion: 2, capabilities: { terminal: "yes" } });
    expect(check.ok).toBe(true);
    expect(check.info?.capabilities).toEqual(allFalse);
  });

  it("rejects another backend name or API version, with a reason", () => {
    const other = checkBackendInfo({ name: "Other", version: "1", apiVersion: 2, capabilities: {} });
    expect(other).toMatchObject({ ok: false, reason: expect.stringContaining("not a Leyline backend") });
    const v1 = checkBackendInfo({ name: "Leyline", version: "1", apiVersion: 1, capabilities: {} });
    expect(v1).toMatchObject({ ok: false, reason: expect.stringContaining("API version 1") });
  });

  it("rejects bodies that are not info objects", () => {
    for (const body of [null, [], "Leyline", { name: "Leyline" }]) {
      expect(checkBackendInfo(body).ok).toBe(false);
    }
  });
});

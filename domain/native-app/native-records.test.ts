import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkConnectionName, checkConnectionUrl, checkPinnedId, checkPruneIds, thinkingDefaultOf } from "./native-records.ts";

describe("checkConnectionUrl", () => {
  it.each([
    ["http://127.0.0.1:8788", "http://127.0.0.1:8788"],
    ["https://Leyline.Example.com/", "https://leyline.example.com"],
    ["http://host:80/base/path/", "http://host/base/path"],
    ["https://host:8443/leyline", "https://host:8443/leyline"],
    ["  http://[::1]:9000 ", "http://[::1]:9000"],
    ["http://10.0.0.5", "http://10.0.0.5"],
  ])("accepts %s as %s", (raw, expected) => {
    expect(checkConnectionUrl(raw)).toEqual({ ok: true, value: expected });
  });

  it.each([
    [42, "url must be a string"],
    ["", "url must not be empty"],
    ["ftp://host", "url must start with http:// or https://"],
    ["file:///etc/passwd", "url must start with http:// or https://"],
    ["host:8787", "url must start with http:// or https://"],
    ["http://user:pw@host", "url must not contain credentials"],
    ["http://user@host", "url must not contain credentials"],
    ["http://host/?a=1", "url must not contain a query"],
    ["http://host/?", "url must not contain a query"],
    ["http://host/#top", "url must not contain a fragment"],
    ["http://", "url is not a valid URL"],
    ["http://ho st", "url must not contain spaces"],
    ["not a url", "url must not contain spaces"],
  ])("refuses %j", (raw, error) => {
    expect(checkConnectionUrl(raw)).toEqual({ ok: false, error });
  });

  it("normalises idempotently", () => {
    fc.assert(
      fc.property(fc.webUrl({ withQueryParameters: false, withFragments: false }), (raw) => {
        const first = checkConnectionUrl(raw);
        if (!first.ok) return;
        expect(checkConnectionUrl(first.value)).toEqual(first);
      }),
    );
  });
});

describe("names and ids", () => {
  it("trims names and holds them to 1..80 characters", () => {
    expect(checkConnectionName("  Lab box ")).toEqual({ ok: true, value: "Lab box" });
    expect(checkConnectionName("x".repeat(80))).toEqual({ ok: true, value: "x".repeat(80) });
    expect(checkConnectionName("x".repeat(81))).toEqual({ ok: false, error: "name must be at most 80 characters" });
    expect(checkConnectionName("   ")).toEqual({ ok: false, error: "name must not be empty" });
    expect(checkConnectionName(null)).toEqual({ ok: false, error: "name is required" });
    expect(checkConnectionName(5)).toEqual({ ok: false, error: "name must be a string" });
  });

  it("trims ids and holds them to 1..128 characters", () => {
    expect(checkPinnedId(" abc ", "sessionId")).toEqual({ ok: true, value: "abc" });
    expect(checkPinnedId("a".repeat(128), "sessionId").ok).toBe(true);
    expect(checkPinnedId("a".repeat(129), "sessionId")).toEqual({ ok: false, error: "sessionId must be at most 128 characters" });
    expect(checkPinnedId(" ", "sessionId")).toEqual({ ok: false, error: "sessionId must not be empty" });
    expect(checkPinnedId(7, "connectionId")).toEqual({ ok: false, error: "connectionId must be a string" });
  });

  it("checks prune lists: at most 500, each id checked, duplicates dropped", () => {
    expect(checkPruneIds(["a", " a", "b"])).toEqual({ ok: true, value: ["a", "b"] });
    expect(checkPruneIds(Array.from({ length: 500 }, (_, i) => `s${i}`)).ok).toBe(true);
    expect(checkPruneIds(Array.from({ length: 501 }, (_, i) => `s${i}`))).toEqual({
      ok: false,
      error: "sessionIds can hold at most 500 ids per request",
    });
    expect(checkPruneIds(["a", 1])).toEqual({ ok: false, error: "every session id must be a string" });
    expect(checkPruneIds("a")).toEqual({ ok: false, error: "sessionIds must be an array of strings" });
  });

  it("reads a stored thinking default, unknown values as unset", () => {
    expect(thinkingDefaultOf("expanded")).toBe("expanded");
    expect(thinkingDefaultOf(null)).toBe("");
    expect(thinkingDefaultOf("weird")).toBe("");
  });
});

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { SessionEntry } from "../session-log.ts";
import { SUBAGENT_CUSTOM_TYPE } from "../session-summary.ts";
import { checkSubagentMarkerData, type SubagentMarkerData, subagentMarkerOf, subagentMarkerOfEntry } from "./subagent-marker.ts";

const marker: SubagentMarkerData = {
  version: 1,
  parentSessionId: "p1",
  parentSessionPath: "/s/p1.jsonl",
  toolCallId: "call_1",
  agent: "researcher",
  readOnlyBash: true,
};

function custom(data: unknown, customType = SUBAGENT_CUSTOM_TYPE, id = "e1"): SessionEntry {
  return { type: "custom", customType, data, id, parentId: null, timestamp: "2025-01-01T00:00:00.000Z" };
}

describe("subagent marker", () => {
  it("accepts the exact shape, with nulls for unknown fields", () => {
    expect(checkSubagentMarkerData(marker)).toBeNull();
    expect(
      checkSubagentMarkerData({
        ...marker,
        parentSessionId: null,
        parentSessionPath: null,
        toolCallId: null,
        agent: null,
        readOnlyBash: false,
      }),
    ).toBeNull();
  });

  it.each([
    [null, "marker must be an object"],
    [{ ...marker, version: 2 }, "marker.version must be 1"],
    [{ ...marker, agent: 3 }, "marker.agent must be a string or null"],
    [{ ...marker, readOnlyBash: "yes" }, "marker.readOnlyBash must be a boolean"],
    [{ ...marker, extra: 1 }, "marker has unknown field(s): extra"],
  ])("rejects %j", (value, error) => {
    expect(checkSubagentMarkerData(value)).toBe(error);
  });

  it("finds the first valid marker entry; other custom types and invalid data do not count", () => {
    const entries = [
      custom(marker, "leyline-research", "a"),
      custom({ ...marker, readOnlyBash: "no" }, SUBAGENT_CUSTOM_TYPE, "b"),
      custom({ ...marker, agent: "first" }, SUBAGENT_CUSTOM_TYPE, "c"),
      custom({ ...marker, agent: "second" }, SUBAGENT_CUSTOM_TYPE, "d"),
    ];
    expect(subagentMarkerOf(entries)?.agent).toBe("first");
    expect(subagentMarkerOfEntry(entries[0] as SessionEntry)).toBeNull();
    expect(subagentMarkerOf(entries.slice(0, 2))).toBeNull();
  });

  it("never throws on arbitrary data", () => {
    fc.assert(
      fc.property(fc.anything(), (data) => {
        const found = subagentMarkerOfEntry(custom(data));
        expect(found === null || checkSubagentMarkerData(found) === null).toBe(true);
      }),
    );
  });
});

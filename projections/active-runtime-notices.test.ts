/**
 * Runtime notices in the Active snapshot: carried from worker snapshots into `state.notices` of the full and the
 * compact snapshot, absent while there are none, replaced (and cleared) by the next snapshot's list, and a
 * malformed list is an anomaly that changes nothing.
 */
import { describe, expect, it } from "vitest";
import type { ActiveRuntimeInput } from "../domain/runtime/runtime-inputs.ts";
import type { RuntimeNotice } from "../domain/runtime/runtime-types.ts";
import { fold, rebuild } from "./projection.ts";
import { activeRuntimeProjection, selectActive, selectCompactActive } from "./active-runtime.projection.ts";

const fallback: RuntimeNotice = {
  kind: "model-fallback",
  message: "This session used anthropic/claude-x, which is not available here; pi continues with faux/faux-1.",
  requested: { provider: "anthropic", id: "claude-x" },
  used: { provider: "faux", id: "faux-1" },
};
const upgraded: RuntimeNotice = {
  kind: "file-upgraded",
  message: "This session file was in pi's version-1 format. Leyline upgraded it to version 3 and kept the original at /a/b.",
  fromVersion: 1,
  backupPath: "/a/b",
};

function snapshot(notices: unknown): ActiveRuntimeInput {
  return { type: "workerSnapshot", snapshot: { notices } } as ActiveRuntimeInput;
}

describe("active-runtime projection: notices", () => {
  it("publishes the worker's notices in the full and the compact snapshot, only when there are some", () => {
    const attached: ActiveRuntimeInput = { type: "runtimeAttached", id: "s", path: "/p", cwd: "/c" };
    const empty = rebuild(activeRuntimeProjection, [attached, snapshot([])]);
    expect(selectActive(empty).state.notices).toBeUndefined();
    expect("notices" in selectCompactActive(empty).state).toBe(false);

    const state = fold(activeRuntimeProjection, empty, [snapshot([upgraded, fallback])]);
    expect(state.snapshotRevision).toBe(empty.snapshotRevision + 1);
    expect(selectActive(state).state.notices).toEqual([upgraded, fallback]);
    expect(selectCompactActive(state).state.notices).toEqual([upgraded, fallback]);

    const same = fold(activeRuntimeProjection, state, [snapshot([upgraded, fallback])]);
    expect(same.snapshotRevision).toBe(state.snapshotRevision);
    const cleared = fold(activeRuntimeProjection, state, [snapshot([upgraded])]);
    expect(selectActive(cleared).state.notices).toEqual([upgraded]);
    // A snapshot without the field (an older worker) leaves the list alone.
    expect(selectActive(fold(activeRuntimeProjection, cleared, [{ type: "workerSnapshot", snapshot: {} }])).state.notices).toEqual([
      upgraded,
    ]);
  });

  it("counts a malformed notice list as an anomaly and keeps the previous one", () => {
    const state = rebuild(activeRuntimeProjection, [snapshot([fallback])]);
    const bad = fold(activeRuntimeProjection, state, [snapshot([{ kind: "other", message: "x" }])]);
    expect(bad.anomalies).toBe(state.anomalies + 1);
    expect(selectActive(bad).state.notices).toEqual([fallback]);
  });
});

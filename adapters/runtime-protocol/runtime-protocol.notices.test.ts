/**
 * The IPC check of a snapshot's `notices` (runtime-protocol.validate.ts): optional, and when present exactly
 * RuntimeNotice records, with errors that name the field.
 */
import { describe, expect, it } from "vitest";
import { checkRuntimeSnapshot } from "./runtime-protocol.validate.ts";
import type { RuntimeSnapshot } from "./runtime-protocol.ts";
import { idleRuntimeSnapshot } from "./runtime-snapshot.fixture.ts";

const base: RuntimeSnapshot = idleRuntimeSnapshot({ sessionId: "s", cwd: "/c", kind: null });

describe("checkRuntimeSnapshot: notices", () => {
  it("accepts no notices and well-formed ones", () => {
    expect(checkRuntimeSnapshot(base)).toBeNull();
    const notices = [
      { kind: "model-fallback", message: "m", requested: { provider: "a", id: "b" }, used: null },
      { kind: "model-fallback", message: "m", requested: { provider: "a", id: "b" }, used: { provider: "faux", id: "faux-1" } },
      { kind: "file-upgraded", message: "m", fromVersion: 1, backupPath: "/t/x.jsonl" },
    ];
    expect(checkRuntimeSnapshot({ ...base, notices })).toBeNull();
  });

  it("rejects malformed notices, naming the field", () => {
    expect(checkRuntimeSnapshot({ ...base, notices: {} })).toBe("snapshot.notices must be an array (got an object)");
    expect(checkRuntimeSnapshot({ ...base, notices: [{ kind: "other", message: "m" }] })).toBe(
      'snapshot.notices[0].kind must be "model-fallback" or "file-upgraded" (got a string)',
    );
    expect(
      checkRuntimeSnapshot({ ...base, notices: [{ kind: "file-upgraded", message: "m", fromVersion: "1", backupPath: "/x" }] }),
    ).toMatch(/snapshot\.notices\[0\]\.fromVersion must be a finite number/);
    expect(
      checkRuntimeSnapshot({ ...base, notices: [{ kind: "model-fallback", message: "m", requested: { provider: "a" }, used: null }] }),
    ).toMatch(/snapshot\.notices\[0\]\.requested\.id must be a string/);
    expect(
      checkRuntimeSnapshot({
        ...base,
        notices: [{ kind: "model-fallback", message: "m", requested: { provider: "a", id: "b" }, used: null, extra: 1 }],
      }),
    ).toMatch(/unknown field\(s\): extra/);
  });
});

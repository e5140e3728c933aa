import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { arbSourceInput, THREAD_IDS } from "../../test/arbitraries/research.arbitrary.ts";
import type { ResearchSource } from "./research-types.ts";
import {
  canonicalUrl,
  excludeSource,
  MAX_SOURCES_PER_SESSION,
  normalizeSourcePath,
  registerSources,
  sourceKey,
  storedSourceUrl,
} from "./source-ledger.ts";

const empty = { sources: [] as ResearchSource[], citedSourceIds: [] as number[] };

function urls(count: number, from = 0): { url: string; title: string }[] {
  return Array.from({ length: count }, (_, i) => ({ url: `https://example.com/s${from + i}`, title: `S${from + i}` }));
}

describe("canonical keys", () => {
  it("removes the fragment and one trailing slash, keeps the query", () => {
    expect(canonicalUrl("https://example.com/a/#x")).toBe("https://example.com/a");
    expect(canonicalUrl("https://example.com/a//")).toBe("https://example.com/a/");
    expect(canonicalUrl("https://example.com/b/?q=1#frag")).toBe("https://example.com/b?q=1");
    expect(canonicalUrl("https://example.com/b?q=1")).not.toBe(canonicalUrl("https://example.com/b?q=2"));
  });

  it("uses standard URL parsing (case of the host, default port, root path)", () => {
    expect(canonicalUrl("HTTPS://Example.COM:443")).toBe("https://example.com/");
    expect(canonicalUrl("https://example.com")).toBe(canonicalUrl("https://example.com/"));
    expect(canonicalUrl("  https://example.com/a  ")).toBe("https://example.com/a");
  });

  it("accepts only http and https URLs", () => {
    expect(canonicalUrl("ftp://example.com/x")).toBeNull();
    expect(canonicalUrl("file:///etc/passwd")).toBeNull();
    expect(canonicalUrl("javascript:alert(1)")).toBeNull();
    expect(canonicalUrl("example.com/a")).toBeNull();
    expect(canonicalUrl(42)).toBeNull();
  });

  it("keys by URL first, else by the path without a leading ./", () => {
    expect(sourceKey({ url: "https://example.com/a/", path: "x.md" })).toBe("url:https://example.com/a");
    expect(sourceKey({ url: "ftp://x", path: "./docs/a.md" })).toBe("path:docs/a.md");
    expect(sourceKey({ path: "docs/a.md" })).toBe("path:docs/a.md");
    expect(sourceKey({ path: "  " })).toBeNull();
    expect(sourceKey({ path: "./" })).toBeNull();
    expect(sourceKey({})).toBeNull();
    expect(normalizeSourcePath("././a")).toBe("./a");
  });

  it("stores the parsed URL with its fragment", () => {
    expect(storedSourceUrl("https://Example.com/a#sec")).toBe("https://example.com/a#sec");
    expect(storedSourceUrl("mailto:a@b.c")).toBe("");
  });
});

describe("registerSources", () => {
  it("adds new sources with sequential ids and reports them", () => {
    const { state, report } = registerSources(empty, "T1", urls(3));
    expect(report).toEqual({ added: [1, 2, 3], merged: [], rejected: [], overLimit: 0 });
    expect(state.sources.map((s) => [s.id, s.key, s.threadIds, s.status, s.kind])).toEqual([
      [1, "url:https://example.com/s0", ["T1"], "candidate", "web"],
      [2, "url:https://example.com/s1", ["T1"], "candidate", "web"],
      [3, "url:https://example.com/s2", ["T1"], "candidate", "web"],
    ]);
  });

  it("merges a duplicate key: thread ids united, empty fields filled, id and filled fields kept", () => {
    const first = registerSources(empty, "T1", [{ url: "https://example.com/a#x", title: "A", claim: "" }]);
    const { state, report } = registerSources(first.state, "T2", [
      { url: "https://example.com/a/", title: "Other", claim: "new claim", id: 9 },
    ]);
    expect(report.added).toEqual([]);
    expect(report.merged).toEqual([1]);
    expect(state.sources).toHaveLength(1);
    expect(state.sources[0]).toMatchObject({ id: 1, title: "A", claim: "new claim", threadIds: ["T1", "T2"] });
  });

  it("keeps an incoming id when free and never reuses a taken one", () => {
    const a = registerSources(empty, "T1", [{ path: "a.md", id: 7 }, { path: "b.md", id: 7 }, { path: "c.md" }]);
    expect(a.report.added).toEqual([7, 8, 9]);
    const b = registerSources(a.state, "T1", [
      { path: "d.md", id: 3 },
      { path: "e.md", id: 0 },
    ]);
    expect(b.report.added).toEqual([3, 10]);
  });

  it("reports invalid sources by index with a reason", () => {
    const { report } = registerSources(empty, "T1", [{ title: "nowhere" }, "text", { url: "ftp://example.com" }, { path: "ok.md" }]);
    expect(report.added).toEqual([1]);
    expect(report.rejected.map((r) => [r.index, r.code])).toEqual([
      [0, "invalid"],
      [1, "invalid"],
      [2, "invalid"],
    ]);
    expect(report.rejected[0]?.reason).toMatch(/http\(s\) url or a non-empty path/);
  });

  it("takes at most 20 sources of one result and reports the rest", () => {
    const { state, report } = registerSources(empty, "T1", urls(25));
    expect(state.sources).toHaveLength(20);
    expect(report.overLimit).toBe(5);
    expect(report.rejected.map((r) => r.index)).toEqual([20, 21, 22, 23, 24]);
    expect(report.rejected.every((r) => r.code === "result-limit")).toBe(true);
  });

  it("keeps at most 60 unique sources per session, still merging duplicates", () => {
    let state = empty;
    for (let batch = 0; batch < 3; batch++) state = registerSources(state, "T1", urls(20, batch * 20)).state;
    expect(state.sources).toHaveLength(60);
    const { state: after, report } = registerSources(state, "T2", [{ url: "https://example.com/new" }, { url: "https://example.com/s5" }]);
    expect(after.sources).toHaveLength(MAX_SOURCES_PER_SESSION);
    expect(report.rejected).toEqual([{ index: 0, code: "session-limit", reason: "the research session already holds 60 sources" }]);
    expect(report.overLimit).toBe(1);
    expect(report.merged).toEqual([6]);
    expect(after.sources.find((s) => s.id === 6)?.threadIds).toEqual(["T1", "T2"]);
  });

  it("derives cited status from the holder's cited ids and never changes an exclusion", () => {
    const start = registerSources({ sources: [] as ResearchSource[], citedSourceIds: [1] }, "T1", urls(2));
    expect(start.state.sources.map((s) => s.status)).toEqual(["cited", "candidate"]);
    const excluded = excludeSource(start.state, 2, "paywalled");
    expect(excluded.ok).toBe(true);
    const merged = registerSources(excluded.state, "T3", [{ url: "https://example.com/s1", status: "candidate" }]);
    expect(merged.state.sources[1]).toMatchObject({ id: 2, status: "excluded", exclusionReason: "paywalled" });
  });

  it("returns the same state object when nothing was registered", () => {
    const { state } = registerSources(empty, "T1", [{}]);
    expect(state).toBe(empty);
  });
});

describe("excludeSource", () => {
  it("excludes by id with a reason and keeps the id", () => {
    const { state } = registerSources(empty, "T1", urls(2));
    const result = excludeSource(state, 2, "  off topic ");
    expect(result.ok && result.source).toMatchObject({ id: 2, status: "excluded", exclusionReason: "off topic" });
    expect(state.sources[1]?.status).toBe("candidate");
  });

  it("refuses an unknown id or an empty reason", () => {
    const { state } = registerSources(empty, "T1", urls(1));
    const unknown = excludeSource(state, 5, "x");
    expect(unknown.ok).toBe(false);
    expect(!unknown.ok && unknown.error).toBe("Source 5 is not in the ledger");
    expect(excludeSource(state, 1, " ").ok).toBe(false);
  });
});

// ---------------------------------------------------------------------------------------------------------
// Laws
// ---------------------------------------------------------------------------------------------------------

type Op = { kind: "register"; threadId: string; sources: unknown[] } | { kind: "exclude"; pick: number; reason: string };

const arbOp: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant("register" as const),
      threadId: fc.constantFrom(...THREAD_IDS),
      sources: fc.array(arbSourceInput({ valid: false }), { maxLength: 25 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("exclude" as const), pick: fc.nat(), reason: fc.constantFrom("dup", "weak") }) },
);

/** Many generated sources with distinct keys, to reach the session limit. */
const arbManyDistinct = fc
  .array(fc.tuple(fc.integer({ min: 0, max: 200 }), fc.option(fc.integer({ min: 1, max: 90 }), { nil: undefined })), {
    maxLength: 90,
  })
  .map((items) =>
    items.map(([n, id]) => (id === undefined ? { url: `https://example.com/p${n}` } : { url: `https://example.com/p${n}`, id })),
  );

function runOps(ops: readonly Op[]): { snapshots: { sources: ResearchSource[] }[] } {
  let state: { sources: ResearchSource[]; citedSourceIds: number[] } = { sources: [], citedSourceIds: [] };
  const snapshots = [state];
  for (const op of ops) {
    if (op.kind === "register") state = registerSources(state, op.threadId, op.sources).state;
    else {
      const target = state.sources[op.pick % (state.sources.length + 1)];
      if (target) state = excludeSource(state, target.id, op.reason).state;
    }
    snapshots.push(state);
  }
  return { snapshots };
}

describe("ledger laws", () => {
  it("never holds more than 60 sources, and ids and keys stay unique", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            arbOp,
            arbManyDistinct.map((sources) => ({ kind: "register" as const, threadId: "T1", sources })),
          ),
        ),
        (ops) => {
          for (const { sources } of runOps(ops).snapshots) {
            expect(sources.length).toBeLessThanOrEqual(MAX_SOURCES_PER_SESSION);
            expect(new Set(sources.map((s) => s.id)).size).toBe(sources.length);
            expect(new Set(sources.map((s) => s.key)).size).toBe(sources.length);
          }
        },
      ),
    );
  });

  it("ids are stable and never reused: a key keeps its id; a new key never gets an id seen before", () => {
    fc.assert(
      fc.property(fc.array(arbOp, { maxLength: 12 }), (ops) => {
        const idOfKey = new Map<string, number>();
        const keyOfId = new Map<number, string>();
        for (const { sources } of runOps(ops).snapshots) {
          for (const s of sources) {
            expect(idOfKey.get(s.key) ?? s.id).toBe(s.id);
            expect(keyOfId.get(s.id) ?? s.key).toBe(s.key);
            idOfKey.set(s.key, s.id);
            keyOfId.set(s.id, s.key);
          }
        }
      }),
    );
  });

  it("sources are never dropped: every earlier key is still in the ledger", () => {
    fc.assert(
      fc.property(fc.array(arbOp, { maxLength: 12 }), (ops) => {
        const { snapshots } = runOps(ops);
        for (let i = 1; i < snapshots.length; i++) {
          const keys = new Set(snapshots[i]?.sources.map((s) => s.key));
          for (const s of snapshots[i - 1]?.sources ?? []) expect(keys.has(s.key)).toBe(true);
        }
      }),
    );
  });

  it("dedup does not depend on registration order (same set of keys, same thread ids per key)", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom(...THREAD_IDS), arbSourceInput({ valid: false })), { maxLength: 40 }),
        fc.infiniteStream(fc.nat()),
        (items, stream) => {
          const shuffled = items.slice();
          const rand = stream[Symbol.iterator]();
          for (let i = shuffled.length - 1; i > 0; i--) {
            const j = (rand.next().value as number) % (i + 1);
            [shuffled[i], shuffled[j]] = [shuffled[j]!, shuffled[i]!];
          }
          const fold = (list: typeof items) =>
            list.reduce((state, [threadId, source]) => registerSources(state, threadId, [source]).state, empty);
          const summary = (state: { sources: ResearchSource[] }) =>
            Object.fromEntries(state.sources.map((s) => [s.key, [...s.threadIds].sort()]));
          expect(summary(fold(shuffled))).toEqual(summary(fold(items)));
        },
      ),
    );
  });

  it("accounts for every input: taken inputs are in the ledger, the others are rejected with a reason", () => {
    fc.assert(
      fc.property(arbManyDistinct, fc.array(arbSourceInput({ valid: false }), { maxLength: 30 }), (first, second) => {
        const a = registerSources(empty, "T1", first.slice(0, 20));
        const a2 = registerSources(a.state, "T1", first.slice(20, 40));
        const a3 = registerSources(a2.state, "T1", first.slice(40, 60));
        const b = registerSources(a3.state, "T2", second);
        const keys = new Set(b.state.sources.map((s) => s.key));
        second.forEach((input, index) => {
          const rejection = b.report.rejected.find((r) => r.index === index);
          const key = sourceKey(input);
          if (index >= 20) expect(rejection?.code).toBe("result-limit");
          else if (key === null) expect(rejection?.code).toBe("invalid");
          else if (rejection) {
            expect(rejection.code).toBe("session-limit");
            expect(keys.has(key)).toBe(false);
          } else expect(keys.has(key)).toBe(true);
        });
        expect(b.state.sources.length - a3.state.sources.length).toBe(b.report.added.length);
        expect(b.report.overLimit).toBe(b.report.rejected.filter((r) => r.code !== "invalid").length);
      }),
    );
  });
});

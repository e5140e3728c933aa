import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { matchTier, prepareFiles, rankFiles } from "./file-query.ts";

const paths = ["README.md", "src/app.ts", "src/components/AppShell.vue", "test/app.test.ts", "docs/apple.md", "web/src/api/http.ts"];

describe("@file completion", () => {
  it("ranks the file name's exact, prefix and substring matches before path and fuzzy matches", () => {
    expect(rankFiles(paths, "app.ts")).toEqual(["src/app.ts", "test/app.test.ts", "web/src/api/http.ts"]);
    expect(rankFiles(paths, "app")).toEqual([
      "src/app.ts",
      "docs/apple.md",
      "test/app.test.ts",
      "src/components/AppShell.vue",
      "web/src/api/http.ts",
    ]);
    expect(rankFiles(paths, "src/api")).toEqual(["web/src/api/http.ts"]);
    expect(rankFiles(paths, "wsah")).toEqual(["web/src/api/http.ts"]);
    expect(rankFiles(paths, "zzz")).toEqual([]);
  });

  it("ranks 50,000 prepared paths in a few milliseconds", () => {
    const many = prepareFiles(Array.from({ length: 50_000 }, (_, i) => `src/module-${i % 500}/part-${i}/file-${i}.ts`));
    const started = performance.now();
    for (const query of ["file-4999", "mod", "p9", ""]) expect(rankFiles(many, query, 20)).toHaveLength(20);
    expect(performance.now() - started).toBeLessThan(500);
  });

  it("lists the shallowest files first for an empty query, and honours the limit", () => {
    expect(rankFiles(paths, "  ", 3)).toEqual(["README.md", "src/app.ts", "docs/apple.md"]);
    expect(rankFiles(paths, "", 0)).toEqual([]);
  });

  it("returns only matching paths, each once, at most `limit`, in tier order (property)", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.stringMatching(/^[a-zA-Z0-9_./-]{1,24}$/), { maxLength: 60 }),
        fc.stringMatching(/^[a-zA-Z0-9._/]{0,6}$/),
        fc.integer({ min: 0, max: 80 }),
        (all, query, limit) => {
          const ranked = rankFiles(all, query, limit);
          expect(ranked.length).toBeLessThanOrEqual(limit);
          expect(new Set(ranked).size).toBe(ranked.length);
          const tiers = ranked.map((path) => matchTier(path, query));
          expect(tiers.every((tier) => tier !== null)).toBe(true);
          expect([...tiers].sort((a, b) => (a ?? 0) - (b ?? 0))).toEqual(tiers);
          // The same as sorting every match and taking the first `limit`: nothing better was left out.
          const depth = (path: string): number => path.split("/").length - 1;
          const sorted = all
            .map((path) => ({ path, tier: matchTier(path, query) }))
            .filter((item): item is { path: string; tier: number } => item.tier !== null)
            .sort(
              (a, b) => a.tier - b.tier || depth(a.path) - depth(b.path) || a.path.length - b.path.length || (a.path < b.path ? -1 : 1),
            );
          expect(ranked).toEqual(sorted.slice(0, limit).map((item) => item.path));
        },
      ),
    );
  });
});

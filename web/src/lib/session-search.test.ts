import { describe, expect, it } from "vitest";
import { researchSummary, summary } from "./session-fixtures.fixture.ts";
import { folderName, matchesQuery, projectSessions, queryWords, recentProjects, sessionTitle, visibleSessions } from "./session-search.ts";

describe("session search and project filter", () => {
  const a = summary("a", { cwd: "/w/alpha", firstMessage: "Fix the flaky Parser test", name: "parser" });
  const b = summary("b", { cwd: "/w/beta", firstMessage: "Write the README" });
  const child = summary("c", {
    cwd: "/tmp/sub",
    isSubagentSession: true,
    parentSessionPath: a.path,
    firstMessage: "thread 1: parser sources",
  });
  const r = summary("r", {
    cwd: "/w/beta",
    research: researchSummary("r", { objective: "Compare parsers" }),
    firstMessage: "(no messages)",
  });
  const all = [a, b, child, r];

  it("matches every word, case-insensitively, in name, first message, folder, id or research objective", () => {
    expect(matchesQuery(a, queryWords("FLAKY parser"))).toBe(true);
    expect(matchesQuery(a, queryWords("flaky readme"))).toBe(false);
    expect(matchesQuery(b, queryWords("beta"))).toBe(true);
    expect(matchesQuery(r, queryWords("compare"))).toBe(true);
    expect(matchesQuery(b, [])).toBe(true);
  });

  it("searches across projects while a query is typed, else lists the project's sessions and their subagents", () => {
    expect(visibleSessions(all, { query: "parser", cwd: "/w/beta" }).map((s) => s.id)).toEqual(["a", "c", "r"]);
    expect(visibleSessions(all, { query: "  ", cwd: "/w/alpha" }).map((s) => s.id)).toEqual(["a", "c"]);
    expect(visibleSessions(all, { query: "", cwd: "/w/beta/" }).map((s) => s.id)).toEqual(["b", "r"]);
    expect(visibleSessions(all, { query: "", cwd: null }).map((s) => s.id)).toEqual(["a", "b", "c", "r"]);
    expect(projectSessions(all, "/nowhere")).toEqual([]);
  });

  it("lists project folders by latest activity, without subagent folders", () => {
    const rows = [
      summary("1", { cwd: "/w/old", modified: "2026-01-01T00:00:00Z" }),
      summary("2", { cwd: "/w/new", modified: "2026-11-01T00:00:00Z" }),
      summary("3", { cwd: "/w/old", modified: "2026-02-01T00:00:00Z" }),
      summary("4", { cwd: "/tmp/sub", isSubagentSession: true, modified: "2026-12-01T00:00:00Z" }),
    ];
    expect(recentProjects(rows)).toEqual([
      { cwd: "/w/new", sessionCount: 1, latest: "2026-11-01T00:00:00Z" },
      { cwd: "/w/old", sessionCount: 2, latest: "2026-02-01T00:00:00Z" },
    ]);
  });

  it("titles a row by name, else first message, else New session; names folders by their last segment", () => {
    expect(sessionTitle({ name: " Named ", firstMessage: "x" })).toBe("Named");
    expect(sessionTitle({ firstMessage: "Hello" })).toBe("Hello");
    expect(sessionTitle({ firstMessage: "(no messages)" })).toBe("New session");
    expect(folderName("/w/project/")).toBe("project");
    expect(folderName("/")).toBe("/");
  });
});

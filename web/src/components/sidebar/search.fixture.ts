/** Test-only builders of full-text search answers (GET /api/pi/search) for the sidebar's tests. */
import type { SearchAnswer, SearchResult } from "../../api/search.ts";

export function searchHit(overrides: Partial<SearchResult> = {}): SearchResult {
  return {
    sessionId: "s1",
    sessionPath: "/agent/sessions/--w--/s1.jsonl",
    firstMessage: "Fix the parser",
    cwd: "/w/alpha",
    entryId: "e1",
    role: "user",
    timestamp: "2026-11-30T10:00:00.000Z",
    snippet: [
      { text: "fix the ", match: false },
      { text: "parser", match: true },
    ],
    ...overrides,
  };
}

export function searchAnswer(results: SearchResult[], status: Partial<SearchAnswer["status"]> = {}): SearchAnswer {
  return { results, status: { indexed: 10, total: 10, ready: true, ...status } };
}

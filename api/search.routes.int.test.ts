/**
 * GET /api/pi/search through the real app (testApp + inject): bad input answers 400 with the envelope, the
 * answer matches the contract (LEYLINE_CHECK_RESPONSES checks every response), and a hit in a version-1 file
 * names the entry id its transcript shows.
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { SearchAnswer } from "../domain/search/search-result.ts";
import type { SessionDetail } from "../domain/session-detail.ts";
import { closeTestApps, copyFixture, testApp } from "./app.fixture.ts";

afterEach(closeTestApps);

const V1_ID = "d703a1a9-1b7b-4fb1-b512-c9738b1fe617";

function search(query: string) {
  return `/api/pi/search?${query}`;
}

describe("GET /api/pi/search", () => {
  it("answers 400 with the envelope for bad input", async () => {
    const { app } = await testApp();
    const long = "x".repeat(501);
    for (const [query, message] of [
      ["", "q is required"],
      ["q=", "q is required"],
      ["q=%20%20", "q is required"],
      [`q=${long}`, "q must be at most 500 characters"],
      ["q=a&limit=0", "limit must be an integer from 1 to 100"],
      ["q=a&limit=101", "limit must be an integer from 1 to 100"],
      ["q=a&limit=1.5", "limit must be an integer from 1 to 100"],
      ["q=a&limit=ten", "limit must be an integer from 1 to 100"],
      ["q=a&cwd=", "cwd must be a non-empty string"],
      ["q=a&q=b", "q must be a string"],
      ["q=a&sort=new", "unknown query parameter (known: q, limit, cwd)"],
    ] as const) {
      const response = await app.inject({ method: "GET", url: search(query) });
      expect(response.statusCode, query).toBe(400);
      expect(response.json(), query).toEqual({ error: message });
    }
  });

  it("answers no results (not an error) for a query of punctuation, and says how far the index is", async () => {
    const { app, dirs } = await testApp();
    copyFixture("v1-before-compaction.jsonl", dirs);
    await app.leyline.readSide.current()?.index.rescan();
    const response = await app.inject({ method: "GET", url: search(`q=${encodeURIComponent('"*() -- ^')}`) });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ results: [], status: { indexed: 1, total: 1, ready: true } });
  });

  it("finds a word in a version-1 file at the entry id its transcript shows", async () => {
    const { app, dirs } = await testApp();
    copyFixture("v1-large-session.jsonl", dirs);
    await app.leyline.readSide.current()?.index.rescan();
    const response = await app.inject({ method: "GET", url: search("q=oauth-selector&limit=5") });
    expect(response.statusCode).toBe(200);
    const answer = response.json<SearchAnswer>();
    expect(answer.status).toEqual({ indexed: 1, total: 1, ready: true });
    expect(answer.results.length).toBeGreaterThan(0);
    expect(answer.results.length).toBeLessThanOrEqual(3);

    const detail = (await app.inject({ method: "GET", url: `/api/pi/sessions/${V1_ID}` })).json<SessionDetail>();
    const shown = new Set<string>();
    for (const entry of detail.entries) {
      shown.add(entry.id);
      if (entry.type === "tool" && entry.resultEntryId !== null) shown.add(entry.resultEntryId);
      if (entry.type === "tool" && entry.callEntryId !== null) shown.add(entry.callEntryId);
    }
    for (const hit of answer.results) {
      expect(hit.sessionId).toBe(V1_ID);
      expect(hit.sessionPath).toBe(path.join(dirs.projectSessions, "v1-large-session.jsonl"));
      expect(hit.cwd).toBe("/Users/badlogic/workspaces/pi-mono");
      expect(shown.has(hit.entryId), `${hit.role} hit ${hit.entryId}`).toBe(true);
      expect(hit.snippet.some((s) => s.match && /oauth|selector/i.test(s.text))).toBe(true);
    }
    // The user's prompt that names it is among the hits.
    expect(answer.results.some((hit) => hit.role === "user")).toBe(true);

    // Filtered by another folder: nothing.
    const elsewhere = await app.inject({ method: "GET", url: search("q=oauth-selector&cwd=/elsewhere") });
    expect(elsewhere.json<SearchAnswer>().results).toEqual([]);
  });

  it("writes nothing into pi's folder", async () => {
    const { app, dirs } = await testApp();
    const file = copyFixture("v1-before-compaction.jsonl", dirs);
    await app.leyline.readSide.current()?.index.rescan();
    const before = fs.readFileSync(file);
    const listing = fs.readdirSync(dirs.agentDir, { recursive: true }).sort();
    expect((await app.inject({ method: "GET", url: search("q=the") })).statusCode).toBe(200);
    await app.leyline.readSide.current()?.search.idle();
    expect(fs.readFileSync(file).equals(before)).toBe(true);
    expect(fs.readdirSync(dirs.agentDir, { recursive: true }).sort()).toEqual(listing);
  });
});

/**
 * Full-text search follows sessions as they are written (real app, in-process pi runtime, the faux model): a
 * session created after the index's first pass (over an empty folder) is found once its answer is written, and
 * the hit names the entry the transcript shows.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Active } from "../domain/runtime/runtime-types.ts";
import type { TranscriptEntry } from "../domain/transcript/transcript-types.ts";
import { call, runtimeApiSuite, settled } from "./runtime-api.fixture.ts";

const suite = runtimeApiSuite("leyline-search-live-");
beforeAll(suite.setUp);
afterEach(suite.closeApps);
afterAll(suite.tearDown);

describe("live full-text search", () => {
  it("finds a session written after the first pass over an empty folder", { timeout: 60_000 }, async () => {
    const app = await suite.makeApp({ turns: [{ match: "first question", text: "The answer mentions the zanzibarite crystal." }] });
    // The first pass runs over nothing.
    expect(await call(app, "GET", "/api/pi/search?q=zanzibarite")).toMatchObject({ status: 200, body: { results: [] } });
    const created = await call(app, "POST", "/api/pi/sessions", { cwd: suite.dirs.cwd });
    const { id } = created.body["active"] as Active;
    await call(app, "POST", `/api/pi/sessions/${id}/prompt`, { text: "first question" });
    await settled(app, id, 2);
    await expect
      .poll(async () => ((await call(app, "GET", "/api/pi/search?q=zanzibarite")).body["results"] as unknown[]).length, { timeout: 15_000 })
      .toBe(1);
    const [hit] = (await call(app, "GET", "/api/pi/search?q=zanzibarite")).body["results"] as Array<{ sessionId: string; entryId: string }>;
    expect(hit?.sessionId).toBe(id);
    const entries = (await call(app, "GET", `/api/pi/sessions/${id}`)).body["entries"] as TranscriptEntry[];
    expect(entries.find((entry) => entry.id === hit?.entryId)).toMatchObject({ type: "message", role: "assistant" });
  });
});

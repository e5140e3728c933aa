/**
 * GET /api/pi/sessions/:id/export over a hand-written research session file and a real pi fixture: the
 * document (self-contained, working citation anchors, exclusion reasons, escaped hostile text), the headers
 * (type, disposition, file name), `?path=`, and unknown sessions (404). Also the read side of research
 * through the API: list summaries, the detail's ResearchState and the report entry's researchReport.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { SessionSummary } from "../domain/session-summary.ts";
import type { ToolTranscriptEntry } from "../domain/transcript/transcript-types.ts";
import { exportFileNames } from "../projections/session-export/export-filename.ts";
import { danglingAnchors, externalReferences, foreignMarkup } from "../projections/session-export/export-html.fixture.ts";
import { HOSTILE, REPORT_ENTRY_ID, RESEARCH_SESSION_ID, writeResearchSession } from "../test/support/research-session.ts";
import { closeTestApps, copyFixture, testApp, testDirs } from "./app.fixture.ts";
import type { SessionDetail } from "../domain/session-detail.ts";

afterEach(closeTestApps);

const PLAIN = "v1-before-compaction.jsonl";
const PLAIN_ID = "ffae836b-9420-4060-ac13-7745215f90ff";

async function appWithSessions() {
  const dirs = testDirs("export");
  const researchFile = writeResearchSession(dirs.projectSessions);
  const plainFile = copyFixture(PLAIN, dirs);
  const { app } = await testApp({ version: "9.9.9" }, dirs);
  return { app, dirs, researchFile, plainFile };
}

describe("GET /api/pi/sessions/:id/export", () => {
  it("exports a research session as one self-contained HTML attachment", async () => {
    const { app } = await appWithSessions();
    const res = await app.inject({ method: "GET", url: `/api/pi/sessions/${RESEARCH_SESSION_ID}/export` });
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-type"]).toBe("text/html; charset=utf-8");
    const names = exportFileNames({ id: RESEARCH_SESSION_ID, firstMessage: `Research kettle efficiency ${HOSTILE}` });
    expect(names.asciiFileName).toMatch(/^leyline-research-kettle-efficiency-script-alert-x-script-img-src-h.*-5f0c2a9e\.html$/);
    expect(res.headers["content-disposition"]).toBe(
      `attachment; filename="${names.asciiFileName}"; filename*=UTF-8''${encodeURIComponent(names.fileName)}`,
    );
    expect(res.headers["content-security-policy"]).toContain("default-src 'none'");

    const html = res.body;
    expect(html).not.toMatch(/src="http|<link|@import|url\(http/i);
    expect(externalReferences(html)).toEqual([]);
    expect(foreignMarkup(html)).toEqual([]);
    expect(danglingAnchors(html)).toEqual([]);
    expect(html).not.toContain(HOSTILE);
    expect(html).toContain('<a href="#source-1" class="citation"');
    expect(html).toContain("Paywalled and unverifiable");
    expect(html).not.toContain("EVIDENCE-OF-EXCLUDED-SOURCE");
    expect(html).toContain('<td class="verdict-unsupported">unsupported</td>');
    expect(html).toContain('<meta name="generator" content="Leyline 9.9.9">');

    const info = await app.inject({ method: "GET", url: "/api/pi/info" });
    expect(info.json<{ capabilities: { exports: boolean } }>().capabilities.exports).toBe(true);
  });

  it("answers inline for disposition=inline only, and works for normal sessions", async () => {
    const { app } = await appWithSessions();
    const inline = await app.inject({ method: "GET", url: `/api/pi/sessions/${PLAIN_ID}/export?disposition=inline` });
    expect(inline.statusCode).toBe(200);
    expect(inline.headers["content-disposition"]).toMatch(/^inline; filename="leyline-[a-z0-9-]+-ffae836b\.html"; filename\*=UTF-8''/);
    expect(inline.body).toContain('<section id="transcript">');
    expect(inline.body).not.toContain('<section id="research">');
    expect(externalReferences(inline.body)).toEqual([]);
    expect(foreignMarkup(inline.body)).toEqual([]);

    const other = await app.inject({ method: "GET", url: `/api/pi/sessions/${PLAIN_ID}/export?disposition=download` });
    expect(other.headers["content-disposition"]).toMatch(/^attachment; /);
  });

  it("resolves ?path= like the detail route and answers 404 for unknown sessions", async () => {
    const { app, researchFile, plainFile } = await appWithSessions();
    const byPath = await app.inject({
      method: "GET",
      url: `/api/pi/sessions/${RESEARCH_SESSION_ID}/export?path=${encodeURIComponent(researchFile)}`,
    });
    expect(byPath.statusCode).toBe(200);
    expect(byPath.body).toContain('<section id="report">');

    const mismatch = await app.inject({
      method: "GET",
      url: `/api/pi/sessions/${RESEARCH_SESSION_ID}/export?path=${encodeURIComponent(plainFile)}`,
    });
    expect(mismatch.statusCode).toBe(500);
    expect(mismatch.json()).toEqual({ error: "Session path does not match id" });

    const missingFile = await app.inject({
      method: "GET",
      url: `/api/pi/sessions/${RESEARCH_SESSION_ID}/export?path=${encodeURIComponent(`${researchFile}.gone`)}`,
    });
    expect(missingFile.statusCode).toBe(404);

    const unknown = await app.inject({ method: "GET", url: "/api/pi/sessions/no-such-session/export" });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toEqual({ error: "Session not found" });
  });
});

describe("research through the session read routes", () => {
  it("lists a ResearchSummary (no thread or source records) and details the full ResearchState", async () => {
    const { app } = await appWithSessions();
    const { sessions } = (await app.inject({ method: "GET", url: "/api/pi/sessions" })).json<{ sessions: SessionSummary[] }>();
    const row = sessions.find((session) => session.id === RESEARCH_SESSION_ID);
    expect(row?.research).toEqual({
      sessionId: RESEARCH_SESSION_ID,
      status: "complete",
      phase: "report",
      objective: `How efficient are kettles? ${HOSTILE}`,
      reportTitle: `Kettle report ${HOSTILE}`,
      reportEntryId: REPORT_ENTRY_ID,
      threadCount: 2,
      // finished threads: T1 done and T2 error
      completedThreadCount: 2,
      sourceCount: 3,
      citedSourceCount: 2,
      excludedSourceCount: 1,
      updatedAt: expect.any(Number),
    });
    expect(sessions.find((session) => session.id === PLAIN_ID)?.research).toBeNull();

    const detail = (await app.inject({ method: "GET", url: `/api/pi/sessions/${RESEARCH_SESSION_ID}` })).json<SessionDetail>();
    expect(detail.session.research).toMatchObject({ version: 1, citedSourceIds: [1, 2], strategy: "Two independent threads" });
    expect(detail.session.research?.threads.map((thread) => [thread.id, thread.status])).toEqual([
      ["T1", "done"],
      ["T2", "error"],
    ]);
    expect(detail.session.research?.sources.map((source) => source.status)).toEqual(["cited", "cited", "excluded"]);

    const report = detail.entries.find((entry) => entry.id === REPORT_ENTRY_ID);
    const details = report?.type === "message" && report.role === "assistant" ? report.researchReport : undefined;
    expect(details?.citations.map((citation) => [citation.number, citation.valid])).toEqual([
      [1, true],
      [2, true],
      [3, false],
      [1, true],
    ]);
    expect(details?.support.map((item) => item.verdict)).toEqual(["supported", "supported", "supported", "unsupported"]);
    const call = detail.entries.find((entry): entry is ToolTranscriptEntry => entry.type === "tool" && entry.name === "subagent");
    expect(call?.researchThreads?.map((thread) => thread.threadId)).toEqual(["T1", "T2"]);
  });
});

/**
 * A scripted deep-research run in the browser (issue 5, "Tests"; spec/deep-research.md): the real server with
 * the bundled research and subagent extensions in real worker processes, and the faux provider playing the
 * lead and two researchers. The lead plans two threads, runs the reserved researcher on each (each returns a
 * `<research_result>` with sources), excludes one source, marks synthesis and the report
 * checkpoint, and writes a report whose numeric citations match the ledger. The browser starts the session
 * from the start screen, sends the objective, waits for the validated report, inspects a thread, opens a
 * citation preview (Escape closes it and focus returns) and switches the source rail to the full ledger.
 * A second flow opens a recorded research session (test/support/research-session.ts: hostile HTML in its
 * titles, claims and messages) from the sidebar and checks the same views without running a model.
 * Screenshots (1280×800 and 390×844): test/e2e/screenshots/.
 */
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { FauxTurn } from "../../adapters/runtime-protocol/faux-script.ts";
import { HOSTILE, RESEARCH_SESSION_ID, writeResearchSession } from "../support/research-session.ts";
import { apiJson, createSession, e2eSuite, FLOW_TIMEOUT_MS } from "./support/e2e-suite.ts";
import { sessionFolderName } from "./support/session-seed.ts";
import {
  dt,
  overflowingRight,
  sameRowProblem,
  sendPrompt,
  sidebarRowProblems,
  waitForMessage,
  waitForSessionUrl,
} from "./support/workbench-page.ts";

const OBJECTIVE = "Research objective: how much did European heat pump sales grow in 2022?";
const MATCH = "how much did European heat pump sales grow";

const SOURCES = {
  ehpa: {
    url: "https://www.ehpa.org/market-data/",
    title: "European heat pump market report",
    publisher: "EHPA",
    publishedAt: "2023-06-20",
    kind: "report",
    claim: "Heat pump sales in Europe grew by 38% in 2022.",
    evidence: "Sales grew by 38% in 2022 to about 3 million units.",
  },
  iea: {
    url: "https://www.iea.org/reports/the-future-of-heat-pumps",
    title: "The Future of Heat Pumps",
    publisher: "IEA",
    publishedAt: "2022-11-30",
    kind: "report",
    claim: "Heat pumps met a growing share of heating demand in Europe in 2022.",
    evidence: "In the European Union heat pump sales grew by nearly 40% in 2022.",
  },
  blog: {
    url: "https://example.com/blog/heat-pumps",
    title: "Heat pumps are booming",
    publisher: "Example Blog",
    kind: "blog",
    claim: "Sales tripled in 2022.",
    evidence: "Our readers bought three times as many heat pumps.",
  },
};

function researchResult(threadId: string, title: string, summary: string, sources: object[]): string {
  const block = JSON.stringify({ threadId, title, summary, sources });
  return `I read the sources for ${threadId}.\n\n<research_result>${block}</research_result>`;
}

const REPORT = [
  "# Heat pump sales in Europe, 2022",
  "",
  `Heat pump sales in Europe grew by 38% in 2022 [1](${SOURCES.ehpa.url}).`,
  `In the European Union sales grew by nearly 40% in 2022 [3](${SOURCES.iea.url}).`,
].join("\n");

const research = (args: Record<string, unknown>) => ({ name: "research_update", arguments: args });

/** The lead's turns match the objective; each researcher's turn matches its task ("<thread id>: <task>"). */
const TURNS: FauxTurn[] = [
  {
    match: MATCH,
    toolCalls: [
      research({
        action: "plan",
        strategy: "Compare the industry association's figures with the energy agency's analysis.",
        threads: [
          { id: "t1", title: "Industry figures", task: "Collect EHPA heat pump sales figures for 2022" },
          { id: "t2", title: "Agency analysis", task: "Find the IEA analysis of heat pump growth in 2022" },
        ],
      }),
    ],
  },
  // One researcher per call: ledger ids follow registration order, and two parallel workers would finish in
  // either order (t1's sources get 1 and 2, t2's source gets 3).
  {
    match: MATCH,
    toolCalls: [{ name: "subagent", arguments: { agent: "researcher", task: "t1: Collect EHPA heat pump sales figures for 2022" } }],
  },
  {
    match: MATCH,
    toolCalls: [{ name: "subagent", arguments: { agent: "researcher", task: "t2: Find the IEA analysis of heat pump growth in 2022" } }],
  },
  {
    match: "Collect EHPA heat pump sales figures",
    text: researchResult("t1", "Industry figures", "EHPA reports 38% growth in 2022; a blog claims sales tripled.", [
      SOURCES.ehpa,
      SOURCES.blog,
    ]),
  },
  {
    match: "Find the IEA analysis",
    text: researchResult("t2", "Agency analysis", "The IEA reports nearly 40% growth in the EU in 2022.", [SOURCES.iea]),
  },
  { match: MATCH, toolCalls: [research({ action: "exclude", sourceId: 2, reason: "Unsourced blog claim" })] },
  { match: MATCH, toolCalls: [research({ action: "phase", phase: "synthesize", note: "Comparing the figures" })] },
  {
    match: MATCH,
    toolCalls: [research({ action: "phase", phase: "report", title: "Heat pump sales in Europe, 2022", citedSourceIds: [1, 3] })],
  },
  { match: MATCH, text: REPORT },
];

describe("a research session in the browser", { timeout: FLOW_TIMEOUT_MS }, () => {
  const suite = e2eSuite({
    turns: TURNS,
    seed: (dirs) => {
      const folder = path.join(dirs.sessionsDir, sessionFolderName(dirs.projectDir));
      writeResearchSession(folder, `2026-01-05T10-00-00-000Z_${RESEARCH_SESSION_ID}.jsonl`, RESEARCH_SESSION_ID, dirs.projectDir);
    },
  });

  it("opens a recorded research session from the sidebar: threads, report, citation preview, ledger", async () => {
    const { page, browser } = suite;
    const dialogs: string[] = [];
    page.on("dialog", (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    await page.goto("/");
    const item = page.locator(dt("session-item", { "data-session-id": RESEARCH_SESSION_ID }));
    await item.waitFor();
    expect(await item.getAttribute("data-research-status")).toBe("complete");
    await item.click();
    expect(await waitForSessionUrl(page)).toBe(RESEARCH_SESSION_ID);

    const panel = page.locator(dt("research-panel"));
    await panel.locator(dt("phase-bar", { "data-phase": "report" })).waitFor();
    expect(await panel.locator(dt("research-status")).getAttribute("data-state")).toBe("complete");
    expect(
      await panel
        .locator(dt("thread-chip"))
        .evaluateAll((els) => els.map((el) => `${el.getAttribute("data-thread-id")}:${el.getAttribute("data-status")}`)),
    ).toEqual(["T1:done", "T2:error"]);
    const artifact = panel.locator(dt("report-artifact", { "data-state": "ready" }));
    await artifact.waitFor();
    // Verdicts from the backend's support check mark the rendered citations.
    await expect.poll(() => artifact.locator(`${dt("citation-link")}[data-verdict]`).count()).toBeGreaterThan(0);

    const citation = artifact.locator(dt("citation-link", { "data-citation": "1" })).first();
    await citation.click();
    const preview = artifact.locator(dt("citation-preview"));
    await preview.waitFor();
    expect(await preview.textContent()).toContain("Electric kettles convert 80 percent of their energy into heat.");
    await preview.press("Escape");
    await preview.waitFor({ state: "detached" });
    expect(await citation.evaluate((el) => el.ownerDocument.activeElement === el)).toBe(true);

    await panel.locator(dt("source-view-all")).click();
    const excluded = panel.locator(dt("source-item", { "data-status": "excluded" }));
    await excluded.waitFor();
    expect(await excluded.textContent()).toContain(`Paywalled and unverifiable ${HOSTILE}`);
    // Long unbroken titles (hostile markup shown as text) wrap inside the rail instead of running past it.
    expect(await overflowingRight(page.locator("#workbench-research"))).toEqual([]);
    await browser.screenshots("09-recorded-research", page, async (size) => {
      if (size.width < 1200) await page.getByRole("tab", { name: "Research" }).click();
    });

    // Hostile HTML in the session stayed text: nothing ran, nothing loaded.
    expect(dialogs).toEqual([]);
    expect(await page.locator('img[src*="evil.example"]').count()).toBe(0);
    expect(browser.errors).toEqual([]);
  });

  it("runs a scripted research session to a validated report and opens a citation preview", async () => {
    const { page, browser, server } = suite;
    const info = await apiJson<{ capabilities: { research?: boolean } }>(server, "GET", "/api/pi/info");

    // Start a research session from the start screen and send the objective. The start screen offers the
    // research control only when the backend advertises capabilities.research; until it does, the session is
    // started the way the control starts it (POST /api/pi/sessions, kind research) and opened by its URL.
    await page.goto("/");
    await page.locator(dt("start-screen")).waitFor();
    if (info.capabilities.research === true) {
      await page.locator(dt("project-path")).fill(server.projectDir);
      await page.locator(dt("project-path")).press("Enter");
      const start = page.locator(dt("start-research"));
      await expect.poll(() => start.isEnabled()).toBe(true);
      await start.click();
    } else {
      expect(await page.locator(dt("start-research")).count()).toBe(0);
      await page.goto(`/sessions/${encodeURIComponent(await createSession(server, server.projectDir, "research"))}`);
    }
    const sessionId = await waitForSessionUrl(page);
    const panel = page.locator(dt("research-panel"));
    await panel.waitFor();
    await panel.locator(dt("phase-bar", { "data-phase": "plan" })).waitFor();
    await sendPrompt(page, OBJECTIVE);

    // The run ends with a validated report: status complete, phase report, the artifact rendered.
    await panel.locator(dt("research-status", { "data-state": "complete" })).waitFor();
    await panel.locator(dt("phase-bar", { "data-phase": "report" })).waitFor();
    const artifact = panel.locator(dt("report-artifact", { "data-state": "ready" }));
    await artifact.waitFor();
    await waitForMessage(page, "assistant", "Heat pump sales in Europe grew by 38% in 2022");
    await page.locator(dt("session-item", { "data-session-id": sessionId, "data-research-status": "complete" })).waitFor();

    // Threads: both researchers done, each with its sources and a link to its child session.
    const chips = panel.locator(dt("thread-chip"));
    await expect
      .poll(() => chips.evaluateAll((els) => els.map((el) => `${el.getAttribute("data-thread-id")}:${el.getAttribute("data-status")}`)))
      .toEqual(["t1:done", "t2:done"]);
    await panel.locator(dt("thread-chip", { "data-thread-id": "t1" })).click();
    const inspector = panel.locator(dt("subagent-inspector"));
    await inspector.waitFor();
    expect(await inspector.textContent()).toContain("EHPA reports 38% growth in 2022");
    expect(await inspector.locator("[data-source-id]").count()).toBe(2);
    const childHref = await inspector.locator(dt("subagent-child-link")).getAttribute("href");
    expect(childHref).toMatch(/^\/sessions\/[^/]+$/);
    await inspector.press("Escape");
    await inspector.waitFor({ state: "detached" });

    // Sources: two cited, one excluded with its reason in the full ledger.
    const rail = panel.locator(dt("source-rail"));
    await expect.poll(() => rail.locator(dt("source-item", { "data-status": "cited" })).count()).toBe(2);
    await rail.locator(dt("source-view-all")).click();
    const excluded = rail.locator(dt("source-item", { "data-status": "excluded" }));
    await excluded.waitFor();
    expect(await excluded.textContent()).toContain("Unsourced blog claim");
    await rail.locator(dt("source-view-cited")).click();
    // With the research rail open the composer is narrow: Send stays beside Interrupt. The open row's long
    // title ends in an ellipsis before its actions instead of running under them.
    expect(await sameRowProblem(page.locator(dt("interrupt")), page.locator(dt("send")), page.locator(dt("composer")))).toBe("");
    expect(await sidebarRowProblems(page, sessionId)).toEqual([]);
    expect(await overflowingRight(page.locator("#workbench-research"))).toEqual([]);
    await browser.screenshots("10-research-report", page, async (size) => {
      if (size.width < 1200) await page.getByRole("tab", { name: "Research" }).click();
    });

    // A citation opens an anchored preview with the claim and the evidence; Escape closes it, focus returns.
    const citation = artifact.locator(dt("citation-link", { "data-citation": "1" })).first();
    await citation.click();
    const preview = artifact.locator(dt("citation-preview"));
    await preview.waitFor();
    expect(await preview.getAttribute("data-status")).toBe("cited");
    const text = await preview.textContent();
    expect(text).toContain(SOURCES.ehpa.title);
    expect(text).toContain(SOURCES.ehpa.claim);
    expect(text).toContain(SOURCES.ehpa.evidence);
    const box = await preview.boundingBox();
    const anchor = await citation.boundingBox();
    expect(box !== null && anchor !== null && box.y >= anchor.y + anchor.height - 1).toBe(true);
    await browser.screenshots("11-citation-preview", page, async (size) => {
      if (size.width < 1200) {
        await page.getByRole("tab", { name: "Research" }).click();
        if (!(await preview.isVisible())) await citation.click();
        await preview.waitFor();
      }
    });
    if (!(await preview.isVisible())) await citation.click();
    await preview.press("Escape");
    await preview.waitFor({ state: "detached" });
    expect(await citation.evaluate((el) => el.ownerDocument.activeElement === el)).toBe(true);

    // The child session of a thread opens from the inspector.
    await panel.locator(dt("thread-chip", { "data-thread-id": "t1" })).click();
    await panel.locator(dt("subagent-child-link")).click();
    const childId = await waitForSessionUrl(page, sessionId);
    expect(`/sessions/${childId}`).toBe(childHref);
    await waitForMessage(page, "assistant", "I read the sources for t1.");
    expect(browser.errors).toEqual([]);
  });
});

/**
 * Traces in a browser (issue 17): the real server with the bundled research and subagent extensions in real
 * worker processes and the faux provider playing a research lead and two researchers. Nothing opens a traces view
 * while the run goes: capture happens anyway. Then the user turn's "Trace" link opens the lead's run: its timeline
 * (model calls, tools under them, each researcher's run nested under the `subagent` call that started it, opened
 * on demand) with tokens and time; the bookmark is stored; the list searches and filters; the capture switch is
 * stored. Screenshots (1280×800 and 390×844): test/e2e/screenshots/traces-*.
 */
import { describe, expect, it } from "vitest";
import type { FauxTurn } from "../../adapters/runtime-protocol/faux-script.ts";
import type { Trace, TraceConfig, TraceList } from "../../domain/traces/trace-types.ts";
import { apiJson, createSession, e2eSuite, FLOW_TIMEOUT_MS } from "./support/e2e-suite.ts";
import { dt, sendPrompt, waitForMessage } from "./support/workbench-page.ts";

const OBJECTIVE = "Research objective: which birds migrate the farthest?";
const MATCH = "which birds migrate the farthest";

function result(threadId: string, url: string, summary: string): string {
  const sources = [
    { url, title: `${threadId} source`, publisher: "Ex", publishedAt: "", kind: "article", claim: summary, evidence: summary },
  ];
  return `Notes for ${threadId}.\n\n<research_result>${JSON.stringify({ threadId, title: threadId, summary, sources })}</research_result>`;
}

const research = (args: Record<string, unknown>) => ({ name: "research_update", arguments: args });

const TURNS: FauxTurn[] = [
  {
    match: MATCH,
    toolCalls: [
      research({
        action: "plan",
        strategy: "Two angles",
        threads: [
          { id: "t1", title: "Terns", task: "Arctic tern distances" },
          { id: "t2", title: "Godwits", task: "Bar-tailed godwit flights" },
        ],
      }),
    ],
  },
  {
    match: MATCH,
    toolCalls: [
      {
        name: "subagent",
        arguments: {
          tasks: [
            { agent: "researcher", task: "t1: Arctic tern distances" },
            { agent: "researcher", task: "t2: Bar-tailed godwit flights" },
          ],
        },
      },
    ],
  },
  { match: "Arctic tern distances", text: result("t1", "https://birds.example/tern", "Arctic terns fly about 70,000 km a year.") },
  { match: "Bar-tailed godwit flights", text: result("t2", "https://birds.example/godwit", "Godwits fly 11,000 km nonstop.") },
  { match: MATCH, toolCalls: [research({ action: "phase", phase: "report", title: "Farthest migrants", citedSourceIds: [1, 2] })] },
  {
    match: MATCH,
    text: "# Farthest migrants\n\nArctic terns [1](https://birds.example/tern) and godwits [2](https://birds.example/godwit).",
  },
];

describe("traces in a browser", { timeout: FLOW_TIMEOUT_MS }, () => {
  const suite = e2eSuite({ turns: TURNS });

  it("captures a research run without a view, and shows it: timeline, nested researcher runs, bookmark, search, capture switch", async () => {
    const { page, browser, server } = suite;
    const info = await apiJson<{ capabilities: { tracing: boolean } }>(server, "GET", "/api/pi/info");
    expect(info.capabilities.tracing).toBe(true);

    const sessionId = await createSession(server, server.projectDir, "research");
    await page.goto(`/sessions/${encodeURIComponent(sessionId)}`);
    await sendPrompt(page, OBJECTIVE);
    await waitForMessage(page, "assistant", "Arctic terns");
    // Captured while no traces view was open: the lead and both researchers, finished.
    await expect
      .poll(async () => {
        const list = await apiJson<TraceList>(server, "GET", "/api/pi/traces");
        return list.traces.map((trace) => trace.status).join(",");
      })
      .toBe("completed,completed,completed");
    const list = await apiJson<TraceList>(server, "GET", "/api/pi/traces");
    const lead = list.traces.find((trace) => trace.sessionId === sessionId)!;
    expect(lead.name).toBe(OBJECTIVE);

    // The user turn links to its run.
    const prompt = await waitForMessage(page, "user", OBJECTIVE);
    await prompt.hover();
    const link = prompt.locator(dt("trace-link"));
    await link.waitFor();
    await link.click();
    await page.waitForURL(`**/traces/${lead.id}**`);
    const detail = page.locator(dt("trace-detail"));
    await detail.waitFor();
    expect(await detail.textContent()).toContain(OBJECTIVE);

    // The timeline: model calls, the tools they asked for, the researchers' runs under the subagent call.
    const rows = detail.locator(dt("trace-observation"));
    await expect.poll(() => rows.count()).toBeGreaterThan(4);
    const types = await rows.evaluateAll((els) => els.map((el) => el.getAttribute("data-type")));
    expect(types).toContain("GENERATION");
    expect(types).toContain("TOOL");
    const children = detail.locator(dt("trace-child-run"));
    await expect.poll(() => children.count()).toBe(2);
    await children.first().locator(dt("trace-child-toggle")).click();
    const nested = children.first().locator(dt("trace-observation", { "data-type": "GENERATION" }));
    await nested.first().waitFor();
    expect(await children.first().textContent()).toMatch(/researcher: t[12]/);
    await browser.screenshots("traces-01-research-run");
    // The nested run's rows at both sizes (at 390 px the timeline is below the list).
    await browser.screenshots("traces-03-timeline", page, async () => {
      await children.first().scrollIntoViewIfNeeded();
    });
    expect(await page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")).toBe(true);

    // A tool row opens its input and output.
    const subagentCall = detail
      .locator(dt("trace-observation", { "data-type": "TOOL" }))
      .filter({ hasText: "subagent" })
      .first();
    await subagentCall.locator("button.row").first().click();
    await subagentCall.locator(dt("trace-observation-detail")).waitFor();

    // Bookmark.
    await detail.locator(dt("trace-bookmark")).click();
    await expect
      .poll(async () => (await apiJson<{ trace: Trace }>(server, "GET", `/api/pi/traces/${lead.id}`)).trace.bookmarked)
      .toBe(true);

    // The list: every run, search, status filter.
    await page.goto("/traces");
    const listRows = page.locator(dt("trace-row"));
    await expect.poll(() => listRows.count()).toBe(3);
    await page.locator(dt("trace-search")).fill("bar-tailed");
    await expect.poll(() => listRows.count()).toBe(1);
    expect(await listRows.first().textContent()).toContain("t2: Bar-tailed godwit flights");
    await page.locator(dt("trace-search")).fill("");
    await expect.poll(() => listRows.count()).toBe(3);
    await page.locator(dt("trace-status")).selectOption("error");
    await page.locator(dt("trace-list-empty")).waitFor();
    await page.locator(dt("trace-status")).selectOption("");
    await expect.poll(() => listRows.count()).toBe(3);
    await browser.screenshots("traces-02-list");

    // The capture switch is stored on the backend.
    const capture = page.locator(dt("trace-capture"));
    await capture.click();
    await expect.poll(async () => (await apiJson<TraceConfig>(server, "GET", "/api/pi/traces/config")).enabled).toBe(false);
    await capture.click();
    await expect.poll(async () => (await apiJson<TraceConfig>(server, "GET", "/api/pi/traces/config")).enabled).toBe(true);
    expect(browser.errors).toEqual([]);
  });
});

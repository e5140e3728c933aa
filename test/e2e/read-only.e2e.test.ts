/**
 * Viewing in the browser is read-only (issue 9, "Tests and figures"): the real server (api/app.ts, forked
 * workers, the faux script) over an agent dir as a person's ~/.pi holds it (test/read-only/read-only.fixture.ts)
 * and the built client in Chromium. Every session of the pi SDK corpus, the version-1/2 files, the CLI, research,
 * foreign-model and missing-cwd sessions, and a sample of the generated ones are opened three ways: by clicking
 * them in the sidebar (found with its search), by deep link /sessions/<id>, and by reloading that link; each time
 * the test waits until the transcript shows entries of that session. Afterwards every file of the agent dir has
 * the bytes, size and mtime it had before the server started, no runtime was opened (no worker process seen
 * but the server's spare, still the same one: see api-read-only.int.test.ts), and the client sent no request
 * that can write (anything but GET under /api).
 * One screenshot per kind of session (1280×800 and 390×844): test/e2e/screenshots/read-only-<kind>-*.png.
 */
import path from "node:path";
import { performance } from "node:perf_hooks";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import {
  buildPiCorpusTemplate,
  diffSnapshots,
  installReadOnlyAgentDir,
  snapshotTree,
  workerProcessesOf,
  type PiCorpusTemplate,
  type ReadOnlyKind,
  type ReadOnlySession,
  type TreeSnapshot,
} from "../read-only/read-only.fixture.ts";
import { ensureClientBuilt } from "./support/client-build.ts";
import { openBrowser, SCREENSHOTS_DIR, type E2eBrowser } from "./support/e2e-browser.ts";
import { acquireE2eLock } from "./support/e2e-lock.ts";
import { startE2eServer, type E2eServer } from "./support/e2e-server.ts";
import { SUITE_SETUP_TIMEOUT_MS } from "./support/e2e-suite.ts";
import { dt } from "./support/workbench-page.ts";

/** The DOM the page functions below touch (they run in the page; the root tsconfig has no DOM library). */
interface PageElement {
  getAttribute(name: string): string | null;
  querySelectorAll(selector: string): Iterable<PageElement>;
}
declare const document: { querySelector(selector: string): PageElement | null };

/** Generated sessions opened (of each generated kind), besides every hand-picked one. */
const GENERATED_SAMPLE = 2;

describe("viewing sessions in the browser", { timeout: 600_000 }, () => {
  let release: (() => void) | null = null;
  let template: PiCorpusTemplate | null = null;
  let server: E2eServer | null = null;
  let browser: E2eBrowser | null = null;
  let sessions: ReadOnlySession[] = [];
  let before: TreeSnapshot | null = null;
  const workersSeen = new Set<number>();
  let sampler: NodeJS.Timeout | null = null;
  /** The server's spare worker when it started (pi imported, no session: not a runtime). */
  let sparePid: number | null = null;
  /** Requests the page sent that can write: any method but GET/HEAD under /api. */
  const writeRequests: string[] = [];

  beforeAll(async () => {
    release = await acquireE2eLock();
    ensureClientBuilt();
    template = await buildPiCorpusTemplate();
    const built = template;
    // Workers are children of this process (the server runs in it); sampled so that a short-lived one counts.
    sampler = setInterval(() => workerProcessesOf(process.pid).forEach((pid) => workersSeen.add(pid)), 100);
    server = await startE2eServer({
      turns: [],
      seed: (dirs) => {
        sessions = installReadOnlyAgentDir(built, {
          agentDir: dirs.agentDir,
          projectDir: dirs.projectDir,
          goneDir: path.join(dirs.root, "removed-project"),
        });
        before = snapshotTree(dirs.agentDir);
      },
    });
    sparePid = server.app.leyline.host.spareWorker()?.pid ?? null;
    browser = await openBrowser(server.url);
    browser.page.on("request", (request) => {
      const url = new URL(request.url());
      if (url.pathname.startsWith("/api/") && request.method() !== "GET" && request.method() !== "HEAD") {
        writeRequests.push(`${request.method()} ${url.pathname}`);
      }
    });
  }, SUITE_SETUP_TIMEOUT_MS);

  afterEach(async (context) => {
    if (context.task.result?.state !== "fail" || browser === null) return;
    const name = context.task.name.replace(/[^a-z0-9]+/gi, "-").toLowerCase();
    await browser.page.screenshot({ path: path.join(SCREENSHOTS_DIR, `failed-${name}.png`) }).catch(() => undefined);
    const seen = [...browser.errors, ...browser.httpErrors];
    if (seen.length > 0) console.error(`browser errors during "${context.task.name}":\n${seen.join("\n")}`);
  });

  afterAll(async () => {
    if (sampler !== null) clearInterval(sampler);
    // Each step runs even when an earlier one fails, so no temp dir or lock is left behind.
    try {
      await browser?.close();
    } finally {
      try {
        await server?.close();
      } finally {
        template?.dispose();
        release?.();
      }
    }
  }, 120_000);

  const live = (): { server: E2eServer; browser: E2eBrowser; page: Page; before: TreeSnapshot } => {
    if (server === null || browser === null || before === null) throw new Error("the suite did not start");
    return { server, browser, page: browser.page, before };
  };

  /** Every hand-made session, and GENERATED_SAMPLE of each generated kind. */
  function chosenSessions(): ReadOnlySession[] {
    const generated = (kind: ReadOnlyKind) => sessions.filter((s) => s.kind === kind).slice(0, GENERATED_SAMPLE);
    return [
      ...sessions.filter((s) => !s.kind.startsWith("generated")),
      ...generated("generated"),
      ...generated("generated-subagent"),
      ...generated("generated-research"),
    ];
  }

  /** The entry ids GET /api/pi/sessions/:id lists (read-only, as the first test of api-read-only shows). */
  async function entryIds(session: ReadOnlySession): Promise<string[]> {
    const response = await fetch(`${live().server.url}/api/pi/sessions/${encodeURIComponent(session.id)}`);
    const detail = (await response.json()) as { entries: Array<{ id: string }> };
    return detail.entries.map((entry) => entry.id);
  }

  /** Waits until the workbench of `session` shows at least one of its transcript entries. */
  async function waitForTranscript(page: Page, session: ReadOnlySession, ids: readonly string[]): Promise<void> {
    await page.waitForFunction(
      ([workbench, entry, wanted]) => {
        const root = document.querySelector(workbench);
        if (root === null) return false;
        const known = new Set(wanted);
        return [...root.querySelectorAll(entry)].some((el) => known.has(el.getAttribute("data-entry-id") ?? ""));
      },
      [dt("workbench", { "data-session-id": session.id }), `${dt("transcript")} ${dt("entry")}`, ids] as const,
    );
  }

  const timings: Record<string, number[]> = {};
  const record = (how: string, ms: number): void => {
    (timings[how] ??= []).push(Math.round(ms));
  };

  it("opens every chosen session from the sidebar", async () => {
    const { page, browser } = live();
    const chosen = chosenSessions();
    await page.goto("/");
    await page.locator(dt("connection-status", { "data-state": "connected" })).waitFor();
    const sidebar = page.locator(dt("sidebar"));
    const shotKinds = new Set<ReadOnlyKind>();
    for (const session of chosen) {
      const ids = await entryIds(session);
      // The search matches ids across every project, so each session is one row away.
      await sidebar.locator(dt("session-search")).fill(session.id);
      const item = sidebar.locator(dt("session-item", { "data-session-id": session.id }));
      await item.waitFor();
      const t0 = performance.now();
      await item.click();
      await waitForTranscript(page, session, ids);
      record("sidebar click", performance.now() - t0);
      if (!shotKinds.has(session.kind)) {
        shotKinds.add(session.kind);
        await browser.screenshots(`read-only-${session.kind}`);
      }
    }
    expect(browser.errors).toEqual([]);
  });

  it("opens every chosen session by deep link and after a reload", async () => {
    const { page, browser } = live();
    for (const session of chosenSessions()) {
      const ids = await entryIds(session);
      let t0 = performance.now();
      await page.goto(`/sessions/${encodeURIComponent(session.id)}`);
      await waitForTranscript(page, session, ids);
      record("deep link", performance.now() - t0);
      t0 = performance.now();
      await page.reload();
      await waitForTranscript(page, session, ids);
      record("reload", performance.now() - t0);
    }
    expect(browser.errors).toEqual([]);
  });

  it("shows the tree of every hand-made session and finds message text across the corpus (issue 15)", async () => {
    const { page, browser, server } = live();
    const handMade = sessions.filter((s) => !s.kind.startsWith("generated") && s.kind !== "cwd-gone");
    for (const session of handMade) {
      const ids = await entryIds(session);
      await page.goto(`/sessions/${encodeURIComponent(session.id)}`);
      await waitForTranscript(page, session, ids);
      await page.locator(dt("open-tree")).click();
      const panel = page.locator(dt("tree-panel"));
      await panel
        .locator(`${dt("tree-row")}[data-leaf="true"]`)
        .first()
        .waitFor();
      if (session.kind === "v1" || session.kind === "pi-sdk-main") await browser.screenshots(`read-only-tree-${session.kind}`);
      await page.locator(dt("open-tree")).click();
    }
    // The longest word of the version-1 session's messages, searched from the sidebar, lists a hit holding it.
    const v1 = sessions.find((s) => s.kind === "v1");
    const detail = (await (await fetch(`${server.url}/api/pi/sessions/${encodeURIComponent(v1?.id ?? "")}`)).json()) as {
      entries: Array<{ id: string; type: string; role?: string; text?: string }>;
    };
    const texts = detail.entries.filter((e) => e.type === "message").map((e) => e.text ?? "");
    const word =
      texts
        .join(" ")
        .split(/[^A-Za-z]+/)
        .sort((a, b) => b.length - a.length)[0] ?? "";
    expect(word.length).toBeGreaterThan(5);
    // From the workbench's sidebar (the start screen would preview a folder with a worker).
    const search = page.locator(dt("session-search"));
    await search.fill(word);
    const hit = page.locator(`${dt("search-result")}[data-session-id="${v1?.id ?? ""}"]`).first();
    await hit
      .or(
        page
          .locator(dt("search-result"))
          .filter({ hasText: new RegExp(word, "i") })
          .first(),
      )
      .first()
      .waitFor();
    await browser.screenshots("read-only-search");
    expect(browser.errors).toEqual([]);
  });

  it("wrote no byte, opened no runtime and sent no write request", async () => {
    const { server } = live();
    const summary = Object.fromEntries(
      Object.entries(timings).map(([how, list]) => {
        const sorted = [...list].sort((a, b) => a - b);
        return [how, { n: list.length, medianMs: sorted[Math.floor(sorted.length / 2)], maxMs: sorted[sorted.length - 1] }];
      }),
    );
    console.log(`read-only e2e: time to transcript ${JSON.stringify(summary)}`);
    const health = (await (await fetch(`${server.url}/api/health`)).json()) as { activeWorkers: number };
    // No worker but the server's spare, still the same process: a spare taken to open a runtime is replaced.
    expect
      .soft({
        workersStarted: [...workersSeen].filter((pid) => pid !== sparePid).length,
        spare: sparePid !== null && server.app.leyline.host.spareWorker()?.pid === sparePid ? "unchanged" : "replaced",
        activeWorkers: health.activeWorkers,
      })
      .toEqual({ workersStarted: 0, spare: "unchanged", activeWorkers: 0 });
    expect.soft([...new Set(writeRequests)]).toEqual([]);
    expect.soft(diffSnapshots(live().before, snapshotTree(server.agentDir))).toEqual([]);
  });
});

/**
 * Viewing is read-only, in a browser (issue 9): the real server over temp dirs (real worker processes, the
 * scripted faux model) and the built client in Chromium.
 *
 * - Opening recorded sessions from the sidebar, by deep link and after a reload (a version-3 session without a
 *   thinking level entry, which pi would append to, and a version-1 file written by pi, which pi would
 *   rewrite) starts no worker (GET /api/health `activeWorkers`, the host's own list), sends no request but
 *   GETs, and leaves every session file's bytes and mtime as they were.
 * - Typing and pressing Enter right after opening works: the prompts sent while pi starts are listed as
 *   waiting, then sent in order once it is ready, and the faux replies appear.
 * - A session whose folder no longer exists shows one message where the composer would be, and no composer.
 * - Acting on the version-1 file (whose model this server does not have) upgrades it: a notice says so once,
 *   with where the original copy is, and the composer and the transcript say which model pi uses instead.
 *
 * Every wait is on a selector or a page condition, never on time. Screenshots (1280×800 and 390×844):
 * test/e2e/screenshots/view-*.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { Request } from "playwright-core";
import type { FauxTurn } from "../../adapters/runtime-protocol/faux-script.ts";
import { apiJson, e2eSuite, FLOW_TIMEOUT_MS } from "./support/e2e-suite.ts";
import { PI_SESSION_FIXTURES_DIR } from "../support/fixtures.ts";
import { sessionFolderName, writeSeedSession } from "./support/session-seed.ts";
import { dt, messageEntries, waitForMessage, waitForSessionUrl } from "./support/workbench-page.ts";

const TURNS: FauxTurn[] = [
  { match: "Right after opening", text: "First reply, after pi started." },
  { match: "Typed while pi starts", text: "Second reply, sent in order." },
  { match: "Carry on with the old session", text: "Carrying on with a fallback model." },
];

interface FileState {
  bytes: Buffer;
  mtimeMs: number;
}

function fileStates(files: readonly string[]): Map<string, FileState> {
  return new Map(files.map((file) => [file, { bytes: fs.readFileSync(file), mtimeMs: fs.statSync(file).mtimeMs }]));
}

/** The files whose bytes or mtime differ from `before` (or that appeared or vanished), by name. */
function changedFiles(before: Map<string, FileState>, files: readonly string[]): string[] {
  const now = fileStates(files);
  const names = new Set([...before.keys(), ...now.keys()]);
  return [...names].filter((file) => {
    const a = before.get(file);
    const b = now.get(file);
    return a === undefined || b === undefined || !a.bytes.equals(b.bytes) || a.mtimeMs !== b.mtimeMs;
  });
}

describe("viewing sessions in a browser is read-only", { timeout: FLOW_TIMEOUT_MS }, () => {
  let viewed = { id: "", file: "" };
  let acted = { id: "", file: "" };
  let gone = { id: "", file: "" };
  const v1 = { id: "0b7c4d1e-9f3a-4e2b-8c6d-000000000001", file: "" };
  let goneCwd = "";
  const suite = e2eSuite({
    turns: TURNS,
    seed: (dirs) => {
      const hourAgo = Date.now() - 60 * 60 * 1000;
      viewed = writeSeedSession(dirs.sessionsDir, {
        cwd: dirs.projectDir,
        name: "Tide tables",
        messages: ["When is high tide?", "High tide is at 14:20 today, low tide at 20:35."],
        startMs: hourAgo,
      });
      acted = writeSeedSession(dirs.sessionsDir, {
        cwd: dirs.projectDir,
        name: "Garden plan",
        messages: ["Which beans grow in shade?", "Runner beans cope with partial shade."],
        startMs: hourAgo + 60_000,
      });
      // A version-1 file as pi wrote it, moved to this project (its own folder does not exist here).
      const v1Text = fs.readFileSync(path.join(PI_SESSION_FIXTURES_DIR, "v1-before-compaction.jsonl"), "utf8");
      const v1Header = JSON.parse(v1Text.slice(0, v1Text.indexOf("\n"))) as Record<string, unknown>;
      v1.file = path.join(dirs.sessionsDir, sessionFolderName(dirs.projectDir), `2025-12-09T00-53-29-825Z_${v1.id}.jsonl`);
      fs.writeFileSync(v1.file, JSON.stringify({ ...v1Header, id: v1.id, cwd: dirs.projectDir }) + v1Text.slice(v1Text.indexOf("\n")));
      goneCwd = path.join(dirs.home, "deleted-project");
      gone = writeSeedSession(dirs.sessionsDir, {
        cwd: goneCwd,
        name: "Old experiment",
        messages: ["Run the old script", "It printed 42."],
        startMs: hourAgo + 120_000,
      });
    },
  });

  /** Records the page's API requests other than GET (and the WebSocket upgrade, which is a GET). */
  function recordWrites(): { writes: string[]; stop: () => void } {
    const writes: string[] = [];
    const onRequest = (request: Request): void => {
      const url = new URL(request.url());
      if (url.pathname.startsWith("/api/") && request.method() !== "GET") writes.push(`${request.method()} ${url.pathname}`);
    };
    suite.page.on("request", onRequest);
    return { writes, stop: () => suite.page.off("request", onRequest) };
  }

  async function activeWorkers(): Promise<number> {
    return (await apiJson<{ activeWorkers: number }>(suite.server, "GET", "/api/health")).activeWorkers;
  }

  it("opens a recorded session from the sidebar, by deep link and after a reload without starting pi or touching a file", async () => {
    const { page, browser, server } = suite;
    const before = fileStates(server.sessionFiles());
    const recorder = recordWrites();
    try {
      await page.goto("/");
      await page.locator(dt("connection-status", { "data-state": "connected" })).waitFor();
      const sidebar = page.locator(dt("sidebar"));
      const item = sidebar.locator(dt("session-item", { "data-session-id": viewed.id }));
      if (!(await item.isVisible())) await sidebar.locator(dt("session-search")).fill("Tide tables");
      await item.click();
      expect(await waitForSessionUrl(page)).toBe(viewed.id);
      await waitForMessage(page, "assistant", "High tide is at 14:20");
      // The composer is there and takes typing; the model shown is the session's own (from its entries).
      await page.locator(dt("composer-input")).waitFor();
      expect(await page.locator(dt("model-picker")).inputValue()).toBe("faux/faux-1");
      await browser.screenshots("view-01-opened-from-sidebar");

      // The version-1 file: readable as it is; acting on it would upgrade it, and the composer says so.
      await page.goto(`/sessions/${encodeURIComponent(v1.id)}`);
      await page.locator(dt("entry")).first().waitFor();
      expect(await page.locator(dt("upgrade-hint")).textContent()).toContain("version-1");
      await browser.screenshots("view-01b-version-1-file");

      await page.goto(`/sessions/${encodeURIComponent(acted.id)}`);
      await waitForMessage(page, "assistant", "Runner beans");
      await page.reload();
      await waitForMessage(page, "assistant", "Runner beans");
      await page.locator(dt("connection-status", { "data-state": "connected" })).waitFor();
      await page.locator(dt("composer-input")).waitFor();

      expect(recorder.writes).toEqual([]);
      expect(await activeWorkers()).toBe(0);
      for (const id of [viewed.id, acted.id, v1.id]) expect(server.app.leyline.host.get(id), id).toBeUndefined();
      expect(before.has(v1.file)).toBe(true);
      expect(changedFiles(before, server.sessionFiles())).toEqual([]);
      expect(browser.errors).toEqual([]);
    } finally {
      recorder.stop();
    }
  });

  it("sends what is typed right after opening once pi is ready, in order, and shows the replies", async () => {
    const { page, browser, server } = suite;
    const others = fileStates(server.sessionFiles().filter((file) => file !== acted.file));
    await page.goto(`/sessions/${encodeURIComponent(acted.id)}`);
    const input = page.locator(dt("composer-input"));
    await input.waitFor();
    await input.fill("Right after opening: which beans climb?");
    await input.press("Enter");
    await input.fill("Typed while pi starts: and which need sun?");
    await input.press("Enter");
    // Both wait for pi, in the order sent (unless pi was quicker than the typing).
    const held = await page.locator(dt("held-prompt")).allTextContents();
    if (held.length > 0) {
      expect(held.map((text) => text.replace(/^waiting for pi\s*/, "")).slice(-1)[0]).toContain("Typed while pi starts");
      await browser.screenshots("view-02-starting-pi-with-held-prompts");
    }
    await waitForMessage(page, "assistant", "First reply, after pi started.");
    await waitForMessage(page, "assistant", "Second reply, sent in order.");
    expect(await messageEntries(page, "user").allTextContents()).toEqual([
      expect.stringContaining("Which beans grow in shade?"),
      expect.stringContaining("Right after opening"),
      expect.stringContaining("Typed while pi starts"),
    ]);
    expect(await page.locator(dt("held-prompt")).count()).toBe(0);
    expect(await input.inputValue()).toBe("");
    await browser.screenshots("view-03-replies-after-start");
    // Acting started exactly this session's runtime and wrote only its file.
    expect(server.app.leyline.host.get(acted.id)).toBeDefined();
    expect(server.app.leyline.host.get(viewed.id)).toBeUndefined();
    expect(
      changedFiles(
        others,
        server.sessionFiles().filter((file) => file !== acted.file),
      ),
    ).toEqual([]);
    expect(browser.errors).toEqual([]);
  });

  it("opens a session whose folder is gone read-only, with one message and no composer", async () => {
    const { page, browser, server } = suite;
    expect(fs.existsSync(goneCwd)).toBe(false);
    const before = fileStates([gone.file]);
    const recorder = recordWrites();
    const workersBefore = await activeWorkers();
    try {
      await page.goto(`/sessions/${encodeURIComponent(gone.id)}`);
      const prompt = await waitForMessage(page, "user", "Run the old script");
      const message = page.locator(dt("read-only"));
      await message.waitFor();
      expect(await message.textContent()).toContain(goneCwd);
      expect(await page.locator(dt("composer")).count()).toBe(0);
      expect(await page.locator(dt("runtime-stopped")).count()).toBe(0);
      expect(await page.locator("[role=alert]").count()).toBe(0);
      // Entry actions that would run pi in the missing folder are not offered; copying is.
      await prompt.hover();
      expect(await prompt.locator(dt("entry-copy")).isVisible()).toBe(true);
      for (const action of ["entry-fork", "entry-reset", "entry-edit"])
        expect(await prompt.locator(dt(action)).isVisible(), action).toBe(false);
      await browser.screenshots("view-04-folder-gone");
      expect(recorder.writes).toEqual([]);
      expect(await activeWorkers()).toBe(workersBefore);
      expect(server.app.leyline.host.get(gone.id)).toBeUndefined();
      expect(changedFiles(before, [gone.file])).toEqual([]);
      expect(browser.errors).toEqual([]);
    } finally {
      recorder.stop();
    }
  });

  it("acting on a version-1 file says once that it was upgraded and where the original is, and which model pi uses", async () => {
    const { page, browser, server } = suite;
    await page.goto(`/sessions/${encodeURIComponent(v1.id)}`);
    const input = page.locator(dt("composer-input"));
    await input.waitFor();
    await input.fill("Carry on with the old session, please.");
    await input.press("Enter");
    await waitForMessage(page, "assistant", "Carrying on with a fallback model.");
    const notice = page.locator(dt("file-upgraded"));
    await notice.waitFor();
    expect(await notice.textContent()).toContain("leyline-trash");
    const fallback = page.locator(dt("model-fallback"));
    await fallback.waitFor();
    expect(await fallback.textContent()).toBe("faux-1 instead of claude-opus-4-5 (not available here)");
    expect(
      await page
        .locator(`${dt("transcript")} ${dt("entry", { "data-entry-type": "system" })}`)
        .filter({ hasText: "claude-opus-4-5" })
        .count(),
    ).toBe(1);
    await browser.screenshots("view-05-upgraded-with-fallback");
    // The original copy exists where the notice says.
    const trash = path.join(server.agentDir, "leyline-trash");
    expect(fs.readdirSync(trash).some((name) => name.includes(v1.id) || name.includes("2025-12-09T00-53-29-825Z"))).toBe(true);
    // Shown once: dismissed, it does not come back on a reload.
    await page.locator(dt("file-upgraded-dismiss")).click();
    await page.reload();
    await waitForMessage(page, "assistant", "Carrying on with a fallback model.");
    await page.locator(dt("model-fallback")).waitFor();
    expect(await page.locator(dt("file-upgraded")).count()).toBe(0);
    expect(browser.errors).toEqual([]);
  });
});

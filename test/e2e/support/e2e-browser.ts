/**
 * Chromium for browser tests: playwright-core driving Debian's /usr/bin/chromium (never a downloaded
 * browser), a fresh profile per suite through launchPersistentContext (Chromium rejects --user-data-dir as an
 * argument), and the flags that keep it quiet on a closed network (design/stack.md, "Traps").
 *
 * Screenshots go to test/e2e/screenshots/ (git-ignored) at the two sizes the issue asks for, 1280×800 and
 * 390×844. Page errors and console errors are collected so a test can show them when it fails.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { chromium, type BrowserContext, type Page } from "playwright-core";
import { REPO_ROOT } from "./client-build.ts";

export const CHROMIUM_PATH = "/usr/bin/chromium";
export const SCREENSHOTS_DIR = path.join(REPO_ROOT, "test", "e2e", "screenshots");

export interface ViewportSize {
  width: number;
  height: number;
}

export const DESKTOP: ViewportSize = { width: 1280, height: 800 };
export const PHONE: ViewportSize = { width: 390, height: 844 };

const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export interface E2eBrowser {
  readonly context: BrowserContext;
  readonly page: Page;
  /** Uncaught page errors and console errors (other than the browser's own "Failed to load resource"), in order. */
  readonly errors: string[];
  /** Answers with status >= 400 the page received (`METHOD url → status`): expected ones exist (a 404 detail of a
   * session not yet written), so they are only reported, not failed on. */
  readonly httpErrors: string[];
  /**
   * Saves `<name>-1280x800.png` and `<name>-390x844.png`; returns the paths. Ends at the desktop size.
   * `prepare` runs after each resize, before the picture (e.g. to open a tab the phone layout hides).
   */
  screenshots(name: string, page?: Page, prepare?: (size: ViewportSize) => Promise<void>): Promise<string[]>;
  close(): Promise<void>;
}

/** Waits two animation frames: layout and paint after a resize have happened. */
export async function settleFrames(page: Page): Promise<void> {
  // A string: the root tsconfig has no DOM library (this runs in the page).
  await page.evaluate("new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve(null))))");
}

export async function openBrowser(baseURL: string): Promise<E2eBrowser> {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), "leyline-e2e-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: DESKTOP,
    baseURL,
    colorScheme: "dark",
    reducedMotion: "reduce",
  });
  // Generous: on a loaded 2-core machine a runtime start (a worker process loading pi) can take 30 s.
  context.setDefaultTimeout(90_000);
  const errors: string[] = [];
  const httpErrors: string[] = [];
  const watch = (page: Page): void => {
    page.on("pageerror", (error) => errors.push(`pageerror: ${error.message}`));
    page.on("console", (message) => {
      if (message.type() === "error" && !message.text().startsWith("Failed to load resource")) {
        errors.push(`console: ${message.text()}`);
      }
    });
    page.on("response", (response) => {
      if (response.status() >= 400) httpErrors.push(`${response.request().method()} ${response.url()} → ${response.status()}`);
    });
  };
  context.pages().forEach(watch);
  context.on("page", watch);
  const page = context.pages()[0] ?? (await context.newPage());
  fs.mkdirSync(SCREENSHOTS_DIR, { recursive: true });

  return {
    context,
    page,
    errors,
    httpErrors,
    async screenshots(name, target = page, prepare) {
      const files: string[] = [];
      for (const size of [DESKTOP, PHONE]) {
        await target.setViewportSize(size);
        await settleFrames(target);
        if (prepare) {
          await prepare(size);
          await settleFrames(target);
        }
        const file = path.join(SCREENSHOTS_DIR, `${name}-${size.width}x${size.height}.png`);
        await target.screenshot({ path: file, animations: "disabled" });
        files.push(file);
      }
      await target.setViewportSize(DESKTOP);
      await settleFrames(target);
      return files;
    },
    async close() {
      await context.close().catch(() => undefined);
      fs.rmSync(profile, { recursive: true, force: true });
    },
  };
}

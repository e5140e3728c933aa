/**
 * A browser suite's lifecycle in vitest hooks: take the e2e lock, build web/dist if stale, start the real
 * server over temp dirs with the faux script, open Chromium; and the reverse afterwards. Also a small JSON
 * client of the same server for setting up and checking state outside the browser.
 */
import path from "node:path";
import { afterAll, afterEach, beforeAll } from "vitest";
import type { Page } from "playwright-core";
import { ensureClientBuilt } from "./client-build.ts";
import { openBrowser, SCREENSHOTS_DIR, type E2eBrowser } from "./e2e-browser.ts";
import { acquireE2eLock } from "./e2e-lock.ts";
import { startE2eServer, type E2eServer, type E2eServerOptions } from "./e2e-server.ts";

/** Generous: the lock may wait for another suite, the client build takes a while on a busy 2-core machine. */
export const SUITE_SETUP_TIMEOUT_MS = 600_000;
/** One browser flow. */
export const FLOW_TIMEOUT_MS = 300_000;

export interface E2eSuite {
  readonly server: E2eServer;
  readonly browser: E2eBrowser;
  readonly page: Page;
}

export function e2eSuite(options: E2eServerOptions): E2eSuite {
  let release: (() => void) | null = null;
  let server: E2eServer | null = null;
  let browser: E2eBrowser | null = null;

  beforeAll(async () => {
    release = await acquireE2eLock();
    ensureClientBuilt();
    server = await startE2eServer(options);
    browser = await openBrowser(server.url);
  }, SUITE_SETUP_TIMEOUT_MS);

  // A failed flow leaves a picture of the page and the browser errors it saw (test/e2e/screenshots/failed-*).
  afterEach(async (context) => {
    if (context.task.result?.state !== "fail" || browser === null) return;
    const name = context.task.name.replace(/[^a-z0-9]+/gi, "-").toLowerCase();
    await browser.page.screenshot({ path: path.join(SCREENSHOTS_DIR, `failed-${name}.png`) }).catch(() => undefined);
    const seen = [...browser.errors, ...browser.httpErrors];
    if (seen.length > 0) console.error(`browser errors during "${context.task.name}":\n${seen.join("\n")}`);
  });

  afterAll(async () => {
    try {
      await browser?.close();
      await server?.close();
    } finally {
      release?.();
    }
  }, 120_000);

  const live = <T>(value: T | null, what: string): T => {
    if (value === null) throw new Error(`e2eSuite: the ${what} is not started (used outside the suite's tests?)`);
    return value;
  };
  return {
    get server() {
      return live(server, "server");
    },
    get browser() {
      return live(browser, "browser");
    },
    get page() {
      return live(browser, "browser").page;
    },
  };
}

/** Opens a new session in `cwd` through the API (as the start screen does); returns its id. */
export async function createSession(server: E2eServer, cwd: string, kind: "session" | "research" = "session"): Promise<string> {
  const created = await apiJson<{ active: { id: string } }>(server, "POST", "/api/pi/sessions", { cwd, kind });
  return created.active.id;
}

/** A JSON request to the server; throws with the `{ error }` text on a non-2xx answer. */
export async function apiJson<T>(server: E2eServer, method: string, route: string, body?: unknown): Promise<T> {
  const response = await fetch(`${server.url}${route}`, {
    method,
    headers: body !== undefined ? { "content-type": "application/json" } : {},
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${route} → ${response.status}: ${text}`);
  return (text === "" ? null : JSON.parse(text)) as T;
}

/**
 * Two Leyline servers on 127.0.0.1 and one browser window (spec "Connection registry", "Pinned sessions"): the
 * window starts on the server that serves the page (the native backend), saves a connection to the other one in
 * Settings → Connections, moves there (its sessions, its transcript, its requests), pins a session there, and moves
 * back. Each server keeps its own sessions; the connections and every pin stay with the native backend (the other
 * server's own registry and pins stay empty). A connection that does not answer is refused and the window stays.
 * Screenshots: test/e2e/screenshots/connections-*.
 */
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { apiJson, e2eSuite, FLOW_TIMEOUT_MS } from "./support/e2e-suite.ts";
import { startE2eServer, type E2eServer } from "./support/e2e-server.ts";
import { writeSeedSession } from "./support/session-seed.ts";
import { dt, waitForMessage } from "./support/workbench-page.ts";

interface Registry {
  connections: Array<{ id: string; name: string; url: string }>;
  defaultConnectionId: string;
}
interface Pins {
  connectionId: string;
  pinnedIds: string[];
}

/** A loopback port nothing listens on (bound, then closed). */
async function deadPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}

function sessionRow(page: Page, id: string) {
  return page.locator(`${dt("session-item", { "data-session-id": id })}`).first();
}

async function pinFromSidebar(page: Page, id: string): Promise<void> {
  const row = sessionRow(page, id);
  await row.hover();
  await row.locator(dt("session-pin")).first().click();
  await page.locator(`${dt("pinned-group")} ${dt("session-item", { "data-session-id": id })}`).waitFor();
}

describe("connections to another Leyline backend", { timeout: FLOW_TIMEOUT_MS }, () => {
  let alpha = { id: "", file: "" };
  let bravo = { id: "", file: "" };
  let remote: E2eServer | null = null;
  const suite = e2eSuite({
    turns: [],
    seed: (dirs) => {
      alpha = writeSeedSession(dirs.sessionsDir, {
        cwd: dirs.projectDir,
        name: "Alpha harbour notes",
        messages: ["Where is the harbour?", "The harbour is north of the old mill."],
        startMs: Date.now() - 3_600_000,
      });
    },
  });

  beforeAll(async () => {
    remote = await startE2eServer({
      turns: [],
      seed: (dirs) => {
        bravo = writeSeedSession(dirs.sessionsDir, {
          cwd: dirs.projectDir,
          name: "Bravo lab notes",
          messages: ["What is in the lab?", "The lab holds two oscilloscopes."],
          startMs: Date.now() - 1_800_000,
        });
      },
    });
  }, 120_000);
  afterAll(async () => {
    await remote?.close();
  });

  const other = (): E2eServer => {
    if (remote === null) throw new Error("the second server is not started");
    return remote;
  };

  it("moves the window to the other backend and back; each keeps its sessions, pins stay with the native backend", async () => {
    const { page, browser, server } = suite;
    await page.goto("/");
    await sessionRow(page, alpha.id).waitFor();
    expect(await page.locator(dt("connection-switcher")).getAttribute("data-connection-id")).toBe("builtin");
    await pinFromSidebar(page, alpha.id);

    // Settings → Connections: add the other server, see it answer, use it in this window.
    await page.locator(dt("connection-switcher")).click();
    await page.locator(dt("manage-connections")).click();
    const panel = page.locator(dt("connections-settings"));
    await panel.waitFor();
    await panel.locator(dt("connection-name")).fill("Lab machine");
    await panel.locator(dt("connection-url")).fill(`${other().url}/`);
    await panel.locator(dt("connection-add-submit")).click();
    const registry = await apiJson<Registry>(server, "GET", "/api/leyline/connections");
    expect(registry.connections).toEqual([expect.objectContaining({ name: "Lab machine", url: other().url })]);
    const labId = registry.connections[0]!.id;
    const labRow = panel.locator(dt("connection-row", { "data-id": labId }));
    await expect.poll(() => labRow.locator(dt("connection-status")).textContent()).toMatch(/^Leyline /);
    await browser.screenshots("connections-01-settings");
    await Promise.all([page.waitForEvent("load"), labRow.locator(dt("connection-use")).click()]);

    // On the other backend: its session, not ours; its transcript; the switcher names it.
    await sessionRow(page, bravo.id).waitFor();
    expect(await page.locator(dt("connection-switcher")).getAttribute("data-connection-id")).toBe(labId);
    expect(await page.locator(dt("connection-switcher")).textContent()).toContain("Lab machine");
    expect(await sessionRow(page, alpha.id).count()).toBe(0);
    await sessionRow(page, bravo.id).click();
    await waitForMessage(page, "assistant", "The lab holds two oscilloscopes.");
    expect(page.url()).toContain(`/sessions/${bravo.id}`);
    await pinFromSidebar(page, bravo.id);
    await browser.screenshots("connections-02-remote", page, async () => {
      if ((await page.locator(dt("connection-menu")).count()) === 0) await page.locator(dt("connection-switcher")).click();
      await page.locator(dt("connection-menu")).waitFor();
    });
    await page.keyboard.press("Escape");

    // The pins live on the native backend, per connection; the other server stored none of it.
    expect(await apiJson<Pins>(server, "GET", `/api/leyline/pinned-sessions?connectionId=${labId}`)).toEqual({
      connectionId: labId,
      pinnedIds: [bravo.id],
    });
    expect(await apiJson<Pins>(server, "GET", "/api/leyline/pinned-sessions?connectionId=builtin")).toEqual({
      connectionId: "builtin",
      pinnedIds: [alpha.id],
    });
    expect(await apiJson<Pins>(other(), "GET", "/api/leyline/pinned-sessions?connectionId=builtin")).toEqual({
      connectionId: "builtin",
      pinnedIds: [],
    });
    expect(await apiJson<Registry>(other(), "GET", "/api/leyline/connections")).toEqual({
      connections: [],
      defaultConnectionId: "builtin",
    });

    // A reload keeps this window on the other backend (the tab remembers it).
    await page.reload();
    await sessionRow(page, bravo.id).waitFor();
    expect(await page.locator(dt("connection-switcher")).getAttribute("data-connection-id")).toBe(labId);

    // Back to this computer: our session and our pin again.
    await page.locator(dt("connection-switcher")).click();
    await Promise.all([page.waitForEvent("load"), page.locator(dt("connection-option", { "data-id": "builtin" })).click()]);
    await page.locator(`${dt("pinned-group")} ${dt("session-item", { "data-session-id": alpha.id })}`).waitFor();
    expect(await sessionRow(page, bravo.id).count()).toBe(0);
    expect(await page.locator(dt("connection-switcher")).getAttribute("data-connection-id")).toBe("builtin");
    expect(browser.errors).toEqual([]);
  });

  it("shares this computer's Leyline from Settings → Network access (relay on loopback), and keeps the thinking default", async () => {
    const { page, browser, server } = suite;
    await page.goto("/");
    await page.evaluate("sessionStorage.removeItem('leyline.connection')");
    await page.goto("/");
    await sessionRow(page, alpha.id).waitFor();
    await page.locator(dt("settings-open")).click();
    await page.locator(dt("settings-section-network")).click();
    const panel = page.locator(dt("settings-network"));
    await panel.locator(dt("network-warning")).waitFor();
    expect(await panel.locator(dt("network-switch")).getAttribute("aria-checked")).toBe("false");
    await panel.locator(dt("network-switch")).click();
    await expect.poll(() => panel.locator(dt("network-switch")).getAttribute("aria-checked")).toBe("true");
    const state = await apiJson<{ enabled: boolean; port: number }>(server, "GET", "/api/leyline/network-access");
    expect(state.enabled).toBe(true);
    await expect.poll(() => panel.locator(dt("network-active-port")).textContent()).toBe(String(state.port));
    // The relay carries the API unchanged (the test binds it to 127.0.0.1 and talks to it there only).
    const through = await fetch(`http://127.0.0.1:${state.port}/api/pi/info`);
    expect(((await through.json()) as { name: string }).name).toBe("Leyline");
    await browser.screenshots("connections-04-network-access", page, async () => {
      if ((await page.locator(dt("settings-network")).isVisible()) === false) await page.locator(dt("settings-section-network")).click();
    });
    await panel.locator(dt("network-switch")).click();
    await expect.poll(() => panel.locator(dt("network-switch")).getAttribute("aria-checked")).toBe("false");
    await expect(fetch(`http://127.0.0.1:${state.port}/api/pi/info`)).rejects.toThrow();

    // Appearance: the thinking default is stored by the native backend.
    await page.locator(dt("settings-section-appearance")).click();
    await page.locator(dt("appearance-thinking-expanded")).check();
    await expect
      .poll(async () => (await apiJson<{ value: string }>(server, "GET", "/api/leyline/settings/ui.thinking_default")).value)
      .toBe("expanded");
    await page.locator(dt("settings-close")).click();
    expect(browser.errors).toEqual([]);
  });

  it("refuses a connection that does not answer, and the window stays where it is", async () => {
    const { page, browser, server } = suite;
    const port = await deadPort();
    await apiJson<Registry>(server, "POST", "/api/leyline/connections", { name: "Switched off", url: `http://127.0.0.1:${port}` });
    const registry = await apiJson<Registry>(server, "GET", "/api/leyline/connections");
    const dead = registry.connections.find((c) => c.name === "Switched off")!;
    // This tab starts on the native backend (a tab remembers its backend across reloads).
    await page.goto("/");
    await page.evaluate("sessionStorage.removeItem('leyline.connection')");
    await page.goto("/");
    await sessionRow(page, alpha.id).waitFor();
    await page.locator(dt("connection-switcher")).click();
    await page.locator(dt("connection-option", { "data-id": dead.id })).click();
    await expect.poll(() => page.locator(dt("connection-error")).textContent()).toMatch(/cannot be reached/);
    expect(await page.locator(dt("connection-switcher")).getAttribute("data-connection-id")).toBe("builtin");
    await browser.screenshots("connections-03-refused", page, async () => {
      if ((await page.locator(dt("connection-menu")).count()) === 0) await page.locator(dt("connection-switcher")).click();
    });
    expect(browser.errors.filter((e) => !e.includes("ERR_CONNECTION_REFUSED"))).toEqual([]);
  });
});

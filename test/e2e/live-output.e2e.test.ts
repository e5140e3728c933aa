/**
 * Live output in a browser (issue 10, "Live projections all the way to the browser"): the real server over temp
 * dirs, real worker processes running real bash commands, the built client in Chromium. A running bash tool
 * prints its lines in its entry as they come, and a `!` command shows its output while it runs, both long
 * before they end (each command sleeps between lines). Waits are on selectors and page conditions only.
 */
import { describe, expect, it } from "vitest";
import type { FauxTurn } from "../../adapters/runtime-protocol/faux-script.ts";
import { createSession, e2eSuite, FLOW_TIMEOUT_MS } from "./support/e2e-suite.ts";
import { writeSeedSession } from "./support/session-seed.ts";
import { dt, sendPrompt, waitForMessage, waitForRunState } from "./support/workbench-page.ts";

const TOOL_COMMAND = "for i in 1 2 3 4 5 6; do echo tick$i; sleep 0.5; done";
const USER_COMMAND = "for i in 1 2 3 4 5 6; do echo shell$i; sleep 0.5; done";

const TURNS: FauxTurn[] = [
  { match: "Run the ticker", toolCalls: [{ name: "bash", arguments: { command: TOOL_COMMAND } }] },
  { match: "Run the ticker", text: "The ticker ran." },
];

describe("live output in a browser", { timeout: FLOW_TIMEOUT_MS }, () => {
  let seeded = { id: "", file: "" };
  const suite = e2eSuite({
    turns: TURNS,
    // pi writes a `!` command's entry only into a session it has saved: the command runs in a recorded one.
    seed: (dirs) => {
      seeded = writeSeedSession(dirs.sessionsDir, {
        cwd: dirs.projectDir,
        name: "Shell work",
        messages: ["Ready?", "Ready."],
        startMs: Date.now() - 3_600_000,
      });
    },
  });

  async function openFreshSession(): Promise<void> {
    const { page, server } = suite;
    const id = await createSession(server, server.projectDir);
    await page.goto(`/sessions/${encodeURIComponent(id)}`);
    await page.locator(dt("composer-input")).waitFor();
    await waitForRunState(page, "idle");
  }

  it("prints a running bash tool's lines as they come, before the tool ends", async () => {
    const { page, browser } = suite;
    await openFreshSession();
    await sendPrompt(page, "Run the ticker, please.");
    // In the streamed message's call or in the persisted pending entry, whichever shows the tool by then.
    const live = page.locator(`${dt("tool-live-output")}, ${dt("streaming-tool-output")}`);
    await live.filter({ hasText: "tick1" }).first().waitFor();
    expect(await page.locator(dt("transcript")).textContent()).not.toContain("tick6");
    await live.filter({ hasText: "tick2" }).first().waitFor();
    await browser.screenshots("live-01-tool-output");
    await page.locator(dt("tool-result")).filter({ hasText: "tick6" }).waitFor();
    await page.locator(dt("transcript")).filter({ hasText: "The ticker ran." }).waitFor();
    await waitForRunState(page, "finished", "idle");
    expect(await live.count()).toBe(0);
    expect(browser.errors).toEqual([]);
  });

  it("shows a `!` command's output while it runs, then its entry", async () => {
    const { page, browser } = suite;
    await page.goto(`/sessions/${encodeURIComponent(seeded.id)}`);
    await waitForMessage(page, "assistant", "Ready.");
    // (Not sendPrompt: the composer clears only once the command finished.)
    await page.locator(dt("composer-input")).fill(`!${USER_COMMAND}`);
    await page.locator(dt("send")).click();
    const live = page.locator(dt("live-bash", { "data-running": "true" }));
    await live.locator(dt("live-bash-output")).filter({ hasText: "shell2" }).waitFor();
    expect(await live.locator(dt("live-bash-command")).textContent()).toBe(`$ ${USER_COMMAND}`);
    expect(await page.locator(dt("transcript")).textContent()).not.toContain("shell6");
    await browser.screenshots("live-02-bash-output");
    await page.locator(dt("bash-output")).filter({ hasText: "shell6" }).waitFor();
    await page.locator(dt("live-bash")).waitFor({ state: "detached" });
    expect(browser.errors).toEqual([]);
  });
});

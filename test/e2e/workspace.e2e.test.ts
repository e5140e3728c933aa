/**
 * Workspace tools in a browser (issue 14): the real server over temp dirs, a real Git repository as the project,
 * real worker processes with the scripted model, a real PTY, the built client in Chromium.
 *
 * - The scripted agent rewrites a file; the session header's Changes badge counts it, the review pane shows its
 *   diff, and staging and committing it from the pane are checked with `git` itself.
 * - File links: the agent's tool call and a Markdown link open the preview (the linked line range highlighted);
 *   a file outside the project asks for approval first.
 * - The terminal: a command typed in xterm runs in the session's folder and its output shows; a file's terminal
 *   editor opens in a second terminal.
 * Waits are on selectors and page conditions only.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { FauxTurn } from "../../adapters/runtime-protocol/faux-script.ts";
import { apiJson, createSession, e2eSuite, FLOW_TIMEOUT_MS } from "./support/e2e-suite.ts";
import { dt, sendPrompt, waitForMessage, waitForRunState } from "./support/workbench-page.ts";

const NEW_APP =
  'export const greeting = "hello, world";\n\nexport function greet(name: string): string {\n  return `${greeting}, ${name}`;\n}\n';

const TURNS: FauxTurn[] = [
  { match: "Improve the greeting", toolCalls: [{ name: "write", arguments: { path: "src/app.ts", content: NEW_APP } }] },
  {
    match: "Improve the greeting",
    text: "Updated the greeting. The plan is in [the notes](notes/todo.md#L2-L3); the old draft is [outside](../outside.txt).",
  },
];

function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", args, { cwd, encoding: "utf8" });
}

function seedRepository(projectDir: string, home: string): void {
  fs.mkdirSync(path.join(projectDir, "src"));
  fs.mkdirSync(path.join(projectDir, "notes"));
  fs.writeFileSync(path.join(projectDir, "src", "app.ts"), 'export const greeting = "hi";\n');
  fs.writeFileSync(path.join(projectDir, "notes", "todo.md"), "# Todo\n\n- make the greeting friendlier\n- add a name\n- ship it\n");
  fs.writeFileSync(path.join(home, "outside.txt"), "A draft kept outside the project.\n");
  git(projectDir, "init", "-q", "-b", "main");
  git(projectDir, "config", "user.name", "Leyline Test");
  git(projectDir, "config", "user.email", "test@leyline.invalid");
  git(projectDir, "add", "-A");
  git(projectDir, "commit", "-q", "-m", "Initial commit");
}

describe("workspace tools in a browser", { timeout: FLOW_TIMEOUT_MS }, () => {
  const suite = e2eSuite({ turns: TURNS, seed: (dirs) => seedRepository(dirs.projectDir, dirs.home) });
  let sessionId = "";

  it("reviews the change the agent made, then stages and commits it from the review pane", async () => {
    const { page, server, browser } = suite;
    sessionId = await createSession(server, server.projectDir);
    await page.goto(`/sessions/${encodeURIComponent(sessionId)}`);
    await page.locator(dt("composer-input")).waitFor();
    await waitForRunState(page, "idle");
    await sendPrompt(page, "Improve the greeting, please.");
    await waitForMessage(page, "assistant", "Updated the greeting.");
    await waitForRunState(page, "finished", "idle");

    // The header's badge follows the repository live (the review stream), before the pane is opened.
    await page.locator(dt("review-badge")).filter({ hasText: "1" }).waitFor();
    await page.locator(dt("open-review")).click();
    const row = page.locator(dt("review-file", { "data-path": "src/app.ts" }));
    await row.waitFor();
    await row.locator(dt("review-file-open")).click();
    const diff = page.locator(dt("review-diff"));
    await diff.filter({ hasText: "hello, world" }).waitFor();
    await browser.screenshots("workspace-01-review-diff");

    await row.locator(dt("review-stage")).click();
    await page.locator(dt("review-file", { "data-path": "src/app.ts", "data-group": "staged" })).waitFor();
    expect(git(server.projectDir, "diff", "--cached", "--name-only").trim()).toBe("src/app.ts");

    await page.locator(dt("review-commit-message")).fill("Make the greeting friendlier");
    await page.locator(dt("review-commit")).click();
    await page.locator(dt("review-empty")).waitFor();
    expect(git(server.projectDir, "log", "-1", "--format=%s").trim()).toBe("Make the greeting friendlier");
    expect(git(server.projectDir, "show", "HEAD:src/app.ts")).toBe(NEW_APP);
    expect(git(server.projectDir, "status", "--porcelain").trim()).toBe("");
    await page.locator(dt("review-badge")).waitFor({ state: "hidden" });
    expect(browser.errors).toEqual([]);
  });

  it("opens file links from a tool call and from Markdown in the preview, asking before a file outside the project", async () => {
    const { page, browser } = suite;
    await page.goto(`/sessions/${encodeURIComponent(sessionId)}`);
    await waitForMessage(page, "assistant", "Updated the greeting.");

    // The write tool's path.
    await page.locator(dt("file-link")).filter({ hasText: "src/app.ts" }).first().click();
    const preview = page.locator(dt("file-preview"));
    await preview.locator(dt("file-preview-text")).filter({ hasText: "hello, world" }).waitFor();
    expect(await preview.locator(dt("file-preview-path")).textContent()).toContain("src/app.ts");

    // A Markdown link with a line range: lines 2 to 3 are highlighted.
    await page.locator('[data-file-href="notes/todo.md#L2-L3"]').click();
    await preview.locator(dt("file-preview-text")).filter({ hasText: "make the greeting friendlier" }).waitFor();
    const highlighted = preview.locator(`${dt("file-preview-line")}[data-highlighted]`);
    expect(await highlighted.evaluateAll((lines) => lines.map((line) => line.getAttribute("data-line")))).toEqual(["2", "3"]);
    await browser.screenshots("workspace-02-file-preview");

    // Outside the project: nothing is shown before the person approves.
    await page.locator('[data-file-href="../outside.txt"]').click();
    await page.locator(dt("file-preview-approval")).waitFor();
    expect(await preview.locator(dt("file-preview-text")).count()).toBe(0);
    await page.locator(dt("confirm-ok")).click();
    await preview.locator(dt("file-preview-text")).filter({ hasText: "A draft kept outside the project." }).waitFor();
    expect(browser.errors).toEqual([]);
  });

  it("runs a command in a terminal in the session's folder, and a file's terminal editor in another", async () => {
    const { page, server, browser } = suite;
    await page.goto(`/sessions/${encodeURIComponent(sessionId)}`);
    await waitForMessage(page, "assistant", "Updated the greeting.");

    await page.locator(dt("open-terminal")).click();
    const terminal = page.locator(`${dt("terminal-view")}:visible`);
    await terminal.locator(".xterm").waitFor();
    await terminal.locator(".xterm").click();
    await page.keyboard.type("echo leyline-$((6*7)) && pwd\n");
    // The terminal echoes the typed command; the computed output is only in the result.
    await terminal.locator(".xterm-rows").filter({ hasText: "leyline-42" }).waitFor();
    expect(await terminal.locator(".xterm-rows").textContent()).toContain(server.projectDir);
    await browser.screenshots("workspace-03-terminal");

    // The terminal follows the light and dark themes (xterm 6 paints its theme background on the scrollable element).
    const background = (): Promise<string> =>
      terminal
        .locator(".xterm-scrollable-element")
        .evaluate((element) => element.ownerDocument.defaultView?.getComputedStyle(element).backgroundColor ?? "");
    const dark = await background();
    await page.locator(dt("theme-toggle")).click();
    await expect.poll(background).not.toBe(dark);
    // No black frame around the text in the light theme (xterm.css paints its viewport black).
    expect(
      await terminal
        .locator(".xterm-viewport")
        .evaluate((element) => element.ownerDocument.defaultView?.getComputedStyle(element).backgroundColor ?? ""),
    ).toBe(await background());
    await browser.screenshots("workspace-04-terminal-light");
    await page.locator(dt("theme-toggle")).click();
    await expect.poll(background).toBe(dark);

    // A terminal "editor" (cat prints the file): the file action opens it in a second terminal.
    await apiJson(server, "PUT", "/api/pi/files/settings", { editor: "cat", editorMode: "terminal" });
    await page.locator(dt("file-link")).filter({ hasText: "src/app.ts" }).first().click();
    await page.locator(dt("file-preview-editor")).click();
    await page.locator(dt("terminal-tab")).filter({ hasText: "app.ts" }).waitFor();
    await page
      .locator(`${dt("terminal-view")}:visible`)
      .locator(".xterm-rows")
      .filter({ hasText: "hello, world" })
      .waitFor();
    expect(await page.locator(dt("terminal-tab")).count()).toBe(2);
    expect(browser.errors).toEqual([]);
  });
});

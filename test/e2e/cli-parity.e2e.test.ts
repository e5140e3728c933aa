/**
 * What a pi CLI user does, in a browser (issue 15): the real server over temp dirs, real worker processes with the
 * scripted model, the built client in Chromium.
 *
 * - The session tree: both branches of a session, "continue from here" on the other branch (the transcript follows,
 *   the next prompt continues there, as pi's own SessionManager then reads it), and a label.
 * - Slash commands: the menu with descriptions, completion with Tab, `/name` renames, an unknown `/word` is not sent.
 * - `@file` completion from the project's files, and the attach button (a text file becomes a fenced block, an image
 *   an attachment).
 * - Full-text search: a word only an assistant message holds finds the session and opens it at that entry.
 * Waits are on selectors and page conditions only.
 */
import fs from "node:fs";
import path from "node:path";
import { SessionManager } from "@earendil-works/pi-coding-agent";
import { describe, expect, it } from "vitest";
import type { FauxTurn } from "../../adapters/runtime-protocol/faux-script.ts";
import type { SessionTreeView } from "../../domain/session-tree-view.ts";
import { apiJson, createSession, e2eSuite, FLOW_TIMEOUT_MS } from "./support/e2e-suite.ts";
import { dt, messageEntries, sendPrompt, waitForMessage, waitForRunState } from "./support/workbench-page.ts";

const TURNS: FauxTurn[] = [
  { match: "first question", text: "The first answer mentions the zanzibarite crystal." },
  { match: "second question", text: "The second answer." },
  { match: "branch question", text: "The branch answer." },
];

const PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==", "base64");

function seedProject(projectDir: string): void {
  fs.mkdirSync(path.join(projectDir, "src"), { recursive: true });
  fs.writeFileSync(path.join(projectDir, "src", "app.ts"), "export const app = 1;\n");
  fs.writeFileSync(path.join(projectDir, "README.md"), "# Project\n");
}

describe("a pi CLI user's tools in a browser", { timeout: FLOW_TIMEOUT_MS }, () => {
  const suite = e2eSuite({ turns: TURNS, seed: (dirs) => seedProject(dirs.projectDir) });
  let sessionId = "";

  it("shows both branches in the tree, continues from the other one, and labels an entry", async () => {
    const { page, server, browser } = suite;
    sessionId = await createSession(server, server.projectDir);
    await page.goto(`/sessions/${encodeURIComponent(sessionId)}`);
    await page.locator(dt("composer-input")).waitFor();
    await waitForRunState(page, "idle");
    await sendPrompt(page, "The first question, please.");
    await waitForMessage(page, "assistant", "zanzibarite");
    await waitForRunState(page, "finished", "idle");
    await sendPrompt(page, "And the second question.");
    await waitForMessage(page, "assistant", "The second answer.");
    await waitForRunState(page, "finished", "idle");

    await page.locator(dt("open-tree")).click();
    const panel = page.locator(dt("tree-panel"));
    const firstAnswer = panel.locator(dt("tree-row", { "data-kind": "assistant" })).filter({ hasText: "zanzibarite" });
    await firstAnswer.waitFor();
    await panel
      .locator(dt("tree-row", { "data-leaf": "true" }))
      .filter({ hasText: "The second answer." })
      .waitFor();

    // Continue from the first answer: the transcript drops the second exchange; nothing is deleted.
    await firstAnswer.click();
    await panel.locator(dt("tree-continue")).click();
    await firstAnswer.and(page.locator('[data-leaf="true"]')).waitFor();
    await messageEntries(page, "assistant").filter({ hasText: "The second answer." }).waitFor({ state: "detached" });
    await browser.screenshots("cli-01-tree-continue");

    // The next prompt continues there: two branches under the first answer, pi reads the new one as active.
    await sendPrompt(page, "A branch question instead.");
    await waitForMessage(page, "assistant", "The branch answer.");
    await waitForRunState(page, "finished", "idle");
    await panel
      .locator(dt("tree-row", { "data-leaf": "true" }))
      .filter({ hasText: "The branch answer." })
      .waitFor();
    await panel.locator(dt("tree-row")).filter({ hasText: "The second answer." }).waitFor();
    const tree = await apiJson<SessionTreeView>(server, "GET", `/api/pi/sessions/${encodeURIComponent(sessionId)}/tree`);
    const answerId = tree.nodes.find((node) => node.text.includes("zanzibarite"))?.id ?? "";
    expect(tree.nodes.filter((node) => node.parentId === answerId && node.kind === "user").map((node) => node.text)).toEqual([
      "And the second question.",
      "A branch question instead.",
    ]);
    const file = fs
      .readdirSync(path.join(server.agentDir, "sessions"), { recursive: true, encoding: "utf8" })
      .find((name) => name.includes(sessionId));
    const pi = SessionManager.open(path.join(server.agentDir, "sessions", file ?? ""));
    expect(pi.getBranch().map((entry) => entry.id)).toContain(answerId);
    expect(pi.getLeafEntry()?.type).toBe("message");

    // A label: set from the panel, shown as a badge, read back by pi.
    await firstAnswer.click();
    await panel.locator(dt("tree-label-edit")).click();
    await page.locator(dt("tree-label-input")).fill("checkpoint");
    await page.locator(dt("tree-label-save")).click();
    await firstAnswer.locator(dt("tree-label")).filter({ hasText: "checkpoint" }).waitFor();
    expect(SessionManager.open(path.join(server.agentDir, "sessions", file ?? "")).getLabel(answerId)).toBe("checkpoint");
    await browser.screenshots("cli-02-tree-label");
    expect(browser.errors).toEqual([]);
  });

  it("completes slash commands with their descriptions, runs /name, and does not send an unknown command", async () => {
    const { page, browser } = suite;
    await page.goto(`/sessions/${encodeURIComponent(sessionId)}`);
    await waitForMessage(page, "assistant", "The branch answer.");
    const input = page.locator(dt("composer-input"));
    const assistantCount = await messageEntries(page, "assistant").count();

    await input.fill("/");
    const menu = page.locator(dt("slash-menu"));
    await menu.locator(dt("slash-option", { "data-key": "command:compact" })).waitFor();
    await menu.locator(dt("slash-option", { "data-key": "command:tree" })).waitFor();
    await browser.screenshots("cli-03-slash-menu");
    await input.fill("/na");
    await menu.locator(dt("slash-option", { "data-key": "command:name" })).waitFor();
    await input.press("Tab");
    await expect.poll(() => input.inputValue()).toBe("/name ");
    await input.pressSequentially("Renamed by command");
    await input.press("Enter");
    await page.locator("h1.title").filter({ hasText: "Renamed by command" }).waitFor();

    await input.fill("/nonsense now");
    await input.press("Enter");
    await page.locator(dt("composer-unknown")).filter({ hasText: "/nonsense" }).waitFor();
    expect(await input.inputValue()).toBe("/nonsense now");
    expect(await messageEntries(page, "assistant").count()).toBe(assistantCount);
    expect(browser.errors).toEqual([]);
  });

  it("completes @file mentions from the project and attaches a text file and an image", async () => {
    const { page, server, browser } = suite;
    await page.goto(`/sessions/${encodeURIComponent(sessionId)}`);
    await waitForMessage(page, "assistant", "The branch answer.");
    const input = page.locator(dt("composer-input"));

    await input.fill("");
    await input.pressSequentially("Look at @app");
    await page.locator(dt("mention-option", { "data-path": "src/app.ts" })).waitFor();
    await input.press("Tab");
    await expect.poll(() => input.inputValue()).toBe("Look at @src/app.ts ");
    await browser.screenshots("cli-04-mention");

    const notes = path.join(server.root, "notes.txt");
    fs.writeFileSync(notes, "line one\nline two\n");
    const image = path.join(server.root, "dot.png");
    fs.writeFileSync(image, PNG);
    await page.locator(dt("composer-file-input")).setInputFiles([notes, image]);
    await expect.poll(() => input.inputValue()).toContain("line two");
    expect(await input.inputValue()).toContain("notes.txt");
    await page.locator(dt("composer-image")).waitFor();
    await expect.poll(() => page.locator(dt("attach")).isVisible()).toBe(true);
    expect(browser.errors).toEqual([]);
  });

  it("finds a word only an assistant message holds and opens the session at that entry", async () => {
    const { page, browser } = suite;
    await page.goto("/");
    const search = page.locator(dt("session-search"));
    await search.waitFor();
    await search.fill("zanzibarite");
    const hit = page.locator(dt("search-result")).filter({ hasText: "zanzibarite" }).first();
    await hit.waitFor();
    await hit
      .locator("mark")
      .filter({ hasText: /zanzibarite/i })
      .first()
      .waitFor();
    await browser.screenshots("cli-05-search");
    await search.press("ArrowDown");
    await search.press("Enter");
    await page.waitForURL((url) => url.pathname === `/sessions/${encodeURIComponent(sessionId)}`);
    // The row is highlighted for a moment (the transcript scrolled to it).
    await page
      .locator(`[data-focused="true"] ${dt("entry")}`)
      .filter({ hasText: "zanzibarite" })
      .waitFor();
    await browser.screenshots("cli-06-search-opened");
    expect(browser.errors).toEqual([]);
  });
});

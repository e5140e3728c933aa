/**
 * Reset to here and its Undo in a browser (issue 9, "Nothing acknowledged is lost"): the real server over
 * temp dirs, real worker processes, the built client in Chromium. The confirmation says what the server's
 * preview says is removed; after the reset the file ends at the entry and a notice offers Undo; Undo puts
 * the whole file back, byte for byte as the trash copy holds it, and the transcript shows the removed turns
 * again. Waits are on selectors and page conditions only.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { apiJson, e2eSuite, FLOW_TIMEOUT_MS } from "./support/e2e-suite.ts";
import { writeSeedSession } from "./support/session-seed.ts";
import { dt, waitForMessage } from "./support/workbench-page.ts";

const MESSAGES = [
  "Name a noble gas.",
  "Argon is a noble gas.",
  "Name another one.",
  "Neon is another noble gas.",
  "And a third?",
  "Xenon is a third noble gas.",
];

interface Preview {
  entryId: string;
  removedEntryCount: number;
  removedMessageCount: number;
  removedOtherBranchEntryCount: number;
}

describe("reset to here and Undo in a browser", { timeout: FLOW_TIMEOUT_MS }, () => {
  let seeded = { id: "", file: "" };
  const suite = e2eSuite({
    turns: [],
    seed: (dirs) => {
      seeded = writeSeedSession(dirs.sessionsDir, {
        cwd: dirs.projectDir,
        name: "Noble gases",
        messages: MESSAGES,
        startMs: Date.now() - 3_600_000,
      });
    },
  });

  it("confirms with the preview's numbers, resets, and Undo restores the whole file", async () => {
    const { page, browser, server } = suite;
    await page.goto(`/sessions/${encodeURIComponent(seeded.id)}`);
    const answer = await waitForMessage(page, "assistant", "Argon is a noble gas.");
    await waitForMessage(page, "assistant", "Xenon is a third noble gas.");
    const entryId = (await answer.getAttribute("data-entry-id")) ?? "";

    await answer.hover();
    await answer.locator(dt("entry-reset")).click();
    const dialog = page.locator("[role=alertdialog]");
    await page.locator(`${dt("confirm-ok")}:not([disabled])`).waitFor();
    // the words come from the server's read-only preview of this file
    const preview = await apiJson<Preview>(
      server,
      "GET",
      `/api/pi/sessions/${encodeURIComponent(seeded.id)}/reset-preview?entryId=${entryId}`,
    );
    expect(preview.removedMessageCount).toBe(4);
    const entries = preview.removedEntryCount === 1 ? "1 entry" : `${preview.removedEntryCount} entries`;
    expect(await dialog.locator(".message").textContent()).toBe(
      `Remove ${entries} after this one (4 messages). A copy of the whole file is kept in leyline-trash.`,
    );
    await browser.screenshots("reset-01-confirmation");

    await page.locator(dt("confirm-ok")).click();
    const undo = page.locator(dt("notice-action"));
    await undo.waitFor();
    expect(await undo.textContent()).toContain("Undo");
    await page.locator(dt("transcript")).filter({ hasNotText: "Xenon is a third noble gas." }).waitFor();
    const trashDir = path.join(server.agentDir, "leyline-trash");
    const copies = fs.readdirSync(trashDir).filter((name) => name.includes(".reset-"));
    expect(copies).toHaveLength(1);
    const original = fs.readFileSync(path.join(trashDir, copies[0] ?? ""));
    expect(original.toString("utf8")).toContain("Xenon is a third noble gas.");
    expect(fs.readFileSync(seeded.file, "utf8")).not.toContain("Neon is another noble gas.");
    await browser.screenshots("reset-02-undo-offered");

    await undo.click();
    await waitForMessage(page, "assistant", "Xenon is a third noble gas.");
    await undo.waitFor({ state: "detached" });
    expect(fs.readFileSync(seeded.file).equals(original)).toBe(true);
    expect(fs.readdirSync(trashDir).filter((name) => name.includes(".undo-"))).toHaveLength(1);
    await browser.screenshots("reset-03-undone");
    expect(browser.errors).toEqual([]);
  });
});

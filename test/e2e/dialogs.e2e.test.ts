/**
 * The client's dialogs in a browser, where focus is real (happy-dom only approximates it): the shortcut help
 * popover, the app-wide delete confirmation and the transcript's reset confirmation. Each takes focus when it
 * opens, keeps Tab inside while modal, closes on Escape or a click beside it, and gives focus back to what
 * opened it. Also the composer's model picker (components/shared/PickerSelect.vue) as the page shows it.
 * Screenshots (1280×800 and 390×844): test/e2e/screenshots/dialog-*.
 */
import { describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { e2eSuite, FLOW_TIMEOUT_MS } from "./support/e2e-suite.ts";
import { writeSeedSession } from "./support/session-seed.ts";
import { dt, waitForMessage } from "./support/workbench-page.ts";

/** What has focus: its data-test name, else its tag (runs in the page; the root tsconfig has no DOM library). */
function focused(page: Page): Promise<string> {
  return page.evaluate("document.activeElement?.getAttribute('data-test') ?? document.activeElement?.tagName ?? ''") as Promise<string>;
}

describe("dialogs in a browser", { timeout: FLOW_TIMEOUT_MS }, () => {
  let seeded = { id: "", file: "" };
  const suite = e2eSuite({
    turns: [],
    seed: (dirs) => {
      seeded = writeSeedSession(dirs.sessionsDir, {
        cwd: dirs.projectDir,
        name: "Tide tables",
        messages: ["When is high tide?", "High tide is at 14:05 today.", "And low tide?", "Low tide is at 20:17."],
        startMs: Date.now() - 3_600_000,
      });
    },
  });

  it("the shortcut help takes focus, and Escape closes it", async () => {
    const { page, browser } = suite;
    await page.goto(`/sessions/${encodeURIComponent(seeded.id)}`);
    await waitForMessage(page, "assistant", "Low tide is at 20:17.");
    await page.locator("body").press("?");
    const help = page.locator(dt("shortcuts-help"));
    await help.waitFor();
    expect(await focused(page)).toBe("shortcuts-help");
    await browser.screenshots("dialog-01-shortcuts");
    await page.keyboard.press("Escape");
    await help.waitFor({ state: "detached" });
    expect(browser.errors).toEqual([]);
  });

  it("the delete confirmation starts on Cancel, keeps Tab inside, and Escape cancels back to the delete button", async () => {
    const { page, browser } = suite;
    await page.goto(`/sessions/${encodeURIComponent(seeded.id)}`);
    const row = page.locator(dt("session-item", { "data-session-id": seeded.id }));
    await row.hover();
    await row.locator(dt("session-delete")).click();
    const dialog = page.locator(dt("confirm-dialog"));
    await dialog.waitFor();
    expect(await dialog.getAttribute("role")).toBe("alertdialog");
    expect(await dialog.getAttribute("aria-modal")).toBe("true");
    expect(await page.locator(`#${await dialog.getAttribute("aria-labelledby")}`).textContent()).toBe("Delete this session?");
    expect(await focused(page)).toBe("confirm-cancel");
    await page.keyboard.press("Tab");
    expect(await focused(page)).toBe("confirm-ok");
    await page.keyboard.press("Tab");
    expect(await focused(page)).toBe("confirm-cancel");
    await page.keyboard.press("Shift+Tab");
    expect(await focused(page)).toBe("confirm-ok");
    await browser.screenshots("dialog-02-delete");
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "detached" });
    expect(await focused(page)).toBe("session-delete");
    expect(await row.count()).toBe(1);
    expect(browser.errors).toEqual([]);
  });

  it("the reset confirmation starts on Cancel, keeps Tab inside, and a click on the backdrop cancels back to the reset button", async () => {
    const { page, browser } = suite;
    await page.goto(`/sessions/${encodeURIComponent(seeded.id)}`);
    const answer = await waitForMessage(page, "assistant", "High tide is at 14:05 today.");
    await answer.hover();
    await answer.locator(dt("entry-reset")).click();
    const dialog = page.locator("[role=alertdialog]");
    await page.locator(`${dt("confirm-ok")}:not([disabled])`).waitFor();
    expect(await dialog.getAttribute("aria-modal")).toBe("true");
    expect(await focused(page)).toBe("confirm-cancel");
    await page.keyboard.press("Shift+Tab");
    expect(await focused(page)).toBe("confirm-ok");
    await page.keyboard.press("Tab");
    expect(await focused(page)).toBe("confirm-cancel");
    await browser.screenshots("dialog-03-reset");
    await page.mouse.click(4, 796);
    await dialog.waitFor({ state: "detached" });
    expect(await focused(page)).toBe("entry-reset");
    await waitForMessage(page, "assistant", "Low tide is at 20:17.");
    expect(browser.errors).toEqual([]);
  });

  it("the composer's model picker shows the session's model and is named for screen readers", async () => {
    const { page, browser } = suite;
    await page.goto(`/sessions/${encodeURIComponent(seeded.id)}`);
    const model = page.locator(dt("model-picker"));
    await model.waitFor();
    expect(await model.inputValue()).toBe("faux/faux-1");
    expect(await page.locator("label:has([data-test=model-picker]) .visually-hidden").textContent()).toBe("Model");
    await browser.screenshots("dialog-04-pickers");
    expect(browser.errors).toEqual([]);
  });
});

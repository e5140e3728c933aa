/**
 * Rollout feedback and the vision agent's settings in a browser, against the real server: thumbs on an assistant
 * message (and a note) are stored by the backend, shown by a second window of the same session live, and cleared
 * again; Settings → Vision stores a global vision model and shows where the effective one comes from.
 * Screenshots: test/e2e/screenshots/feedback-*, vision-*.
 */
import { describe, expect, it } from "vitest";
import { apiJson, e2eSuite, FLOW_TIMEOUT_MS } from "./support/e2e-suite.ts";
import { writeSeedSession } from "./support/session-seed.ts";
import { dt, waitForMessage } from "./support/workbench-page.ts";

interface DetailEntry {
  id: string;
  type: string;
  role?: string;
  rolloutFeedback?: string;
  rolloutFeedbackText?: string;
}

describe("feedback and vision settings in a browser", { timeout: FLOW_TIMEOUT_MS }, () => {
  let seeded = { id: "", file: "" };
  let cwd = "";
  const suite = e2eSuite({
    turns: [],
    seed: (dirs) => {
      cwd = dirs.projectDir;
      seeded = writeSeedSession(dirs.sessionsDir, {
        cwd: dirs.projectDir,
        name: "Bread baking",
        messages: ["How long should dough rise?", "Let it rise for about two hours, until doubled."],
        startMs: Date.now() - 3_600_000,
      });
    },
  });

  const assistantFeedback = async (): Promise<DetailEntry | undefined> => {
    const detail = await apiJson<{ entries: DetailEntry[] }>(suite.server, "GET", `/api/pi/sessions/${encodeURIComponent(seeded.id)}`);
    return detail.entries.find((entry) => entry.role === "assistant" || entry.type === "assistant");
  };

  it("stores thumbs and a note, shows them in a second window live, and clears them", async () => {
    const { page, browser } = suite;
    await page.goto(`/sessions/${encodeURIComponent(seeded.id)}`);
    const answer = await waitForMessage(page, "assistant", "Let it rise for about two hours, until doubled.");
    const second = await browser.context.newPage();
    await second.goto(`/sessions/${encodeURIComponent(seeded.id)}`);
    const answerThere = await waitForMessage(second, "assistant", "Let it rise for about two hours, until doubled.");

    await answer.hover();
    await answer.locator(dt("entry-feedback-helpful")).click();
    await expect.poll(async () => (await assistantFeedback())?.rolloutFeedback).toBe("helpful");
    expect(await answer.locator(dt("entry-feedback-helpful")).getAttribute("aria-pressed")).toBe("true");
    await expect.poll(() => answerThere.locator(dt("entry-feedback-helpful")).getAttribute("aria-pressed")).toBe("true");

    await answer.locator(dt("entry-feedback-note")).click();
    await page.locator(dt("entry-feedback-note-input")).fill("Clear and short.");
    await page.locator(dt("entry-feedback-note-save")).click();
    await expect.poll(async () => (await assistantFeedback())?.rolloutFeedbackText).toBe("Clear and short.");
    await expect.poll(() => answerThere.locator(dt("entry-feedback-text")).textContent()).toContain("Clear and short.");
    await browser.screenshots("feedback-01-helpful");

    // Thumbs down replaces it; pressing it again clears.
    await answer.locator(dt("entry-feedback-unhelpful")).click();
    await expect.poll(async () => (await assistantFeedback())?.rolloutFeedback).toBe("unhelpful");
    await answer.locator(dt("entry-feedback-unhelpful")).click();
    await expect.poll(async () => (await assistantFeedback())?.rolloutFeedback).toBe("");
    await expect.poll(() => answerThere.locator(dt("entry-feedback-unhelpful")).getAttribute("aria-pressed")).toBe("false");
    await second.close();
    expect(browser.errors).toEqual([]);
  });

  it("stores the vision agent's global model from Settings → Vision", async () => {
    const { page, browser, server } = suite;
    await page.goto(`/sessions/${encodeURIComponent(seeded.id)}`);
    await waitForMessage(page, "assistant", "Let it rise for about two hours, until doubled.");
    await page.locator(dt("settings-open")).click();
    await page.locator(dt("settings-section-vision")).click();
    const panel = page.locator(dt("vision-settings"));
    await panel.waitFor();
    const select = panel.locator(dt("vision-global-model"));
    await select.waitFor();
    // The models with image input arrive once the panel is shown (GET /api/pi/state of the session's folder).
    await expect.poll(() => select.locator("option").count()).toBeGreaterThan(1);
    const values = await select
      .locator("option")
      .evaluateAll((options: Array<{ value: string }>) => options.map((o) => o.value).filter((v) => v !== ""));
    const model = values[0];
    expect(model, "the faux provider offers a model with image input").toBeDefined();
    await select.selectOption(model!);
    await panel.locator(dt("vision-global-save")).click();
    const config = () =>
      apiJson<{ model: string; modelSource: string }>(
        server,
        "GET",
        `/api/pi/vision/config?cwd=${encodeURIComponent(cwd)}&sessionPath=${encodeURIComponent(seeded.file)}`,
      );
    await expect.poll(async () => (await config()).model).toBe(model);
    expect((await config()).modelSource).toBe("global");
    await expect.poll(() => panel.locator(dt("vision-effective-model")).textContent()).toContain(model!.split("/").pop()!);
    await browser.screenshots("vision-01-settings", page, async () => {
      if (!(await panel.isVisible())) await page.locator(dt("settings-section-vision")).click();
    });
    await panel.locator(dt("vision-global-clear")).click();
    await expect.poll(async () => (await config()).modelSource).toBe("none");
    expect(browser.errors).toEqual([]);
  });
});

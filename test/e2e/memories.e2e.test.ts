/**
 * The Memory inspector in a browser (spec "Memory Inspector routes"), against the real server and its memory.sqlite:
 * from a session's header, write a project memory in Markdown, see it rendered, edit it, archive and restore it, add
 * a session memory and see the scope counts, delete one after confirming; what the page shows is what the routes
 * answer. Screenshots: test/e2e/screenshots/memories-*.
 */
import { describe, expect, it } from "vitest";
import { apiJson, e2eSuite, FLOW_TIMEOUT_MS } from "./support/e2e-suite.ts";
import { writeSeedSession } from "./support/session-seed.ts";
import { dt, waitForMessage } from "./support/workbench-page.ts";

interface MemoriesView {
  memories: Array<{ id: string; scope: string; contentMd: string; status: string; tags: string[] }>;
  counts: { active: number; archived: number };
}

describe("memory inspector in a browser", { timeout: FLOW_TIMEOUT_MS }, () => {
  let seeded = { id: "", file: "" };
  let cwd = "";
  const suite = e2eSuite({
    turns: [],
    seed: (dirs) => {
      cwd = dirs.projectDir;
      seeded = writeSeedSession(dirs.sessionsDir, {
        cwd: dirs.projectDir,
        name: "Garden plans",
        messages: ["What should I plant?", "Tomatoes and basil grow well together."],
        startMs: Date.now() - 3_600_000,
      });
    },
  });

  it("creates, renders, edits, archives, restores and deletes memories", async () => {
    const { page, browser, server } = suite;
    const view = () =>
      apiJson<MemoriesView>(
        server,
        "GET",
        `/api/pi/memories?cwd=${encodeURIComponent(cwd)}&sessionPath=${encodeURIComponent(seeded.file)}`,
      );
    await page.goto(`/sessions/${encodeURIComponent(seeded.id)}`);
    await waitForMessage(page, "assistant", "Tomatoes and basil grow well together.");
    await page.locator(dt("memory-open")).first().click();
    const inspector = page.locator(dt("memory-inspector"));
    await inspector.waitFor();
    await inspector.locator(dt("memory-empty")).waitFor();

    // A project memory in Markdown.
    await inspector.locator(dt("memory-new")).click();
    const editor = inspector.locator(dt("memory-editor"));
    await editor.locator(dt("memory-editor-scope")).selectOption("project");
    await editor.locator(dt("memory-editor-content")).fill("Water the **tomatoes** every morning.");
    await editor.locator(dt("memory-editor-tags")).fill("garden, Watering");
    await editor.locator(dt("memory-editor-save")).click();
    const item = inspector.locator(dt("memory-item")).first();
    await item.locator("strong", { hasText: "tomatoes" }).waitFor();
    let stored = await view();
    expect(stored.memories).toEqual([
      expect.objectContaining({ scope: "project", contentMd: "Water the **tomatoes** every morning.", status: "active" }),
    ]);
    expect(stored.memories[0]!.tags).toEqual(["garden", "watering"]);
    const id = stored.memories[0]!.id;

    // Edit it.
    await item.locator(dt("memory-edit")).click();
    await inspector.locator(`${dt("memory-editor")} ${dt("memory-editor-content")}`).fill("Water the **tomatoes** every evening.");
    await inspector.locator(`${dt("memory-editor")} ${dt("memory-editor-save")}`).click();
    await inspector.locator(dt("memory-content"), { hasText: "every evening" }).waitFor();

    // A session memory, then the counts.
    await inspector.locator(dt("memory-new")).click();
    await inspector.locator(`${dt("memory-editor")} ${dt("memory-editor-scope")}`).selectOption("session");
    await inspector.locator(`${dt("memory-editor")} ${dt("memory-editor-content")}`).fill("This session is about the vegetable patch.");
    await inspector.locator(`${dt("memory-editor")} ${dt("memory-editor-save")}`).click();
    await expect.poll(async () => (await view()).counts.active).toBe(2);
    await expect.poll(() => inspector.locator(dt("memory-item")).count()).toBe(2);
    await browser.screenshots("memories-01-inspector");

    // Archive the project memory, find it under Archived, restore it.
    await inspector
      .locator(dt("memory-item", { "data-memory-id": id }))
      .locator(dt("memory-toggle-status"))
      .click();
    await expect.poll(async () => (await view()).memories.find((m) => m.id === id)?.status).toBe("archived");
    await inspector.locator(dt("memory-status-archived")).click();
    const archived = inspector.locator(dt("memory-item", { "data-memory-id": id }));
    await archived.waitFor();
    expect(await archived.getAttribute("data-status")).toBe("archived");
    await archived.locator(dt("memory-toggle-status")).click();
    await expect.poll(async () => (await view()).memories.find((m) => m.id === id)?.status).toBe("active");

    // Delete it after confirming.
    await inspector.locator(dt("memory-status-active")).click();
    await inspector
      .locator(dt("memory-item", { "data-memory-id": id }))
      .locator(dt("memory-delete"))
      .click();
    await page.locator(dt("confirm-ok")).click();
    await expect.poll(async () => (await view()).memories.map((m) => m.id)).not.toContain(id);
    await expect.poll(() => inspector.locator(dt("memory-item", { "data-memory-id": id })).count()).toBe(0);
    stored = await view();
    expect(stored.memories).toEqual([expect.objectContaining({ scope: "session" })]);
    await inspector.locator(dt("memory-close")).click();
    expect(browser.errors).toEqual([]);
  });
});

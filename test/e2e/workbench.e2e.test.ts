/**
 * Browser end-to-end flows of the workbench (issue 5, "Tests"): the real server (api/app.ts over temp dirs,
 * real worker processes, the scripted faux provider streaming at a fixed, observable speed) and the built
 * client in Chromium. The flows share one server but not their sessions (each opens its own through the API
 * or uses the seeded one), so one failing flow does not fail the next: open an existing session from the
 * sidebar, start a session, stream a reply, queue two prompts while busy and reorder them, interrupt, fork.
 * Every wait is on a selector or a page condition of the data-test contract, never on time.
 * Screenshots (1280×800 and 390×844): test/e2e/screenshots/.
 */
import fs from "node:fs";
import { describe, expect, it } from "vitest";
import type { FauxTurn } from "../../adapters/runtime-protocol/faux-script.ts";
import { createSession, e2eSuite, FLOW_TIMEOUT_MS } from "./support/e2e-suite.ts";
import { writeSeedSession } from "./support/session-seed.ts";
import {
  dt,
  messageEntries,
  queueTexts,
  sameRowProblem,
  sendPrompt,
  waitForLongerText,
  waitForMessage,
  waitForQueue,
  waitForRunState,
  waitForSessionUrl,
} from "./support/workbench-page.ts";

/** A reply long enough to watch: at 40 tokens/s the faux provider sends 12 characters every 75 ms. */
function longReply(topic: string, sentences: number): string {
  const body = Array.from(
    { length: sentences },
    (_, i) => `Sentence ${i + 1} about ${topic} keeps the stream going for a little while longer.`,
  );
  return [`## ${topic}`, "", ...body, "", `The end of the ${topic} answer.`].join("\n");
}

const STREAM_REPLY = longReply("streaming", 10);
// Long enough (~20 s) that queueing and reordering two prompts finish before it ends, even on a loaded machine.
const BUSY_REPLY = longReply("patience", 40);
const INTERRUPT_REPLY = longReply("interruptions", 40);

const TURNS: FauxTurn[] = [
  { match: "Explain streaming", text: STREAM_REPLY },
  { match: "Write the long answer", text: BUSY_REPLY },
  { match: "First queued prompt", text: "Answer to the first queued prompt." },
  { match: "Second queued prompt", text: "Answer to the second queued prompt." },
  { match: "Interrupt this", text: INTERRUPT_REPLY },
];

const SEED_MESSAGES = [
  "What is a heat pump?",
  "A heat pump moves heat from a cold place to a warm one, using a compressor and a refrigerant.",
  "Is it efficient?",
  "Yes: it delivers three to four units of heat per unit of electricity in mild weather.",
];

describe("the workbench in a browser", { timeout: FLOW_TIMEOUT_MS }, () => {
  let seeded = { id: "", file: "" };
  const suite = e2eSuite({
    turns: TURNS,
    tokensPerSecond: 40,
    seed: (dirs) => {
      seeded = writeSeedSession(dirs.sessionsDir, {
        cwd: dirs.projectDir,
        name: "Heat pump notes",
        messages: SEED_MESSAGES,
        startMs: Date.now() - 60 * 60 * 1000,
      });
    },
  });

  /** Opens a fresh session (made through the API) in the browser; returns its id. */
  async function openFreshSession(): Promise<string> {
    const { page, server } = suite;
    const id = await createSession(server, server.projectDir);
    await page.goto(`/sessions/${encodeURIComponent(id)}`);
    await page.locator(dt("composer-input")).waitFor();
    await waitForRunState(page, "idle");
    return id;
  }

  it("opens an existing session from the sidebar", async () => {
    const { page, browser } = suite;
    await page.goto("/");
    await page.locator(dt("connection-status", { "data-state": "connected" })).waitFor();
    const sidebar = page.locator(dt("sidebar"));
    await sidebar.waitFor();
    const item = sidebar.locator(dt("session-item", { "data-session-id": seeded.id }));
    if (!(await item.isVisible())) {
      // Not in the current project's list: find it with the sidebar's search (it searches every project).
      await sidebar.locator(dt("session-search")).fill("Heat pump");
    }
    await expect.poll(() => item.textContent()).toContain("Heat pump notes");
    await sidebar.locator(dt("index-status")).waitFor();
    await browser.screenshots("01-start-and-sidebar");

    const sidebarTime = (await item.locator("time").textContent()) ?? "";
    await item.click();
    expect(await waitForSessionUrl(page)).toBe(seeded.id);
    await waitForMessage(page, "user", "Is it efficient?");
    // A recorded session reads at once; starting its runtime is the composer's business, not the header's.
    expect(await page.locator(".session-head").textContent()).not.toContain("Starting");
    // One time format everywhere (the browser's locale): the sidebar row and the transcript agree.
    const entryTime = (await messageEntries(page, "user").first().locator("time").textContent()) ?? "";
    const shape = (text: string) => text.trim().replace(/\d/g, "0").replace(/[AP]M/i, "XM");
    expect(shape(entryTime)).not.toBe("");
    // (After midnight the row says "Yesterday <time>".)
    expect(shape(sidebarTime).endsWith(shape(entryTime)), `${sidebarTime} vs ${entryTime}`).toBe(true);
    expect(await messageEntries(page, "user").allTextContents()).toEqual([
      expect.stringContaining("What is a heat pump?"),
      expect.stringContaining("Is it efficient?"),
    ]);
    await waitForMessage(page, "assistant", "three to four units of heat");
    await browser.screenshots("02-existing-session");
    expect(browser.errors).toEqual([]);
  });

  it("starts a session from the start screen", async () => {
    const { page, browser, server } = suite;
    await page.goto("/");
    await page.locator(dt("start-screen")).waitFor();
    const path = page.locator(dt("project-path"));
    await path.fill(server.projectDir);
    await path.press("Enter");
    const start = page.locator(dt("start-session"));
    await expect.poll(() => start.isEnabled()).toBe(true);
    await start.click();

    const id = await waitForSessionUrl(page, seeded.id);
    await page.locator(dt("workbench", { "data-session-id": id })).waitFor();
    await page.locator(dt("composer-input")).waitFor();
    await waitForRunState(page, "idle");
    // The empty new session is today's, also as the server lists it (a runtime pi has not saved: no times).
    await page.reload();
    await page.locator(dt("composer-input")).waitFor();
    const today = page.locator(dt("session-group", { "data-group": "today" }));
    await today.locator(dt("session-item", { "data-session-id": id })).waitFor();
    await browser.screenshots("03-new-session");
    expect(browser.errors).toEqual([]);
  });

  it("sends a prompt and shows the reply while it streams", async () => {
    const { page, browser } = suite;
    await openFreshSession();
    await sendPrompt(page, "Explain streaming, please.");

    // The streaming entry shows a partial reply that keeps growing before the turn ends.
    const streaming = dt("streaming");
    await waitForRunState(page, "working");
    const first = await waitForLongerText(page, streaming, 40);
    const later = await waitForLongerText(page, streaming, first + 60);
    expect(later).toBeGreaterThan(first);
    // The prompt shows while the reply streams (pi writes a new session's file only with the reply).
    await waitForMessage(page, "user", "Explain streaming, please.");
    expect(await page.locator(dt("transcript")).textContent()).not.toContain("The end of the streaming answer.");
    expect(await page.locator(streaming).textContent()).not.toContain("The end of the streaming answer.");
    await browser.screenshots("04-streaming");

    const reply = await waitForMessage(page, "assistant", "The end of the streaming answer.");
    expect(await reply.textContent()).toContain("Sentence 10 about streaming");
    await page.locator(streaming).waitFor({ state: "detached" });
    await waitForRunState(page, "finished", "idle");
    // The persisted prompt replaced the provisional one: shown once.
    await expect.poll(() => messageEntries(page, "user").filter({ hasText: "Explain streaming, please." }).count()).toBe(1);
    expect(await messageEntries(page, "user").count()).toBe(1);
    expect(browser.errors).toEqual([]);
  });

  it("queues two prompts while busy, reorders them, and runs them in the new order", async () => {
    const { page, browser } = suite;
    await openFreshSession();
    await sendPrompt(page, "Write the long answer about patience.");
    await waitForRunState(page, "working");

    await sendPrompt(page, "First queued prompt");
    await waitForQueue(page, ["First queued prompt"]);
    await sendPrompt(page, "Second queued prompt");
    await waitForQueue(page, ["First queued prompt", "Second queued prompt"]);

    await page.locator(dt("queue-item")).nth(1).locator(dt("queue-up")).click();
    await waitForQueue(page, ["Second queued prompt", "First queued prompt"]);
    // Reordered while still busy: neither queued prompt has been sent yet.
    expect(await queueTexts(page)).toHaveLength(2);
    expect(await page.locator(dt("queue-item")).evaluateAll((items) => items.map((item) => item.getAttribute("data-status")))).toEqual([
      "pending",
      "pending",
    ]);
    // At both sizes Send stays beside Interrupt (the pickers wrap instead).
    const layout: string[] = [];
    await browser.screenshots("05-queue-reordered", page, async (size) => {
      const problem = await sameRowProblem(page.locator(dt("interrupt")), page.locator(dt("send")), page.locator(dt("composer")));
      if (problem !== "") layout.push(`${size.width}px: ${problem}`);
    });
    expect(layout).toEqual([]);

    await waitForMessage(page, "assistant", "Answer to the first queued prompt.");
    await waitForRunState(page, "finished", "idle");
    const users = (await messageEntries(page, "user").allTextContents()).map((text) => text.trim());
    const order = ["Write the long answer", "Second queued prompt", "First queued prompt"].map((text) =>
      users.findIndex((user) => user.includes(text)),
    );
    expect(order.every((index) => index >= 0)).toBe(true);
    expect(order).toEqual([...order].sort((a, b) => a - b));
    await page.locator(dt("queue-item")).first().waitFor({ state: "detached" });
    expect(browser.errors).toEqual([]);
  });

  it("interrupts a running turn", async () => {
    const { page, browser, server } = suite;
    const sessionId = await openFreshSession();
    await sendPrompt(page, "Interrupt this long answer, please.");
    await waitForRunState(page, "working");
    await waitForLongerText(page, dt("streaming"), 80);
    await page.locator(dt("interrupt")).click();

    await waitForRunState(page, "finished", "idle");
    await page.locator(dt("streaming")).waitFor({ state: "detached" });
    await expect.poll(() => page.locator(dt("interrupt")).isDisabled()).toBe(true);
    // The partial reply is kept and marked aborted in pi's session file; the end never arrived.
    const file = server.sessionFiles().find((f) => f.includes(sessionId));
    expect(file, `no session file for ${sessionId}`).toBeDefined();
    const assistants = fs
      .readFileSync(file as string, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { type: string; message?: { role: string; stopReason?: string; content?: unknown } })
      .filter((entry) => entry.type === "message" && entry.message?.role === "assistant");
    const last = assistants.at(-1)?.message;
    expect(last?.stopReason).toBe("aborted");
    expect(JSON.stringify(last?.content ?? "")).not.toContain("The end of the interruptions answer.");
    await browser.screenshots("06-interrupted");
    expect(await page.locator("body").textContent()).not.toContain("The end of the interruptions answer.");
    expect(browser.errors).toEqual([]);
  });

  it("forks from an entry into a new session", async () => {
    const { page, browser } = suite;
    await page.goto(`/sessions/${encodeURIComponent(seeded.id)}`);
    const prompt = await waitForMessage(page, "user", "Is it efficient?");
    await prompt.hover();
    // Entry actions are drawn icons (font glyphs such as ⑂ render as empty boxes in Chromium).
    for (const action of ["entry-copy", "entry-fork", "entry-reset"]) {
      const icon = await prompt.locator(`${dt(action)} svg`).boundingBox();
      expect(icon !== null && icon.width >= 8 && icon.height >= 8, action).toBe(true);
    }
    await prompt.locator(dt("entry-fork")).click();
    const confirm = page.locator(dt("confirm-ok"));
    if (await confirm.isVisible()) await confirm.click();

    const forkId = await waitForSessionUrl(page, seeded.id);
    await page.locator(dt("workbench", { "data-session-id": forkId })).waitFor();
    // The fork keeps the conversation before the chosen prompt and nothing after it.
    await waitForMessage(page, "user", "What is a heat pump?");
    await waitForMessage(page, "assistant", "moves heat from a cold place");
    expect(await page.locator(dt("transcript")).textContent()).not.toContain("three to four units of heat");
    await expect
      .poll(() =>
        page
          .locator(dt("sidebar"))
          .locator(dt("session-item", { "data-session-id": forkId }))
          .count(),
      )
      .toBe(1);
    // A fork is a session of its own: top-level with a hint, not nested like a subagent session.
    const forkItem = page.locator(dt("sidebar")).locator(dt("session-item", { "data-session-id": forkId }));
    expect(await page.locator(`${dt("subagent-children")} ${dt("session-item", { "data-session-id": forkId })}`).count()).toBe(0);
    expect(await forkItem.locator(dt("session-fork")).textContent()).toContain("fork");
    await browser.screenshots("07-forked");
    expect(browser.errors).toEqual([]);
  });
});

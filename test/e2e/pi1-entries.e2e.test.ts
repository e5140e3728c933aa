/**
 * A session written by pi 1.x in the browser (issue 11): the file is written with pi 1.6's own SessionManager
 * (its stored system prompt, a tool call that failed and was then omitted from the model's context by two
 * `context_edit` entries as pi's auto-retry writes them, a cache-warming `usage` entry, a later turn). The page
 * shows the system prompt as a summary with its sections, the usage line, the omitted attempt as what the model
 * sees with the original one click away, and the session's usage in the header.
 */
import path from "node:path";
import { SessionManager } from "@earendil-works/pi-coding-agent";
import { describe, expect, it } from "vitest";
import { e2eSuite, FLOW_TIMEOUT_MS } from "./support/e2e-suite.ts";
import { sessionFolderName } from "./support/session-seed.ts";
import { dt, waitForMessage } from "./support/workbench-page.ts";

const usage = (input: number, output: number, cost: number) => ({
  input,
  output,
  cacheRead: 0,
  cacheWrite: 0,
  totalTokens: input + output,
  cost: { input: cost / 2, output: cost / 2, cacheRead: 0, cacheWrite: 0, total: cost },
});

function writePi1Session(sessionsDir: string, cwd: string): string {
  const manager = SessionManager.create(cwd, path.join(sessionsDir, sessionFolderName(cwd)));
  let at = Date.now() - 600_000;
  const next = (): number => (at += 1000);
  const assistant = (content: unknown[], stopReason: "stop" | "toolUse") =>
    ({
      role: "assistant",
      content,
      api: "faux",
      provider: "faux",
      model: "faux-1",
      usage: usage(1000, 40, 0.0021),
      stopReason,
      timestamp: next(),
    }) as never;
  manager.appendModelChange("faux", "faux-1");
  manager.appendMessage({
    role: "system",
    content: "",
    sections: { preamble: "You are pi, a coding agent.", cwd: `Current working directory: ${cwd}` },
    toolsAdded: [{ name: "read", description: "Read a file", parameters: { type: "object", properties: {} } }],
    timestamp: next(),
  } as never);
  manager.appendMessage({ role: "user", content: [{ type: "text", text: "Read the release notes." }], timestamp: next() });
  const attemptId = manager.appendMessage(
    assistant(
      [
        { type: "text", text: "Reading NOTES.md first." },
        { type: "toolCall", id: "call-1", name: "read", arguments: { path: "NOTES.md" } },
      ],
      "toolUse",
    ),
  );
  const resultId = manager.appendMessage({
    role: "toolResult",
    toolCallId: "call-1",
    toolName: "read",
    content: [{ type: "text", text: "ENOENT: NOTES.md not found" }],
    isError: true,
    timestamp: next(),
  } as never);
  manager.appendContextEdit(attemptId, null);
  manager.appendContextEdit(resultId, null);
  manager.appendUsage("cache_warm", "faux", "faux-1", usage(1200, 1, 0.0015) as never);
  manager.appendMessage(assistant([{ type: "text", text: "The release notes are in CHANGELOG.md." }], "stop"));
  return manager.getSessionId();
}

describe("a pi 1.x session in the browser", { timeout: FLOW_TIMEOUT_MS }, () => {
  let id = "";
  const suite = e2eSuite({
    turns: [],
    seed: (dirs) => {
      id = writePi1Session(dirs.sessionsDir, dirs.projectDir);
    },
  });

  it("shows the stored system prompt, the usage, and the omitted attempt with its original", async () => {
    const { page, browser } = suite;
    await page.goto(`/sessions/${encodeURIComponent(id)}`);
    await waitForMessage(page, "assistant", "The release notes are in CHANGELOG.md.");

    const system = page.locator('[data-entry-type="system"]');
    await expect(system.textContent()).resolves.toContain("system prompt: 2 sections, 1 tool");
    await system.locator(dt("system-toggle")).click();
    await expect(system.textContent()).resolves.toContain("You are pi, a coding agent.");

    await expect(page.locator(dt("usage-entry")).textContent()).resolves.toMatch(/cache warm · faux\/faux-1 · 1,201 tokens · \$0\.0015/);
    // 2 assistant messages, 1 tool result and the usage entry: 3,281 tokens
    await expect(page.locator(dt("session-usage")).textContent()).resolves.toBe("3.3k tokens · $0.0057");

    const attempt = page.locator('[data-entry-type="message"][data-role="assistant"]').filter({ has: page.locator(dt("context-edit")) });
    await expect(attempt.locator(dt("context-edit")).textContent()).resolves.toContain("omitted from the model's context");
    expect(await attempt.textContent()).not.toContain("Reading NOTES.md first.");
    await attempt.locator(dt("context-edit-toggle")).click();
    await expect(attempt.locator(dt("context-edit-original")).textContent()).resolves.toBe("Reading NOTES.md first.");
    const tool = page.locator('[data-entry-type="tool"]').filter({ has: page.locator(dt("context-edit")) });
    expect(await tool.count()).toBe(1);
    await browser.screenshots("pi1-01-entries");
    expect(browser.errors).toEqual([]);
  });
});

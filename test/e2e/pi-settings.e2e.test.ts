/**
 * Pi Settings in a browser, as a new user meets it: a local OpenAI-compatible server (our stub on 127.0.0.1)
 * is added through the Settings modal (provider, model), tested, and then used for a real prompt whose reply
 * streams back, without restarting Leyline. Also: a change made by hand in models.json while the editor is
 * open shows the stale-revision message and a refresh, never a silent overwrite; the MCP section lists a
 * server; the modal on a phone. Screenshots: test/e2e/screenshots/settings-*.
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startOpenAiStub, type OpenAiStub } from "../support/openai-stub.ts";
import { e2eSuite, FLOW_TIMEOUT_MS } from "./support/e2e-suite.ts";
import { dt, sendPrompt, waitForMessage, waitForRunState, waitForSessionUrl } from "./support/workbench-page.ts";

/** The small stdio MCP server of adapters/pi-settings/mcp-actions.int.test.ts (tools: echo, whoami). */
const MCP_FIXTURE = fileURLToPath(new URL("../../adapters/pi-settings/mcp-test-server.fixture.mjs", import.meta.url));

describe("Pi Settings in a browser", { timeout: FLOW_TIMEOUT_MS }, () => {
  let stub: OpenAiStub;
  beforeAll(async () => {
    stub = await startOpenAiStub({ models: ["stub-model"] });
    stub.reply = "Hello from the local stub server, streamed word by word.";
  });
  afterAll(() => stub.close());

  const suite = e2eSuite({
    turns: [],
    seed: (dirs) => {
      fs.writeFileSync(
        path.join(dirs.agentDir, "mcp.json"),
        `${JSON.stringify(
          {
            mcpServers: {
              docs: { url: "https://mcp.example.com/mcp", headers: { Authorization: "Bearer e2e-planted-token" } },
              tools: { command: process.execPath, args: [MCP_FIXTURE] },
            },
          },
          null,
          2,
        )}\n`,
      );
    },
  });

  it("adds a local OpenAI-compatible server, tests it, and uses it for a prompt that streams back", async () => {
    const { page, browser, server } = suite;
    await page.goto("/");
    await page.locator(dt("start-screen")).waitFor();
    const folder = page.locator(dt("project-path"));
    await folder.fill(server.projectDir);
    await folder.press("Enter");

    await page.locator(dt("settings-open")).click();
    const modal = page.locator(dt("settings-modal"));
    await modal.waitFor();
    await page.locator(dt("provider-add")).click();
    await page.locator(dt("provider-id")).fill("local");
    await page.locator(dt("provider-name")).fill("Local stub");
    await page.locator(dt("provider-base-url")).fill(stub.baseUrl);
    await page.locator(dt("provider-api")).selectOption("openai-completions");
    await browser.screenshots("settings-01-add-provider");
    await page.locator(dt("provider-save")).click();
    const row = page.locator(dt("provider-row-local"));
    await row.waitFor();

    const detail = page.locator(dt("provider-detail-local"));
    if ((await detail.count()) === 0) await row.click();
    await detail.locator(dt("model-add")).click();
    await page.locator(dt("model-id")).fill("stub-model");
    await page.locator(dt("model-name")).fill("Stub model");
    await page.locator(dt("model-context-window")).fill("32000");
    await page.locator(dt("model-max-tokens")).fill("1024");
    await page.locator(dt("model-save")).click();
    const modelRow = page.locator(dt("model-row-stub-model"));
    await modelRow.waitFor();
    const saved = JSON.parse(fs.readFileSync(path.join(server.agentDir, "models.json"), "utf8")) as {
      providers: Record<string, { baseUrl: string; models: Array<{ id: string; contextWindow: number }> }>;
    };
    expect(saved.providers["local"]?.baseUrl).toBe(stub.baseUrl);
    expect(saved.providers["local"]?.models).toEqual([
      expect.objectContaining({ id: "stub-model", contextWindow: 32000, maxTokens: 1024 }),
    ]);

    const probesBefore = stub.requests.filter((request) => request.path.endsWith("/chat/completions")).length;
    await modelRow.locator(dt("model-test")).click();
    const result = page.locator(dt("test-result"));
    await result.waitFor();
    await expect.poll(() => result.getAttribute("data-outcome"), { timeout: 30_000 }).toBe("ok");
    expect(stub.requests.filter((request) => request.path.endsWith("/chat/completions")).length).toBe(probesBefore + 1);
    await browser.screenshots("settings-02-tested");

    await page.locator(dt("settings-close")).click();
    await modal.waitFor({ state: "detached" });
    // The start screen re-reads its models: the new one is offered without a restart.
    const startModel = page.locator(dt("start-model"));
    await expect
      .poll(async () => startModel.locator("option").allTextContents(), { timeout: 60_000 })
      .toContainEqual(expect.stringContaining("Stub model"));
    const value = await startModel.locator("option", { hasText: "Stub model" }).first().getAttribute("value");
    expect(value).toBe("local/stub-model");
    await startModel.selectOption(value ?? "");
    const start = page.locator(dt("start-session"));
    await expect.poll(() => start.isEnabled()).toBe(true);
    await start.click();
    await waitForSessionUrl(page);
    await page.locator(dt("composer-input")).waitFor();
    await waitForRunState(page, "idle");
    expect(await page.locator(dt("model-picker")).inputValue()).toBe("local/stub-model");

    await sendPrompt(page, "Say hello, local model.");
    await waitForMessage(page, "assistant", "Hello from the local stub server, streamed word by word.");
    const prompt = stub.requests.filter((request) => request.path.endsWith("/chat/completions")).at(-1);
    expect(prompt?.body?.["model"]).toBe("stub-model");
    expect(JSON.stringify(prompt?.body?.["messages"])).toContain("Say hello, local model.");
    await browser.screenshots("settings-03-prompt-answered");
    expect(browser.errors).toEqual([]);
  });

  it("shows the stale-revision message and a refresh when models.json changes by hand, and saves nothing over it", async () => {
    const { page, browser, server } = suite;
    await page.goto("/");
    await page.locator(dt("start-screen")).waitFor();
    await page.locator(dt("settings-open")).click();
    await page.locator(dt("settings-modal")).waitFor();
    const row = page.locator(dt("provider-row-local"));
    await row.waitFor();
    if ((await page.locator(dt("provider-detail-local")).count()) === 0) await row.click();
    await page.locator(dt("provider-detail-local")).locator(dt("provider-edit")).click();
    await page.locator(dt("provider-name")).fill("Renamed in the browser");

    // Meanwhile, someone edits the file by hand.
    const file = path.join(server.agentDir, "models.json");
    const byHand = fs.readFileSync(file, "utf8").replace('"Local stub"', '"Edited by hand"');
    fs.writeFileSync(file, byHand);

    await page.locator(dt("provider-save")).click();
    const stale = page.locator(dt("stale-message"));
    await stale.waitFor();
    expect(await stale.textContent()).toContain("This configuration changed outside this editor. Refresh it before saving.");
    expect(fs.readFileSync(file, "utf8")).toBe(byHand);
    await browser.screenshots("settings-04-stale");
    await page.locator(dt("stale-refresh")).click();
    await stale.waitFor({ state: "detached" });
    // What the person typed is still in the form; nothing was saved over the hand edit.
    expect(await page.locator(dt("provider-name")).inputValue()).toBe("Renamed in the browser");
    expect(fs.readFileSync(file, "utf8")).toBe(byHand);
    await page.locator(dt("settings-back")).click();
    await expect.poll(async () => page.locator(dt("provider-row-local")).textContent()).toContain("Edited by hand");
    expect(browser.errors).toEqual([]);
  });

  it("finds a catalog model and saves an override of its name", async () => {
    const { page, browser, server } = suite;
    await page.goto("/");
    await page.locator(dt("start-screen")).waitFor();
    await page.locator(dt("settings-open")).click();
    await page.locator(dt("settings-modal")).waitFor();
    await page.locator(dt("catalog-search")).fill("gpt-4o-mini openai");
    const result = page.locator(dt("catalog-result", { "data-provider": "openai", "data-model": "gpt-4o-mini" }));
    await result.waitFor();
    await result.locator(dt("catalog-add-override")).click();
    await page.locator(dt("model-name")).fill("Mini (team)");
    await page.locator(dt("model-save")).click();
    await page.locator(dt("model-form")).waitFor({ state: "detached" });
    const saved = JSON.parse(fs.readFileSync(path.join(server.agentDir, "models.json"), "utf8")) as {
      providers: Record<string, { modelOverrides?: Record<string, { name?: string }> }>;
    };
    expect(saved.providers["openai"]?.modelOverrides?.["gpt-4o-mini"]).toEqual({ name: "Mini (team)" });
    await browser.screenshots("settings-06-override");
    expect(browser.errors).toEqual([]);
  });

  it("lists MCP servers without their secrets, checks one for its tools, and fits a phone", async () => {
    const { page, browser } = suite;
    await page.goto("/");
    await page.locator(dt("start-screen")).waitFor();
    await page.locator(dt("settings-open")).click();
    await page.locator(dt("settings-modal")).waitFor();
    await page.locator(dt("settings-section-mcp")).click();
    const docs = page.locator(dt("mcp-row-docs"));
    await docs.waitFor();
    expect(await page.locator(dt("settings-modal")).textContent()).not.toContain("e2e-planted-token");
    const tools = page.locator(dt("mcp-row-tools"));
    await tools.click();
    await page.locator(dt("mcp-detail-tools")).locator(dt("mcp-check")).click();
    await expect
      .poll(() => page.locator(dt("mcp-tool")).allTextContents(), { timeout: 60_000 })
      .toContainEqual(expect.stringContaining("echo"));
    await browser.screenshots("settings-05-mcp");
    await page.setViewportSize({ width: 390, height: 844 });
    await page.locator(dt("settings-section-models")).click();
    await page.locator(dt("provider-row-openai")).waitFor();
    const box = await page.locator(dt("settings-modal")).boundingBox();
    expect(box?.width ?? 0).toBeLessThanOrEqual(390);
    await page.keyboard.press("Escape");
    await page.locator(dt("settings-modal")).waitFor({ state: "detached" });
    await page.setViewportSize({ width: 1280, height: 800 });
    expect(browser.errors).toEqual([]);
  });
});

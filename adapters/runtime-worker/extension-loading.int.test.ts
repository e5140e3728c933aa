/**
 * pi extensions load in a real worker process as pi loads them: a project extension from
 * `<cwd>/.pi/extensions/*.ts`, a user extension from `<agentDir>/extensions/<name>/index.ts`, plus extra paths
 * given with `options.extensionPaths` (how Leyline passes its bundled extensions/ folder). pi loads project
 * extensions in SDK hosts without asking (the project counts as trusted). Each extension registers a command
 * and a tool, and appends a custom entry on `session_start`; one written for pi 1.x uses its new API.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FauxScript } from "../runtime-protocol/faux-script.ts";
import { createRuntimeTestDirs, isEvent, readCompleteJsonl, record, type RuntimeTestDirs } from "../runtime-client/runtime-test-support.ts";
import { ForkedWorkerClient } from "../runtime-client/worker-client.ts";

let dirs: RuntimeTestDirs;
let bundledEntry: string;
const clients: ForkedWorkerClient[] = [];

/** The source of a pi extension (plain TS, no imports) named `name`. */
function extensionSource(name: string): string {
  return `
export default function (pi) {
  pi.registerCommand("${name}-cmd", {
    description: "command of ${name}",
    handler: async (args, ctx) => {
      pi.appendEntry("${name}-command", { args });
      ctx.ui.notify("${name} ran with " + args, "info");
    },
  });
  pi.registerTool({
    name: "${name.replace(/-/g, "_")}_tool",
    label: "${name} tool",
    description: "a tool registered by ${name}",
    parameters: { type: "object", properties: {} },
    async execute() {
      return { content: [{ type: "text", text: "${name} tool result" }], details: {} };
    },
  });
  pi.on("session_start", async (event) => {
    pi.appendEntry("${name}-started", { reason: event.reason });
  });
}
`;
}

beforeAll(() => {
  dirs = createRuntimeTestDirs("leyline-extensions-");
  const projectExtensions = path.join(dirs.cwd, ".pi", "extensions");
  fs.mkdirSync(projectExtensions, { recursive: true });
  fs.writeFileSync(path.join(projectExtensions, "hello.ts"), extensionSource("project-hello"));
  const userExtension = path.join(dirs.agentDir, "extensions", "user-hello");
  fs.mkdirSync(userExtension, { recursive: true });
  fs.writeFileSync(path.join(userExtension, "index.ts"), extensionSource("user-hello"));
  // an extra extension entry file, laid out like Leyline's bundled ones
  const extra = path.join(dirs.root, "extra-extensions", "bundled-hello");
  fs.mkdirSync(extra, { recursive: true });
  bundledEntry = path.join(extra, "index.ts");
  fs.writeFileSync(bundledEntry, extensionSource("bundled-hello"));
});
afterAll(async () => {
  await Promise.all(clients.map((client) => client.dispose({ timeoutMs: 3000 })));
  dirs.cleanup();
});

function spawnWorker(script: FauxScript): ForkedWorkerClient {
  const client = ForkedWorkerClient.spawn({
    fauxScript: script,
    env: { ...process.env, PI_CODING_AGENT_DIR: dirs.agentDir, PI_OFFLINE: "1" },
  });
  clients.push(client);
  return client;
}

describe("pi extension discovery in a worker", () => {
  it("loads project, user and extra-path extensions: commands, tools and session_start entries", async () => {
    const client = spawnWorker(
      new FauxScript([
        { match: "first question", text: "answer one" },
        { match: "use the project tool", toolCalls: [{ name: "project_hello_tool", arguments: {} }] },
        { match: "use the project tool", text: "tool used" },
      ]),
    );
    const rec = record(client);
    const opened = await client.request("open", {
      new: { cwd: dirs.cwd },
      options: { agentDir: dirs.agentDir, faux: {}, extensionPaths: [bundledEntry], heartbeatMs: 0 },
    });
    expect(opened.diagnostics).toEqual([]);
    for (const name of ["project-hello", "user-hello", "bundled-hello"]) {
      expect(opened.slashCommands).toContainEqual({ name: `${name}-cmd`, description: `command of ${name}`, source: "extension" });
      expect(opened.activeToolNames).toContain(`${name.replace(/-/g, "_")}_tool`);
    }
    expect(rec.all.filter((message) => message.type === "extension_error")).toEqual([]);

    // pi writes the file once the first assistant message exists; the session_start entries come first
    await client.request("prompt", { text: "first question", awaitCompletion: true });
    await rec.waitFor(isEvent("agent_end"));
    await client.request("prompt", { text: "/project-hello-cmd some args" });
    await rec.waitFor(
      (m) => m.type === "extension_ui" && m.request.method === "notify" && m.request.message === "project-hello ran with some args",
    );
    await client.request("prompt", { text: "/user-hello-cmd other" });
    await rec.waitFor(
      (m) => m.type === "extension_ui" && m.request.method === "notify" && m.request.message === "user-hello ran with other",
    );

    // the model can call a tool registered by a project extension
    await client.request("prompt", { text: "use the project tool", awaitCompletion: true });
    await rec.waitFor(isEvent("tool_execution_end", (event) => event["toolName"] === "project_hello_tool"));

    const lines = readCompleteJsonl((await client.request("snapshot", {})).sessionFile ?? "");
    const toolResults = lines
      .filter((line) => line["type"] === "message" && (line["message"] as { role: string }).role === "toolResult")
      .map((line) => line["message"] as { toolName?: string; content?: unknown; isError?: boolean });
    expect(toolResults).toEqual([
      expect.objectContaining({
        toolName: "project_hello_tool",
        isError: false,
        content: [{ type: "text", text: "project-hello tool result" }],
      }),
    ]);
    const custom = lines
      .filter((line) => line["type"] === "custom")
      .map((line) => ({ customType: line["customType"], data: line["data"] }));
    expect(custom).toEqual(
      expect.arrayContaining([
        { customType: "project-hello-started", data: { reason: "startup" } },
        { customType: "user-hello-started", data: { reason: "startup" } },
        { customType: "bundled-hello-started", data: { reason: "startup" } },
        { customType: "project-hello-command", data: { args: "some args" } },
        { customType: "user-hello-command", data: { args: "other" } },
      ]),
    );
    // slash commands are handled by the extensions, never sent to the model
    const userTexts = lines
      .filter((line) => line["type"] === "message" && (line["message"] as { role: string }).role === "user")
      .map((line) => JSON.stringify(line["message"]));
    expect(userTexts).toHaveLength(2);
    expect(userTexts.some((text) => text.includes("-cmd"))).toBe(false);
  });

  it("a project extension that fails to load becomes a diagnostic, and the others still load", async () => {
    const otherCwd = path.join(dirs.root, "broken-project");
    fs.mkdirSync(path.join(otherCwd, ".pi", "extensions"), { recursive: true });
    fs.writeFileSync(
      path.join(otherCwd, ".pi", "extensions", "broken.ts"),
      "export default function (pi) { throw new Error('broken on purpose'); }\n",
    );
    const client = spawnWorker(new FauxScript([]));
    const opened = await client.request("open", { new: { cwd: otherCwd }, options: { agentDir: dirs.agentDir, faux: {}, heartbeatMs: 0 } });
    const names = opened.slashCommands.map((command) => command.name);
    expect(names).toContain("user-hello-cmd");
    expect(names).not.toContain("project-hello-cmd");
    expect(opened.diagnostics.map((diagnostic) => diagnostic.message).join("\n")).toContain("broken on purpose");
  });

  it("loads a project extension written for pi 1.x: prompt sections and agent_settled", async () => {
    const cwd = path.join(dirs.root, "pi1-project");
    fs.mkdirSync(path.join(cwd, ".pi", "extensions"), { recursive: true });
    fs.writeFileSync(
      path.join(cwd, ".pi", "extensions", "pi1.ts"),
      `
export default function (pi) {
  pi.on("before_agent_start", (event) => {
    if (event.messageType !== "user") return;
    event.systemPromptOptions.sections["pi1_rules"] = "Answer in one line.";
  });
  pi.on("agent_settled", (event) => {
    pi.appendEntry("pi1-settled", { aborted: event.aborted });
  });
}
`,
    );
    const client = spawnWorker(new FauxScript([{ match: "one line", text: "One line." }]));
    const rec = record(client);
    const opened = await client.request("open", { new: { cwd }, options: { agentDir: dirs.agentDir, faux: {}, heartbeatMs: 0 } });
    expect(opened.diagnostics).toEqual([]);
    await client.request("prompt", { text: "one line, please", awaitCompletion: true });
    await rec.waitFor(isEvent("agent_settled"));
    const file = (await client.request("snapshot", {})).sessionFile ?? "";
    let lines = readCompleteJsonl(file);
    for (let wait = 0; wait < 50 && !lines.some((line) => line["customType"] === "pi1-settled"); wait++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      lines = readCompleteJsonl(file);
    }
    // the section is in the system prompt pi stored, and the settled handler ran after the turn
    const system = lines.find((line) => line["type"] === "message" && (line["message"] as { role: string }).role === "system");
    expect((system?.["message"] as { sections?: Record<string, string> }).sections?.["pi1_rules"]).toContain("Answer in one line.");
    expect(lines.filter((line) => line["customType"] === "pi1-settled").map((line) => line["data"])).toEqual([{ aborted: false }]);
  });
});

/**
 * POST /api/pi/subagent end to end with real worker processes (forked tsx workers) and the scripted faux
 * provider: a child run's answer, its persisted file (parent link, marker) and its place in the session list;
 * model and thinking inheritance; excludeTools; the read-only bash guard of researcher children; bad bodies
 * (400) and failures (500); four children at once; a closed HTTP connection aborting the child; the API URL
 * reaching workers (forked and in-process).
 */
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FauxScript, type FauxTurn } from "../adapters/runtime-protocol/faux-script.ts";
import { InProcessWorkerClient } from "../adapters/runtime-client/in-process-worker-client.ts";
import { API_URL_ENV } from "../adapters/runtime-protocol/runtime-protocol.ts";
import { jsonlLines, processAlive, recordHost } from "../adapters/runtime-host/runtime-host-test-support.ts";
import { RuntimeHost } from "../adapters/runtime-host/runtime-host.ts";
import type { Active } from "../domain/runtime/runtime-types.ts";
import { SUBAGENT_CUSTOM_TYPE, type SessionSummary } from "../domain/session-summary.ts";
import type { SubagentResult } from "../adapters/subagents/subagent-runner.ts";
import { call, runtimeApiDirs, type RuntimeApiDirs, runtimeApp } from "./runtime-api.fixture.ts";

const API_URL = "http://127.0.0.1:1";
const SYSTEM_MARK = "CHILD-SYSTEM-PROMPT-MARK";

/** A test extension loaded in every runtime: publishes LEYLINE_API_URL, records each run's system prompt. */
const PROBE_EXTENSION = `
import fs from "node:fs";
import path from "node:path";
export default function probe(pi) {
  pi.on("session_start", (_event, ctx) => ctx.ui.setStatus("api-url", process.env.${API_URL_ENV} ?? "none"));
  pi.on("before_agent_start", (event, ctx) => {
    fs.writeFileSync(path.join(ctx.cwd, "system-prompt-" + ctx.sessionManager.getSessionId() + ".txt"), event.systemPrompt);
  });
}
`;

/** Blocks until four children touched the barrier folder (each child runs it as its bash tool call). */
function barrierCommand(index: number): string {
  return `mkdir -p barrier && touch barrier/${index} && for n in $(seq 1 6000); do [ "$(ls barrier | wc -l)" -ge 4 ] && echo all-four && exit 0; sleep 0.05; done; echo barrier-timeout; exit 1`;
}

const TURNS: FauxTurn[] = [
  { match: "PARENT-HELLO", text: "Parent here." },
  { match: "CHILD-ONE", text: "Child answer one." },
  { match: "CHILD-MODEL", text: "Model child." },
  { match: "CHILD-AGENT", text: "Scout child." },
  {
    match: "EXCL-TASK",
    toolCalls: [
      { name: "write", arguments: { path: "made.txt", content: "x" } },
      { name: "bash", arguments: { command: "echo bash-ran" } },
      { name: "read", arguments: { path: "seed.txt" } },
    ],
  },
  { match: "EXCL-TASK", text: "Excluded done." },
  { match: "RO-TASK", toolCalls: [{ name: "bash", arguments: { command: "rm -rf x" } }] },
  { match: "RO-TASK", toolCalls: [{ name: "bash", arguments: { command: "ls" } }] },
  { match: "RO-TASK", text: "Read-only done." },
  ...[1, 2, 3, 4].flatMap((index): FauxTurn[] => [
    { match: `PAR-${index}`, toolCalls: [{ name: "bash", arguments: { command: barrierCommand(index) } }] },
    { match: `PAR-${index}`, text: `parallel ${index} done` },
  ]),
  { match: "ABORT-TASK", toolCalls: [{ name: "bash", arguments: { command: "touch abort-started && sleep 120" } }] },
];

let dirs: RuntimeApiDirs;
let app: FastifyInstance;
let baseUrl: string;

beforeAll(async () => {
  dirs = runtimeApiDirs("leyline-subagent-");
  const probe = path.join(dirs.root, "probe-extension.ts");
  fs.writeFileSync(probe, PROBE_EXTENSION);
  fs.writeFileSync(path.join(dirs.cwd, "seed.txt"), "seed content");
  fs.mkdirSync(path.join(dirs.agentDir, "agents"), { recursive: true });
  fs.writeFileSync(
    path.join(dirs.agentDir, "agents", "scout.md"),
    "---\nname: scout\ndescription: Scouts.\nmodel: faux/faux-2\n---\nScout around.\n",
  );
  app = await runtimeApp(dirs, {
    forked: true,
    turns: TURNS,
    host: { extensionPaths: [probe], apiUrl: () => API_URL, openTimeoutMs: 240_000 },
  });
  await app.listen({ port: 0, host: "127.0.0.1" });
  const address = app.server.address();
  if (typeof address !== "object" || address === null) throw new Error("not listening");
  baseUrl = `http://127.0.0.1:${address.port}`;
}, 60_000);
afterAll(async () => {
  await app?.close();
  dirs?.cleanup();
});

async function subagent(payload: Record<string, unknown>): Promise<{ status: number; body: Record<string, unknown> }> {
  return call(app, "POST", "/api/pi/subagent", payload);
}

function result(response: { status: number; body: Record<string, unknown> }): SubagentResult {
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body as unknown as SubagentResult;
}

/** Tool results of a session file: tool name, error flag, text. */
function toolResults(file: string): Array<{ toolName: string; isError: boolean; text: string }> {
  return jsonlLines(file)
    .filter((line) => line["type"] === "message" && (line["message"] as { role: string }).role === "toolResult")
    .map((line) => {
      const message = line["message"] as { toolName: string; isError: boolean; content: Array<{ type: string; text?: string }> };
      return { toolName: message.toolName, isError: message.isError, text: message.content.map((block) => block.text ?? "").join("") };
    });
}

function subagentCwd(name: string): string {
  const cwd = path.join(dirs.root, name);
  fs.mkdirSync(cwd, { recursive: true });
  return cwd;
}

describe("POST /api/pi/subagent", () => {
  it(
    "runs a child to completion: messages, usage, inherited model and thinking, parent header, marker, subagent listing; the child closes",
    { timeout: 120_000 },
    async () => {
      const host = app.leyline.host;
      const recorder = recordHost(host);
      const created = await call(app, "POST", "/api/pi/sessions", { cwd: dirs.cwd });
      const parentId = (created.body["active"] as Active).id;
      const parent = host.require(parentId);
      expect(parent.active().state.extensionUi.statuses["api-url"]).toBe(API_URL);
      await parent.runToCompletion("PARENT-HELLO");
      await parent.setThinkingLevel("low");
      const parentFile = parent.sessionFile ?? "";
      expect(fs.existsSync(parentFile)).toBe(true);
      const rosterBefore = host.openRuntimes().map((handle) => handle.sessionId);

      const answer = result(
        await subagent({
          task: "CHILD-ONE: answer",
          cwd: dirs.cwd,
          parentSessionId: parentId,
          _toolCallId: "call_7",
          systemPrompt: SYSTEM_MARK,
        }),
      );
      expect(answer.messages).toEqual([
        { role: "user", content: "CHILD-ONE: answer" },
        { role: "assistant", content: "Child answer one." },
      ]);
      expect(answer.usage.turns).toBe(1);
      expect(answer.usage.outputTokens).toBeGreaterThan(0);
      expect(answer.usage.totalTokens).toBe(answer.usage.inputTokens + answer.usage.outputTokens);
      expect(answer).toMatchObject({ model: "faux/faux-1", thinkingLevel: "low", stopReason: "stop" });
      expect(answer.childSession.cwd).toBe(dirs.cwd);

      // the child was a registered runtime while it ran, never the selected one, and is closed now
      const childId = answer.childSession.id;
      expect(
        recorder.all.some(
          (event) => event.type === "runtime_roster" && (event.data(true) as { sessionIds: string[] }).sessionIds.includes(childId),
        ),
      ).toBe(true);
      expect(host.activeSessionId).not.toBe(childId);
      expect(host.openRuntimes().map((handle) => handle.sessionId)).toEqual(rosterBefore);

      const lines = jsonlLines(answer.childSession.path);
      expect(lines[0]).toMatchObject({ type: "session", id: childId, parentSession: parentFile });
      const markerIndex = lines.findIndex((line) => line["type"] === "custom" && line["customType"] === SUBAGENT_CUSTOM_TYPE);
      expect(lines[markerIndex]?.["data"]).toEqual({
        version: 1,
        parentSessionId: parentId,
        parentSessionPath: parentFile,
        toolCallId: "call_7",
        agent: null,
        readOnlyBash: false,
      });
      expect(markerIndex).toBeLessThan(lines.findIndex((line) => line["type"] === "message"));
      expect(fs.readFileSync(path.join(dirs.cwd, `system-prompt-${childId}.txt`), "utf8")).toContain(SYSTEM_MARK);
      expect(fs.readFileSync(path.join(dirs.cwd, `system-prompt-${parentId}.txt`), "utf8")).not.toContain(SYSTEM_MARK);

      const { index } = await app.leyline.readSide.ready();
      await index.touch([answer.childSession.path]);
      const list = await call(app, "GET", "/api/pi/sessions");
      const row = (list.body["sessions"] as SessionSummary[]).find((summary) => summary.id === childId);
      expect(row).toMatchObject({ isSubagentSession: true, parentSessionPath: parentFile });
      recorder.stop();
    },
  );

  it(
    "uses an explicit model and thinking level (pi clamps thinking to the model), else the named agent's model",
    { timeout: 120_000 },
    async () => {
      const answer = result(await subagent({ task: "CHILD-MODEL", cwd: dirs.cwd, model: "faux/faux-2", thinkingLevel: "high" }));
      expect(answer).toMatchObject({
        model: "faux/faux-2",
        thinkingLevel: "off",
        messages: [{ role: "user" }, { role: "assistant", content: "Model child." }],
      });
      expect(jsonlLines(answer.childSession.path)[0]?.["parentSession"]).toBeUndefined();
      // no explicit model: the agent definition's (resolveSubagentSettings)
      const scout = result(await subagent({ task: "CHILD-AGENT", cwd: dirs.cwd, agent: "scout" }));
      expect(scout).toMatchObject({ model: "faux/faux-2", messages: [{ role: "user" }, { role: "assistant", content: "Scout child." }] });
      expect(jsonlLines(scout.childSession.path).find((line) => line["customType"] === SUBAGENT_CUSTOM_TYPE)?.["data"]).toMatchObject({
        agent: "scout",
        readOnlyBash: false,
      });
    },
  );

  it("excludeTools removes write and edit but keeps bash and read", { timeout: 60_000 }, async () => {
    const answer = result(await subagent({ task: "EXCL-TASK", cwd: dirs.cwd, excludeTools: ["write", "edit"] }));
    expect(answer.messages.at(-1)).toEqual({ role: "assistant", content: "Excluded done." });
    expect(answer.usage.turns).toBe(2);
    expect(fs.existsSync(path.join(dirs.cwd, "made.txt"))).toBe(false);
    const results = toolResults(answer.childSession.path);
    expect(results.find((r) => r.toolName === "write")).toMatchObject({ isError: true, text: "Tool write not found" });
    expect(results.find((r) => r.toolName === "bash")).toMatchObject({
      isError: false,
      text: expect.stringContaining("bash-ran") as unknown,
    });
    expect(results.find((r) => r.toolName === "read")).toMatchObject({
      isError: false,
      text: expect.stringContaining("seed content") as unknown,
    });
  });

  it("a researcher child may run read-only bash only: rm is refused (the folder stays), ls runs", { timeout: 60_000 }, async () => {
    const cwd = subagentCwd("research-cwd");
    fs.mkdirSync(path.join(cwd, "x"));
    fs.writeFileSync(path.join(cwd, "x", "keep.txt"), "keep");
    const answer = result(await subagent({ task: "RO-TASK", cwd, agent: "researcher", excludeTools: ["write", "edit"] }));
    expect(answer.messages.at(-1)).toEqual({ role: "assistant", content: "Read-only done." });
    expect(fs.existsSync(path.join(cwd, "x", "keep.txt"))).toBe(true);
    const [refused, listed] = toolResults(answer.childSession.path);
    expect(refused).toMatchObject({ toolName: "bash", isError: true, text: expect.stringContaining("read-only") as unknown });
    expect(listed).toMatchObject({ toolName: "bash", isError: false, text: expect.stringMatching(/^x$/m) as unknown });
    const marker = jsonlLines(answer.childSession.path).find((line) => line["customType"] === SUBAGENT_CUSTOM_TYPE);
    expect(marker?.["data"]).toMatchObject({ agent: "researcher", readOnlyBash: true, parentSessionId: null });
  });

  it("answers 400 for bad bodies", async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ task: "t", cwd: dirs.cwd, tools: ["read"], excludeTools: ["write"] }, "tools and excludeTools cannot be combined"],
      [{ cwd: dirs.cwd }, "task must be a non-empty string"],
      [{ task: "  ", cwd: dirs.cwd }, "task must be a non-empty string"],
      [{ task: "t" }, "cwd must be a non-empty string"],
      [{ task: "t", cwd: dirs.cwd, thinkingLevel: "extreme" }, "thinkingLevel must be one of off, minimal, low, medium, high, xhigh, max"],
      [{ task: "t", cwd: dirs.cwd, model: "faux" }, 'model must be "provider/id" or { provider, id }'],
      [{ task: "t", cwd: dirs.cwd, model: { provider: "faux" } }, 'model must be "provider/id" or { provider, id }'],
      [{ task: "t", cwd: dirs.cwd, tools: "read" }, "tools must be an array of strings"],
      // The route's schema checks these types (they were parseSubagentBody's unit tests in api/subagent.routes.test.ts).
      [{ task: "T", cwd: "" }, "cwd must be a non-empty string"],
      [{ task: "T", cwd: "/w", model: 3 }, 'model must be "provider/id" or { provider, id }'],
      [{ task: "T", cwd: "/w", excludeTools: [1] }, "excludeTools must be an array of strings"],
      [{ task: "T", cwd: "/w", parentSessionId: 5 }, "parentSessionId must be a string"],
      [{ task: "T", cwd: "/w", readOnlyBash: "yes" }, "readOnlyBash must be a boolean"],
      // and these rules the schema cannot state (adapters/subagents/subagent-request.ts)
      [{ task: "T", cwd: "/w", thinkingLevel: "inherit" }, "thinkingLevel must be one of off, minimal, low, medium, high, xhigh, max"],
      [{ task: "T", cwd: "/w", model: "faux/" }, 'model must be "provider/id" or { provider, id }'],
    ];
    for (const [payload, error] of cases) {
      expect(await subagent(payload), JSON.stringify(payload)).toEqual({ status: 400, body: { error } });
    }
    for (const [payload, error] of [
      [null, "task must be a non-empty string"],
      [[], "Request body must be a JSON object"],
    ] as const) {
      expect(await call(app, "POST", "/api/pi/subagent", payload), JSON.stringify(payload)).toEqual({ status: 400, body: { error } });
    }
    expect(app.leyline.host.openRuntimes().some((handle) => handle.child !== null)).toBe(false);
  });

  it(
    "answers 500 with the error for an unknown parent, an unknown model and a failing child run; nothing stays open",
    { timeout: 60_000 },
    async () => {
      const before = app.leyline.host.openRuntimes().length;
      const missing = await subagent({ task: "t", cwd: dirs.cwd, parentSessionPath: path.join(dirs.root, "nope.jsonl") });
      expect(missing.status).toBe(500);
      expect(String(missing.body["error"])).toContain("Parent session not found");
      const notPi = path.join(dirs.root, "not-a-session.jsonl");
      fs.writeFileSync(notPi, "hello\n");
      expect((await subagent({ task: "t", cwd: dirs.cwd, parentSessionPath: notPi })).body["error"]).toMatch(
        /Parent session is not a pi session/,
      );
      expect((await subagent({ task: "t", cwd: dirs.cwd, parentSessionId: "no-such-session" })).body).toEqual({
        error: "Parent session not found: no-such-session",
      });
      const unknownModel = await subagent({ task: "t", cwd: dirs.cwd, model: { provider: "faux", id: "faux-9" } });
      expect(unknownModel.status).toBe(500);
      expect(String(unknownModel.body["error"])).toContain("Unknown model faux/faux-9");
      // no scripted turn matches: the child's assistant message is an error
      expect(await subagent({ task: "UNSCRIPTED task", cwd: subagentCwd("unscripted") })).toEqual({
        status: 500,
        body: { error: "No scripted reply" },
      });
      expect(app.leyline.host.openRuntimes()).toHaveLength(before);
    },
  );

  it("runs four children at once (each waits in bash until all four run)", { timeout: 400_000 }, async () => {
    const host = app.leyline.host;
    const recorder = recordHost(host);
    const cwd = subagentCwd("parallel");
    const before = new Set(host.openRuntimes().map((handle) => handle.sessionId));
    const answers = await Promise.all([1, 2, 3, 4].map(async (index) => result(await subagent({ task: `PAR-${index}`, cwd }))));
    answers.forEach((answer, offset) => {
      expect(answer.messages.at(-1)).toEqual({ role: "assistant", content: `parallel ${offset + 1} done` });
      expect(toolResults(answer.childSession.path)[0]).toMatchObject({
        isError: false,
        text: expect.stringContaining("all-four") as unknown,
      });
    });
    const childIds = new Set(answers.map((answer) => answer.childSession.id));
    expect(childIds.size).toBe(4);
    const mostAtOnce = Math.max(
      ...recorder.all
        .filter((event) => event.type === "runtime_roster")
        .map((event) => (event.data(true) as { sessionIds: string[] }).sessionIds.filter((id) => childIds.has(id)).length),
    );
    expect(mostAtOnce).toBe(4);
    expect(new Set(host.openRuntimes().map((handle) => handle.sessionId))).toEqual(before);
    recorder.stop();
  });

  it("closing the HTTP connection interrupts and closes the child", { timeout: 120_000 }, async () => {
    const host = app.leyline.host;
    const recorder = recordHost(host);
    const cwd = subagentCwd("abort");
    const request = http.request(`${baseUrl}/api/pi/subagent`, { method: "POST", headers: { "content-type": "application/json" } });
    let answered = false;
    request.on("response", () => (answered = true));
    request.on("error", () => {});
    request.end(JSON.stringify({ task: "ABORT-TASK", cwd }));

    let childId = "";
    await recorder.until(() => {
      const started = recorder.all.find((event) => {
        if (event.type !== "runtime_event" || event.sessionId === null) return false;
        return (event.data(true) as { event: { type: string } }).event.type === "tool_execution_start";
      });
      childId = started?.sessionId ?? "";
      return childId !== "" && host.get(childId)?.child !== null;
    }, "the child's bash call started");
    const pid = host.get(childId)?.workerPid ?? 0;
    expect(processAlive(pid)).toBe(true);
    // tool_execution_start comes before bash has spawned: wait until the command is really running, so the
    // abort below cuts a running command (the marker file is its first action).
    const marker = path.join(cwd, "abort-started");
    const deadline = Date.now() + 60_000;
    while (!fs.existsSync(marker)) {
      if (Date.now() > deadline) throw new Error("the child's bash command never started");
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    request.destroy();

    await recorder.until(
      () => recorder.all.some((event) => event.type === "runtime_removed" && (event.data(true) as { id: string }).id === childId),
      "the child was closed",
    );
    expect(host.get(childId)).toBeUndefined();
    expect(processAlive(pid)).toBe(false);
    expect(answered).toBe(false);
    expect(fs.existsSync(path.join(cwd, "abort-started"))).toBe(true);
    recorder.stop();
  });
});

describe("the API URL reaches in-process workers", () => {
  it("exports open.options.apiUrl to the worker's environment before extensions load", { timeout: 60_000 }, async () => {
    const previous = process.env[API_URL_ENV];
    const probe = path.join(dirs.root, "probe-extension.ts");
    const host = new RuntimeHost({
      agentDir: dirs.agentDir,
      extensionPaths: [probe],
      fauxScript: new FauxScript([]),
      createClient: ({ fauxScript }) => InProcessWorkerClient.start({ fauxScript }),
      apiUrl: () => "http://127.0.0.1:2",
      idleMs: 0,
      watchdogMs: 0,
    });
    try {
      delete process.env[API_URL_ENV];
      const handle = await host.open({ new: { cwd: subagentCwd("in-process") } });
      expect(handle.active().state.extensionUi.statuses["api-url"]).toBe("http://127.0.0.1:2");
    } finally {
      await host.shutdown();
      if (previous === undefined) delete process.env[API_URL_ENV];
      else process.env[API_URL_ENV] = previous;
    }
  });
});

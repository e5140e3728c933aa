/**
 * An accepted prompt is durable (issue 9): a new session's file exists with its header and the user message
 * before the model call starts, so a kill -9 during the first reply loses neither the session nor the prompt;
 * and a worker that dies before any file exists comes back with the same session id.
 * - worker kill: a runtime host with real worker processes and a slowly streaming faux reply;
 * - server kill: the real server as a child process (api/main.ts); the first reply is held by a pi extension in
 *   the agent dir (after the provider answered, before it streams), the server is killed with SIGKILL, and a
 *   new server lists the session and shows the prompt.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FauxScript } from "../../adapters/runtime-protocol/faux-script.ts";
import { createRuntimeTestDirs, type RuntimeTestDirs } from "../../adapters/runtime-client/runtime-test-support.ts";
import { ManualClock } from "../../adapters/runtime-host/host-clock.ts";
import { RuntimeHost } from "../../adapters/runtime-host/runtime-host.ts";
import { jsonlLines, messageTexts, processAlive, recordHost } from "../../adapters/runtime-host/runtime-host-test-support.ts";
import type { Active } from "../../domain/runtime/runtime-types.ts";
import { running, type ServerDirs, startServer, until } from "./server-process.fixture.ts";

let dirs: RuntimeTestDirs;
const hosts: RuntimeHost[] = [];

beforeAll(() => {
  dirs = createRuntimeTestDirs("leyline-durable-");
});
afterAll(async () => {
  await Promise.all(hosts.map((host) => host.shutdown()));
  dirs.cleanup();
});

function makeHost(script: FauxScript): RuntimeHost {
  const host = new RuntimeHost({
    agentDir: dirs.agentDir,
    fauxScript: script,
    env: { ...process.env, PI_CODING_AGENT_DIR: dirs.agentDir, PI_OFFLINE: "1" },
    faux: { tokensPerSecond: 20 },
    clock: new ManualClock(),
    idleMs: 0,
    watchdogMs: 0,
  });
  hosts.push(host);
  return host;
}

/** The file holds pi's header for `sessionId` and then the user message `text`, as the first message. */
function expectHeaderAndPrompt(file: string, sessionId: string, cwd: string, text: string): void {
  const lines = jsonlLines(file);
  expect(lines[0]).toMatchObject({ type: "session", version: 3, id: sessionId, cwd });
  expect(lines.filter((line) => line["type"] === "session")).toHaveLength(1);
  expect(messageTexts(file)[0]).toBe(`user:${text}`);
}

describe("the first reply of a new session", () => {
  it(
    "kill -9 of the worker mid-reply: the file has header and prompt; the session recovers with its id and file",
    { timeout: 90_000 },
    async () => {
      const host = makeHost(
        new FauxScript([
          { match: "first words", text: "A reply that takes its time. ".repeat(60) },
          { match: "after the kill", text: "still the same session" },
        ]),
      );
      const rec = recordHost(host);
      const handle = await host.open({ new: { cwd: dirs.cwd } });
      const sessionId = handle.sessionId;
      await handle.prompt({ text: "first words" });
      const file = handle.sessionFile ?? "";
      // The prompt was accepted: the file is there already, before any byte of the reply.
      expect(fs.existsSync(file)).toBe(true);
      expectHeaderAndPrompt(file, sessionId, dirs.cwd, "first words");
      await rec.until(() => rec.runtimeEvents(sessionId).includes("stream_delta"), "the reply streams");
      expect(messageTexts(file)).toEqual(["user:first words"]);

      const worker = handle.workerPid ?? 0;
      process.kill(worker, "SIGKILL");
      await rec.until(() => handle.status === "ready" && handle.workerPid !== null && handle.workerPid !== worker, "recovered");
      expect(processAlive(worker)).toBe(false);
      expect(handle.sessionId).toBe(sessionId);
      expect(handle.sessionFile).toBe(file);
      expectHeaderAndPrompt(file, sessionId, dirs.cwd, "first words");

      await handle.prompt({ text: "after the kill" });
      await rec.until(() => !handle.busy() && messageTexts(file).includes("assistant:still the same session"), "prompt after recovery");
      expect(jsonlLines(file).filter((line) => line["type"] === "session")).toHaveLength(1);
      rec.stop();
    },
  );

  it("a worker that dies before any file exists comes back with the same session id", { timeout: 60_000 }, async () => {
    const host = makeHost(new FauxScript([]));
    const rec = recordHost(host);
    const handle = await host.open({ new: { cwd: dirs.cwd } }, { select: true });
    const sessionId = handle.sessionId;
    expect(handle.sessionFile !== null && fs.existsSync(handle.sessionFile)).toBe(false);
    const worker = handle.workerPid ?? 0;

    process.kill(worker, "SIGKILL");
    await rec.until(() => handle.status === "ready" && handle.workerPid !== null && handle.workerPid !== worker, "recovered");
    expect(handle.sessionId).toBe(sessionId);
    expect(host.get(sessionId)).toBe(handle);
    expect(host.activeSessionId).toBe(sessionId);
    expect(rec.types()).not.toContain("runtime_removed");
    rec.stop();
  });
});

/** A pi extension (agent dir) that holds every reply once the provider answered, and says so in a file. */
function writeHoldExtension(agentDir: string, marker: string): void {
  const folder = path.join(agentDir, "extensions");
  fs.mkdirSync(folder, { recursive: true });
  fs.writeFileSync(
    path.join(folder, "hold-reply.js"),
    [
      'const fs = require("node:fs");',
      "module.exports = function (pi) {",
      '  pi.on("after_provider_response", async () => {',
      `    fs.writeFileSync(${JSON.stringify(marker)}, String(process.pid));`,
      "    await new Promise(() => {});",
      "  });",
      "};",
      "",
    ].join("\n"),
  );
}

describe.runIf(fs.existsSync("/proc/self/stat"))("kill -9 of the server during the first reply", () => {
  it("keeps the new session's file with header and prompt; a new server lists it and shows the prompt", { timeout: 120_000 }, async () => {
    const root = path.join(dirs.root, "server");
    const server: ServerDirs = {
      root,
      agentDir: path.join(root, "agent"),
      dataDir: path.join(root, "data"),
      cwd: path.join(root, "project"),
    };
    fs.mkdirSync(server.cwd, { recursive: true });
    fs.mkdirSync(server.agentDir, { recursive: true });
    fs.copyFileSync(path.join(dirs.agentDir, "settings.json"), path.join(server.agentDir, "settings.json"));
    const held = path.join(root, "held");
    writeHoldExtension(server.agentDir, held);

    const first = await startServer(server, [{ match: "never answered", text: "this reply is never streamed" }]);
    let second: Awaited<ReturnType<typeof startServer>> | null = null;
    try {
      const created = await first.call("POST", "/api/pi/sessions", { cwd: server.cwd });
      expect(created.status, JSON.stringify(created.body)).toBe(200);
      const active = created.body["active"] as Active;
      const prompt = await first.call("POST", `/api/pi/sessions/${active.id}/prompt`, { text: "never answered, never lost" });
      expect(prompt.status, JSON.stringify(prompt.body)).toBe(200);
      await until(() => fs.existsSync(held), "the first reply is held");
      const workers = await first.workers();

      process.kill(first.pid, "SIGKILL");
      await until(() => !running(first.pid) && workers.every((pid) => !running(pid)), "server and worker are gone");
      const files = fs
        .readdirSync(path.join(server.agentDir, "sessions"), { recursive: true, encoding: "utf8" })
        .filter((name) => name.endsWith(".jsonl"));
      expect(files).toHaveLength(1);
      const file = path.join(server.agentDir, "sessions", files[0] ?? "");
      expectHeaderAndPrompt(file, active.id, server.cwd, "never answered, never lost");

      fs.rmSync(path.join(server.agentDir, "extensions"), { recursive: true });
      second = await startServer(server, []);
      await until(async () => ((await second?.call("GET", "/api/pi/sessions"))?.status ?? 0) === 200, "the list is served");
      const list = await second.call("GET", "/api/pi/sessions");
      expect(JSON.stringify(list.body)).toContain(active.id);
      const detail = await second.call("GET", `/api/pi/sessions/${active.id}`);
      expect(detail.status, JSON.stringify(detail.body)).toBe(200);
      expect(JSON.stringify(detail.body)).toContain("never answered, never lost");
    } finally {
      await first.stop();
      await second?.stop();
    }
  });
});

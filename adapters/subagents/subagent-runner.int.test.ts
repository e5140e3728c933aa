/**
 * `runSubagent` on a runtime host with real worker processes and the scripted faux provider: a parent found
 * by its file passes on its current model; an aborted signal interrupts and closes the child. (The HTTP route's
 * suite, api/subagent.routes.int.test.ts, covers the rest end to end.)
 */
import * as fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FauxScript } from "../runtime-protocol/faux-script.ts";
import { createRuntimeTestDirs, type RuntimeTestDirs } from "../runtime-client/runtime-test-support.ts";
import { jsonlLines, processAlive, recordHost } from "../runtime-host/runtime-host-test-support.ts";
import { RuntimeHost } from "../runtime-host/runtime-host.ts";
import { parseModelRef, runSubagent, SubagentAbortedError } from "./subagent-runner.ts";

let dirs: RuntimeTestDirs;
let host: RuntimeHost;

beforeAll(() => {
  dirs = createRuntimeTestDirs("leyline-subagent-runner-");
  host = new RuntimeHost({
    agentDir: dirs.agentDir,
    fauxScript: new FauxScript([
      { match: "parent turn", text: "parent reply" },
      { match: "INHERIT", text: "inherited" },
      { match: "SLOW", toolCalls: [{ name: "bash", arguments: { command: "sleep 120" } }] },
    ]),
    env: { ...process.env, PI_CODING_AGENT_DIR: dirs.agentDir, PI_OFFLINE: "1" },
    idleMs: 0,
    watchdogMs: 0,
  });
});
afterAll(async () => {
  await host.shutdown();
  dirs.cleanup();
});

describe("parseModelRef", () => {
  it("splits at the first slash and needs both parts", () => {
    expect(parseModelRef("faux/faux-1")).toEqual({ provider: "faux", id: "faux-1" });
    expect(parseModelRef("openrouter/meta/llama")).toEqual({ provider: "openrouter", id: "meta/llama" });
    expect(parseModelRef("faux")).toBeNull();
    expect(parseModelRef("/x")).toBeNull();
    expect(parseModelRef("x/")).toBeNull();
  });
});

describe("runSubagent", () => {
  it("a parent named by its file passes on its current model; the marker records the parent", { timeout: 120_000 }, async () => {
    const parent = await host.open({ new: { cwd: dirs.cwd } });
    await parent.runToCompletion("parent turn");
    await parent.setModel({ provider: "faux", id: "faux-2" });
    const parentFile = parent.sessionFile ?? "";
    const result = await runSubagent(host, { task: "INHERIT", cwd: dirs.cwd, parentSessionPath: parentFile });
    expect(result).toMatchObject({ model: "faux/faux-2", thinkingLevel: "off", stopReason: "stop" });
    const marker = jsonlLines(result.childSession.path).find((line) => line["type"] === "custom");
    expect(marker?.["data"]).toMatchObject({ parentSessionId: parent.sessionId, parentSessionPath: parentFile, readOnlyBash: false });
    expect(host.get(result.childSession.id)).toBeUndefined();
    await host.close(parent.sessionId);
  });

  it("an aborted signal interrupts the run and closes the child", { timeout: 120_000 }, async () => {
    const recorder = recordHost(host);
    const controller = new AbortController();
    const run = runSubagent(host, { task: "SLOW", cwd: dirs.cwd }, { signal: controller.signal });
    run.catch(() => {});
    let childId = "";
    await recorder.until(() => {
      const started = recorder.all.find(
        (event) =>
          event.type === "runtime_event" && (event.data(true) as { event: { type: string } }).event.type === "tool_execution_start",
      );
      childId = started?.sessionId ?? "";
      return childId !== "";
    }, "bash started in the child");
    const pid = host.get(childId)?.workerPid ?? 0;
    const file = host.get(childId)?.sessionFile ?? "";
    controller.abort();
    await expect(run).rejects.toBeInstanceOf(SubagentAbortedError);
    expect(host.get(childId)).toBeUndefined();
    expect(processAlive(pid)).toBe(false);
    // interrupted before the close: pi recorded the aborted tool call
    expect(fs.readFileSync(file, "utf8")).toMatch(/aborted/i);
    recorder.stop();
  });

  it("rejects at once when the signal is already aborted, without opening a child", async () => {
    const controller = new AbortController();
    controller.abort();
    const before = host.openRuntimes().length;
    await expect(runSubagent(host, { task: "x", cwd: dirs.cwd }, { signal: controller.signal })).rejects.toBeInstanceOf(
      SubagentAbortedError,
    );
    expect(host.openRuntimes()).toHaveLength(before);
  });
});

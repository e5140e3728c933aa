/**
 * Real pi SDK in real worker processes (tsx child), temp PI_CODING_AGENT_DIR, PI_OFFLINE=1, scripted faux
 * provider whose turns come from ONE control-plane FauxScript.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FauxScript, type FauxTurn } from "../runtime-protocol/faux-script.ts";
import type { RuntimeSnapshot } from "../runtime-protocol/runtime-protocol.ts";
import {
  createRuntimeTestDirs,
  isEvent,
  isTextDelta,
  readCompleteJsonl,
  record,
  type RuntimeTestDirs,
  streamedReplies,
} from "./runtime-test-support.ts";
import { ForkedWorkerClient, type RuntimeWorkerClient, WorkerRequestError } from "./worker-client.ts";

let dirs: RuntimeTestDirs;
const clients: RuntimeWorkerClient[] = [];

beforeAll(() => {
  dirs = createRuntimeTestDirs();
});
afterAll(async () => {
  await Promise.all(clients.map((client) => client.dispose({ timeoutMs: 3000 })));
  dirs.cleanup();
});

function spawn(script: FauxScript | null): ForkedWorkerClient {
  const client = ForkedWorkerClient.spawn({
    fauxScript: script,
    env: { ...process.env, PI_CODING_AGENT_DIR: dirs.agentDir, PI_OFFLINE: "1" },
  });
  clients.push(client);
  return client;
}

async function openNew(client: RuntimeWorkerClient, faux: { tokensPerSecond?: number } = {}, cwd = dirs.cwd): Promise<RuntimeSnapshot> {
  return client.request("open", { new: { cwd, kind: "session" }, options: { agentDir: dirs.agentDir, faux, heartbeatMs: 200 } });
}

function script(turns: FauxTurn[]): FauxScript {
  return new FauxScript(turns);
}

describe("ForkedWorkerClient with a real pi runtime", () => {
  it("opens a new session, streams a prompt's events and writes the JSONL file", async () => {
    const client = spawn(script([{ text: "Hello from the faux model, streamed in several chunks." }]));
    const rec = record(client);
    const opened = await openNew(client);
    expect(opened.model).toMatchObject({ provider: "faux", id: "faux-1" });
    expect(opened.cwd).toBe(dirs.cwd);
    expect(opened.isStreaming).toBe(false);

    const result = await client.request("prompt", { text: "say hello", awaitCompletion: true });
    expect(result).toEqual({ accepted: true, completed: true });
    await rec.waitFor(isEvent("agent_end"));
    expect(rec.events("stream_delta").length).toBeGreaterThan(0);
    expect(streamedReplies(rec.events())).toEqual(["Hello from the faux model, streamed in several chunks."]);
    await rec.waitFor((m) => m.type === "heartbeat");

    const snapshot = await client.request("snapshot", {});
    expect(snapshot.sessionFile).not.toBeNull();
    const lines = readCompleteJsonl(snapshot.sessionFile ?? "");
    expect(lines[0]).toMatchObject({ type: "session", id: snapshot.sessionId, cwd: dirs.cwd });
    const messages = lines
      .filter((line) => line["type"] === "message")
      .map((line) => line["message"] as { role: string; sections?: object });
    // pi 1.x stores the system prompt it sent (as sections) before the first user message.
    expect(messages.map((message) => message.role)).toEqual(["system", "user", "assistant"]);
    expect(Object.keys(messages[0]?.sections ?? {})).not.toEqual([]);
    expect(path.dirname(snapshot.sessionFile ?? "")).toBe(
      path.join(dirs.agentDir, "sessions", `--${dirs.cwd.slice(1).replace(/\//g, "-")}--`),
    );
    // generous bound: past it the client SIGKILLs and the exit is no longer code 0 (a loaded CI is slow to exit)
    await client.dispose({ timeoutMs: 20_000 });
    expect(client.exited).toMatchObject({ code: 0, expected: true });
  });

  describe("two workers drawing from one script", () => {
    const shared = script([
      // the busy worker (B)
      { match: "beta task", text: "reply for beta" },
      { match: "alpha task", text: "reply for alpha" },
      { match: "list files", toolCalls: [{ name: "bash", arguments: { command: "ls && sleep 1" } }] },
      { match: "steer-msg", text: "steered reply" },
      { match: "follow-msg", text: "follow-up reply" },
      { match: "long story", text: "Once upon a time ".repeat(40) },
      { match: "second story", text: "There was a session that would not end ".repeat(40) },
      // manual compaction here asks twice: the history summary and the split turn's prefix summary
      { text: "SUMMARY-TEXT of the conversation" },
      { text: "PREFIX-SUMMARY of the split turn" },
    ]);
    let busy: ForkedWorkerClient;
    let slow: ForkedWorkerClient;
    let busyRec: ReturnType<typeof record>;
    let slowRec: ReturnType<typeof record>;
    const busyCwd = () => path.join(dirs.root, "busy");
    const slowCwd = () => path.join(dirs.root, "slow");

    beforeAll(async () => {
      busy = spawn(shared);
      slow = spawn(shared);
      busyRec = record(busy);
      slowRec = record(slow);
      await Promise.all([openNew(busy, {}, busyCwd()), openNew(slow, { tokensPerSecond: 20 }, slowCwd())]);
    });

    it("answers parallel prompts by match, whatever the order of the script", async () => {
      const [alpha, beta] = await Promise.all([
        busy.request("prompt", { text: "alpha task: go", awaitCompletion: true }),
        slow.request("prompt", { text: "beta task: go", awaitCompletion: true }),
      ]);
      expect(alpha.completed && beta.completed).toBe(true);
      expect(streamedReplies(busyRec.events())).toEqual(["reply for alpha"]);
      expect(streamedReplies(slowRec.events())).toEqual(["reply for beta"]);
    });

    it("runs a scripted tool call and takes steer and follow-up messages while busy", async () => {
      fs.mkdirSync(busyCwd(), { recursive: true });
      fs.writeFileSync(path.join(busyCwd(), "marker-file.txt"), "x");
      busyRec.clear();
      const run = busy.request("prompt", { text: "list files please", awaitCompletion: true });
      await busyRec.waitFor(isEvent("tool_execution_start"));
      const afterSteer = await busy.request("steer", { text: "steer-msg now" });
      const afterFollow = await busy.request("followUp", { text: "follow-msg later" });
      expect(afterSteer.queuedMessages.steering).toEqual(["steer-msg now"]);
      expect(afterFollow.queuedMessages).toEqual({ steering: ["steer-msg now"], followUp: ["follow-msg later"] });
      expect(afterFollow.isStreaming).toBe(true);
      expect(afterFollow.pendingToolCalls).toHaveLength(1);
      await run;
      expect(busyRec.events("tool_execution_end")[0]).toMatchObject({ toolName: "bash", isError: false });
      const snapshot = await busy.request("snapshot", {});
      expect(snapshot.queuedMessages).toEqual({ steering: [], followUp: [] });
      const entries = readCompleteJsonl(snapshot.sessionFile ?? "");
      const texts = entries
        .filter((entry) => entry["type"] === "message")
        .map((entry) => entry["message"] as { role: string; content: unknown })
        .map((message) => `${message.role}:${typeof message.content === "string" ? message.content : JSON.stringify(message.content)}`);
      const order = ["list files please", "marker-file.txt", "steer-msg now", "steered reply", "follow-msg later", "follow-up reply"].map(
        (needle) => texts.findIndex((text) => text.includes(needle)),
      );
      expect(order.every((index) => index >= 0)).toBe(true);
      expect([...order].sort((a, b) => a - b)).toEqual(order);
    });

    it("changes thinking level and model, and rejects an unknown model", async () => {
      const high = await busy.request("setThinkingLevel", { level: "high" });
      expect(high.thinkingLevel).toBe("high");
      expect(high.availableThinkingLevels).toContain("high");
      const second = await busy.request("setModel", { provider: "faux", modelId: "faux-2" });
      expect(second.model).toMatchObject({ provider: "faux", id: "faux-2", reasoning: false });
      expect(second.thinkingLevel).toBe("off");
      expect(second.availableModels.map((model) => `${model.provider}/${model.id}`)).toEqual(
        expect.arrayContaining(["faux/faux-1", "faux/faux-2"]),
      );
      await expect(busy.request("setModel", { provider: "faux", modelId: "nope" })).rejects.toThrow(/unknown model faux\/nope/);
      const entries = readCompleteJsonl(second.sessionFile ?? "");
      expect(entries.some((entry) => entry["type"] === "thinking_level_change" && entry["thinkingLevel"] === "high")).toBe(true);
      expect(entries.some((entry) => entry["type"] === "model_change" && entry["modelId"] === "faux-2")).toBe(true);
    });

    it("compacts with a scripted summary", async () => {
      const result = await busy.request("compact", {});
      expect(result.summary).toContain("SUMMARY-TEXT");
      const entries = readCompleteJsonl((await busy.request("snapshot", {})).sessionFile ?? "");
      expect(entries.some((entry) => entry["type"] === "compaction")).toBe(true);
    });

    it("rejects invalid messages on the worker side without crashing", async () => {
      busy.sendRaw({ id: "bad-1", type: "setModel", provider: 5, modelId: "x" });
      busy.sendRaw({ id: "bad-2", type: "launchMissiles" });
      busy.sendRaw("garbage");
      await busyRec.waitFor(
        (m) => m.type === "protocol_error" && m.error.includes("bad-1") && m.error.includes("setModel.provider must be a string"),
      );
      await busyRec.waitFor((m) => m.type === "protocol_error" && m.error.includes('unknown request type "launchMissiles"'));
      await busyRec.waitFor((m) => m.type === "fault" && m.kind === "protocol" && !m.fatal);
      const snapshot = await busy.request("snapshot", {});
      expect(snapshot.model?.id).toBe("faux-2");
      expect(busy.exited).toBeNull();
    });

    it("aborts a streaming run; the aborted reply is persisted", async () => {
      slowRec.clear();
      const run = slow.request("prompt", { text: "tell a long story", awaitCompletion: true });
      await slowRec.waitFor(isTextDelta);
      const aborted = await slow.request("abort", {});
      expect(aborted.isStreaming).toBe(false);
      await run;
      const entries = readCompleteJsonl(aborted.sessionFile ?? "");
      const last = entries.filter((entry) => entry["type"] === "message").at(-1)?.["message"] as { role: string; stopReason: string };
      expect(last).toMatchObject({ role: "assistant", stopReason: "aborted" });
    });

    it("survives SIGKILL mid-run: the client reports the crash, the file is intact and reopens", async () => {
      slowRec.clear();
      const file = (await slow.request("snapshot", {})).sessionFile ?? "";
      const sessionId = (await slow.request("snapshot", {})).sessionId;
      const run = slow.request("prompt", { text: "a second story", awaitCompletion: true });
      await slowRec.waitFor(isTextDelta);
      process.kill(slow.pid ?? 0, "SIGKILL");
      await expect(run).rejects.toBeInstanceOf(WorkerRequestError);
      const exit = await new Promise((resolve) => slow.exit$.subscribe(resolve));
      expect(exit).toEqual({ code: null, signal: "SIGKILL", expected: false });
      await expect(slow.request("snapshot", {})).rejects.toThrow(/exited/);

      const entries = readCompleteJsonl(file);
      expect(entries[0]).toMatchObject({ type: "session", id: sessionId });
      const reopened = spawn(shared);
      const snapshot = await reopened.request("open", { sessionFile: file, options: { agentDir: dirs.agentDir, faux: {} } });
      expect(snapshot).toMatchObject({ sessionId, sessionFile: file, isStreaming: false });
      expect(snapshot.model?.id).toBe("faux-1");
      const again = await reopened.request("prompt", { text: "after the crash", awaitCompletion: true });
      expect(again.completed).toBe(true);
      const after = readCompleteJsonl(file);
      const lastMessage = after.filter((entry) => entry["type"] === "message").at(-1)?.["message"] as { errorMessage?: string };
      // the script is used up: the worker answers with an error message instead of hanging
      expect(lastMessage.errorMessage).toBe("No scripted reply");
    });
  });

  it("rejects invalid messages from a worker without crashing the control plane", async () => {
    const entry = path.join(dirs.root, "bad-worker.mjs");
    fs.writeFileSync(
      entry,
      [
        'process.send({ type: "ready", protocolVersion: 1, pid: process.pid });',
        'process.send({ type: "event" });',
        'process.send("junk");',
        'process.send({ type: "reply", id: "nope", ok: "yes" });',
        'process.send({ type: "heartbeat", seq: 1, at: Date.now(), isStreaming: false });',
        'process.on("message", () => process.exit(0));',
      ].join("\n"),
    );
    const client = ForkedWorkerClient.spawn({ workerEntry: entry });
    clients.push(client);
    const rec = record(client);
    await rec.waitFor((m) => m.type === "heartbeat");
    const errors = rec.all.filter((m) => m.type === "protocol_error").map((m) => (m.type === "protocol_error" ? m.error : ""));
    expect(errors).toEqual([
      "message.event must be an object",
      "message must be an object (got a string)",
      "message.ok must be a boolean (got a string)",
    ]);
    expect(client.exited).toBeNull();
    const exit = await client.dispose({ timeoutMs: 20_000 });
    expect(exit).toMatchObject({ code: 0, expected: true });
  });
});

/**
 * A local OpenAI-compatible server configured in the agent dir's models.json works in a real worker process
 * (no faux provider): the model is listed as available, can be the settings default or be selected with
 * setModel, and a prompt streams the server's reply as events into the session file. auth.json decides the
 * key sent to the server. The server is a tiny node:http chat-completions endpoint streaming SSE.
 */
import * as fs from "node:fs";
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RuntimeSnapshot } from "../runtime-protocol/runtime-protocol.ts";
import {
  createRuntimeTestDirs,
  isEvent,
  readCompleteJsonl,
  record,
  type RuntimeTestDirs,
  streamedReplies,
} from "../runtime-client/runtime-test-support.ts";
import { ForkedWorkerClient } from "../runtime-client/worker-client.ts";

interface ReceivedRequest {
  method: string;
  url: string;
  authorization: string | null;
  body: Record<string, unknown>;
}

interface LocalChatServer {
  baseUrl: string;
  received: ReceivedRequest[];
  close(): Promise<void>;
}

const REPLY_CHUNKS = ["Hello ", "from the ", "local ", "server."];

/** A minimal OpenAI chat-completions endpoint: every POST .../chat/completions streams REPLY_CHUNKS as SSE. */
async function startLocalChatServer(): Promise<LocalChatServer> {
  const received: ReceivedRequest[] = [];
  const server = http.createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on("data", (part: Buffer) => parts.push(part));
    req.on("end", () => {
      let body: Record<string, unknown>;
      try {
        body = JSON.parse(Buffer.concat(parts).toString("utf8")) as Record<string, unknown>;
      } catch {
        body = {};
      }
      received.push({ method: req.method ?? "", url: req.url ?? "", authorization: req.headers.authorization ?? null, body });
      if (req.method !== "POST" || !(req.url ?? "").endsWith("/chat/completions")) {
        res.writeHead(404, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { message: "not found" } }));
        return;
      }
      const model = typeof body["model"] === "string" ? body["model"] : "unknown";
      const chunk = (choice: Record<string, unknown> | null, extra: Record<string, unknown> = {}): string =>
        `data: ${JSON.stringify({
          id: "chatcmpl-local-1",
          object: "chat.completion.chunk",
          created: 1,
          model,
          choices: choice ? [{ index: 0, ...choice }] : [],
          ...extra,
        })}\n\n`;
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
      res.write(chunk({ delta: { role: "assistant", content: "" }, finish_reason: null }));
      for (const text of REPLY_CHUNKS) res.write(chunk({ delta: { content: text }, finish_reason: null }));
      res.write(chunk({ delta: {}, finish_reason: "stop" }));
      res.write(chunk(null, { usage: { prompt_tokens: 12, completion_tokens: 4, total_tokens: 16 } }));
      res.end("data: [DONE]\n\n");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

let localServer: LocalChatServer;
const openDirs: RuntimeTestDirs[] = [];
const clients: ForkedWorkerClient[] = [];

beforeAll(async () => {
  localServer = await startLocalChatServer();
});
afterAll(async () => {
  await Promise.all(clients.map((client) => client.dispose({ timeoutMs: 3000 })));
  await localServer.close();
  for (const dirs of openDirs) dirs.cleanup();
});

/** A temp agent dir whose models.json declares provider "local" (two models) pointing at the test server. */
function agentDirWithLocalModel(settings: Record<string, unknown>, auth?: Record<string, unknown>): RuntimeTestDirs {
  const dirs = createRuntimeTestDirs("leyline-models-json-");
  openDirs.push(dirs);
  const settingsFile = path.join(dirs.agentDir, "settings.json");
  const base = JSON.parse(fs.readFileSync(settingsFile, "utf8")) as Record<string, unknown>;
  fs.writeFileSync(settingsFile, JSON.stringify({ ...base, ...settings }));
  fs.writeFileSync(
    path.join(dirs.agentDir, "models.json"),
    JSON.stringify({
      providers: {
        local: {
          baseUrl: localServer.baseUrl,
          api: "openai-completions",
          apiKey: "key-from-models-json",
          compat: { supportsStore: false, maxTokensField: "max_tokens", supportsDeveloperRole: false, supportsReasoningEffort: false },
          models: [
            { id: "local-coder", name: "Local Coder", contextWindow: 32000, maxTokens: 2048 },
            { id: "local-other", name: "Local Other" },
          ],
        },
      },
    }),
  );
  if (auth) fs.writeFileSync(path.join(dirs.agentDir, "auth.json"), JSON.stringify(auth), { mode: 0o600 });
  return dirs;
}

function spawnWorker(dirs: RuntimeTestDirs): ForkedWorkerClient {
  // No faux script and no provider API keys from the outer environment: only the agent dir decides.
  const client = ForkedWorkerClient.spawn({
    fauxScript: null,
    env: { PATH: process.env["PATH"] ?? "", HOME: dirs.root, PI_CODING_AGENT_DIR: dirs.agentDir, PI_OFFLINE: "1" },
  });
  clients.push(client);
  return client;
}

function requestsContaining(text: string): ReceivedRequest[] {
  return localServer.received.filter((request) => JSON.stringify(request.body["messages"] ?? null).includes(text));
}

async function promptAndCheck(client: ForkedWorkerClient, prompt: string): Promise<RuntimeSnapshot> {
  const rec = record(client);
  const result = await client.request("prompt", { text: prompt, awaitCompletion: true });
  expect(result).toEqual({ accepted: true, completed: true });
  await rec.waitFor(isEvent("agent_end"));
  expect(rec.events("stream_delta").length).toBeGreaterThan(0);
  expect(streamedReplies(rec.events())).toEqual([REPLY_CHUNKS.join("")]);
  const ends = rec
    .events("message_end")
    .map((event) => event["message"] as { role: string; provider?: string; model?: string; stopReason?: string });
  expect(ends.find((message) => message.role === "assistant")).toMatchObject({
    provider: "local",
    model: "local-coder",
    stopReason: "stop",
  });

  const snapshot = await client.request("snapshot", {});
  const lines = readCompleteJsonl(snapshot.sessionFile ?? "");
  const messages = lines.filter((line) => line["type"] === "message").map((line) => line["message"] as Record<string, unknown>);
  // pi 1.x stores the system prompt and tools it sends, before the first user message of a session.
  expect(messages.map((message) => message["role"])).toEqual(["system", "user", "assistant"]);
  expect(JSON.stringify(messages[1]?.["content"])).toContain(prompt);
  expect(messages[2]).toMatchObject({ provider: "local", model: "local-coder", content: [{ type: "text", text: REPLY_CHUNKS.join("") }] });

  const seen = requestsContaining(prompt);
  expect(seen).toHaveLength(1);
  expect(seen[0]).toMatchObject({ method: "POST", url: "/v1/chat/completions" });
  expect(seen[0]?.body).toMatchObject({ model: "local-coder", stream: true });
  // compat flags from models.json: max_tokens instead of max_completion_tokens, no `store`
  expect(seen[0]?.body).not.toHaveProperty("store");
  expect(seen[0]?.body).not.toHaveProperty("max_completion_tokens");
  return snapshot;
}

describe("models.json with a local OpenAI-compatible server (real worker, no faux)", () => {
  it("uses the local model as the settings default, lists it as available and streams its reply into the file", async () => {
    const dirs = agentDirWithLocalModel({ defaultProvider: "local", defaultModel: "local-coder" });
    const client = spawnWorker(dirs);
    const opened = await client.request("open", { new: { cwd: dirs.cwd }, options: { agentDir: dirs.agentDir, heartbeatMs: 0 } });
    expect(opened.model).toMatchObject({
      provider: "local",
      id: "local-coder",
      name: "Local Coder",
      api: "openai-completions",
      contextWindow: 32000,
    });
    expect(opened.availableModels).toContainEqual(expect.objectContaining({ provider: "local", id: "local-coder" }));
    expect(
      opened.availableModels
        .filter((model) => model.provider === "local")
        .map((model) => model.id)
        .sort(),
    ).toEqual(["local-coder", "local-other"]);
    expect(opened.availableModels.some((model) => model.provider === "faux")).toBe(false);

    await promptAndCheck(client, "default-model prompt 7f3a");
    // without auth.json the models.json apiKey is sent as the bearer token
    expect(requestsContaining("default-model prompt 7f3a")[0]?.authorization).toBe("Bearer key-from-models-json");
  });

  it("switches to another models.json model with setModel, with the key from auth.json", async () => {
    const dirs = agentDirWithLocalModel(
      { defaultProvider: "local", defaultModel: "local-other" },
      { local: { type: "api_key", key: "key-from-auth-json" } },
    );
    const client = spawnWorker(dirs);
    const opened = await client.request("open", { new: { cwd: dirs.cwd }, options: { agentDir: dirs.agentDir, heartbeatMs: 0 } });
    expect(opened.model).toMatchObject({ provider: "local", id: "local-other" });
    expect(opened.availableModels).toContainEqual(expect.objectContaining({ provider: "local", id: "local-coder" }));

    const selected = await client.request("setModel", { provider: "local", modelId: "local-coder" });
    expect(selected.model).toMatchObject({ provider: "local", id: "local-coder" });
    const snapshot = await promptAndCheck(client, "selected-model prompt 91c2");
    expect(snapshot.model).toMatchObject({ provider: "local", id: "local-coder" });
    expect(requestsContaining("selected-model prompt 91c2")[0]?.authorization).toBe("Bearer key-from-auth-json");
    // pi records the model change in the session file
    const lines = readCompleteJsonl(snapshot.sessionFile ?? "");
    const changes = lines
      .filter((line) => line["type"] === "model_change")
      .map((line) => `${String(line["provider"])}/${String(line["modelId"])}`);
    expect(changes).toEqual(["local/local-other", "local/local-coder"]);
  });

  it("rejects setModel for a model that neither the registry nor models.json declares", async () => {
    const dirs = agentDirWithLocalModel({ defaultProvider: "local", defaultModel: "local-coder" });
    const client = spawnWorker(dirs);
    await client.request("open", { new: { cwd: dirs.cwd }, options: { agentDir: dirs.agentDir, heartbeatMs: 0 } });
    await expect(client.request("setModel", { provider: "local", modelId: "not-declared" })).rejects.toThrow(
      "unknown model local/not-declared",
    );
    expect((await client.request("snapshot", {})).model).toMatchObject({ provider: "local", id: "local-coder" });
  });
});

/**
 * The in-process adapter runs the same worker logic and protocol without a child process: extension UI
 * round trips, runtime replacement (fork) with re-subscription and re-binding, research sessions.
 */
import fs from "node:fs";
import path from "node:path";
import type { ExtensionFactory } from "@earendil-works/pi-coding-agent";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeSessionText } from "../../domain/session-decoder.ts";
import { PI_SESSION_FIXTURES_DIR } from "../../test/support/fixtures.ts";
import { FauxScript } from "../runtime-protocol/faux-script.ts";
import { InProcessWorkerClient } from "./in-process-worker-client.ts";
import { agentDirEnv } from "../runtime-host/runtime-host-test-support.ts";
import { createRuntimeTestDirs, isEvent, readCompleteJsonl, record } from "./runtime-test-support.ts";
import type { WorkerNotification } from "./worker-client.ts";

const env = agentDirEnv(() => createRuntimeTestDirs("leyline-inproc-"));
const dirs = env.dirs;
const clients: InProcessWorkerClient[] = [];

beforeAll(env.setUp);
afterAll(async () => {
  await Promise.all(clients.map((client) => client.dispose({ timeoutMs: 3000 })));
  env.tearDown();
});

const askExtension: ExtensionFactory = (pi) => {
  pi.registerCommand("ask", {
    description: "asks the user",
    handler: async (_args, ctx) => {
      const confirmed = await ctx.ui.confirm("Proceed?", "Really proceed?");
      ctx.ui.notify(`confirmed:${confirmed}`, "info");
      const quick = await ctx.ui.confirm("Quick?", "This one expires", { timeout: 30 });
      ctx.ui.setStatus("leyline-test", `quick:${quick}`);
    },
  });
};

function uiRequest(method: string) {
  return (message: WorkerNotification): boolean => message.type === "extension_ui" && message.request.method === method;
}

describe("InProcessWorkerClient", () => {
  it("forwards extension dialogs, resolves them with replies and dismisses expired ones", async () => {
    const client = InProcessWorkerClient.start({ fauxScript: new FauxScript([]), extensionFactories: [askExtension] });
    clients.push(client);
    const rec = record(client);
    const opened = await client.request("open", { new: { cwd: dirs.cwd }, options: { agentDir: dirs.agentDir, faux: {} } });
    expect(opened.slashCommands).toContainEqual({ name: "ask", description: "asks the user", source: "extension" });

    await client.request("prompt", { text: "/ask" });
    const confirm = await rec.waitFor(uiRequest("confirm"));
    if (confirm.type !== "extension_ui" || confirm.request.method !== "confirm") throw new Error("expected a confirm");
    expect(confirm.request).toMatchObject({ title: "Proceed?", message: "Really proceed?", timeoutMs: null });
    expect(await client.request("extensionUiReply", { requestId: confirm.request.requestId, confirmed: true })).toEqual({
      delivered: true,
    });
    await rec.waitFor((m) => m.type === "extension_ui" && m.request.method === "notify" && m.request.message === "confirmed:true");
    await rec.waitFor((m) => m.type === "extension_ui" && m.request.method === "dismiss" && m.request.reason === "timeout");
    await rec.waitFor((m) => m.type === "extension_ui" && m.request.method === "setStatus" && m.request.text === "quick:false");
    // a second reply to the same request is not delivered
    expect(await client.request("extensionUiReply", { requestId: confirm.request.requestId, confirmed: false })).toEqual({
      delivered: false,
    });
  });

  it("forks into a new file and keeps forwarding events and extension UI for the replacement session", async () => {
    const script = new FauxScript([
      { match: "first question", text: "first answer" },
      { match: "second question", text: "second answer" },
      { match: "third question", text: "third answer" },
    ]);
    const client = InProcessWorkerClient.start({ fauxScript: script, extensionFactories: [askExtension] });
    clients.push(client);
    const rec = record(client);
    await client.request("open", { new: { cwd: dirs.cwd }, options: { agentDir: dirs.agentDir, faux: {} } });
    await client.request("prompt", { text: "first question", awaitCompletion: true });
    await client.request("prompt", { text: "second question", awaitCompletion: true });
    const named = await client.request("setSessionName", { name: "Original" });
    expect(named.sessionName).toBe("Original");
    const original = named.sessionFile ?? "";
    const second = readCompleteJsonl(original).find(
      (entry) => entry["type"] === "message" && JSON.stringify(entry["message"]).includes("second question"),
    );
    const forked = await client.request("fork", { entryId: String(second?.["id"]) });
    expect(forked.cancelled).toBe(false);
    expect(forked.selectedText).toBe("second question");
    expect(forked.snapshot.sessionFile).not.toBe(original);
    expect(forked.snapshot.sessionId).not.toBe(named.sessionId);

    rec.clear();
    await client.request("prompt", { text: "third question", awaitCompletion: true });
    await rec.waitFor(isEvent("agent_end"));
    const file = (await client.request("snapshot", {})).sessionFile ?? "";
    const lines = readCompleteJsonl(file);
    expect(lines[0]).toMatchObject({ type: "session", parentSession: original });
    const texts = lines.filter((line) => line["type"] === "message").map((line) => JSON.stringify(line["message"]));
    expect(texts.some((text) => text.includes("first answer"))).toBe(true);
    expect(texts.some((text) => text.includes("second question"))).toBe(false);
    expect(texts.some((text) => text.includes("third answer"))).toBe(true);

    // the replacement session is bound to the same UI bridge
    await client.request("prompt", { text: "/ask" });
    const confirm = await rec.waitFor(uiRequest("confirm"));
    if (confirm.type === "extension_ui" && confirm.request.method === "confirm") {
      await client.request("extensionUiReply", { requestId: confirm.request.requestId, cancelled: true });
    }
    await rec.waitFor((m) => m.type === "extension_ui" && m.request.method === "notify" && m.request.message === "confirmed:false");
  });

  it("writes the research marker for a new research session", async () => {
    const client = InProcessWorkerClient.start({ fauxScript: new FauxScript([{ text: "researching" }]) });
    clients.push(client);
    const opened = await client.request("open", {
      new: { cwd: dirs.cwd, kind: "research" },
      options: { agentDir: dirs.agentDir, faux: {} },
    });
    expect(opened.kind).toBe("research");
    await client.request("prompt", { text: "start", awaitCompletion: true });
    const lines = readCompleteJsonl((await client.request("snapshot", {})).sessionFile ?? "");
    expect(lines.find((line) => line["type"] === "custom")).toMatchObject({
      customType: "leyline-research",
      data: { version: 1, kind: "session", sessionId: opened.sessionId },
    });
  });

  it("switches to a version-1 file through Leyline's upgrade: trash copy, the read side's ids, the notice", async () => {
    const client = InProcessWorkerClient.start({ fauxScript: new FauxScript([]) });
    clients.push(client);
    await client.request("open", { new: { cwd: dirs.cwd }, options: { agentDir: dirs.agentDir, faux: {} } });
    // A v1 fixture moved to this project (its own cwd does not exist here).
    const original = fs.readFileSync(path.join(PI_SESSION_FIXTURES_DIR, "v1-before-compaction.jsonl"), "utf8");
    const [headerLine = "", ...rest] = original.split("\n");
    const header = { ...(JSON.parse(headerLine) as Record<string, unknown>), cwd: dirs.cwd };
    const file = path.join(dirs.root, "v1-switch.jsonl");
    fs.writeFileSync(file, [JSON.stringify(header), ...rest].join("\n"));
    const before = fs.readFileSync(file);
    const shownIds = decodeSessionText(before.toString("utf8")).records.flatMap((r) => (r.kind === "entry" ? [r.entry.id] : []));

    const switched = await client.request("switchSession", { sessionFile: file });
    expect(switched.cancelled).toBe(false);
    const ids = readCompleteJsonl(file)
      .slice(1)
      .map((line) => line["id"]);
    expect(ids).toEqual(shownIds);
    expect(readCompleteJsonl(file)[0]).toMatchObject({ type: "session", version: 3 });
    const trash = path.join(dirs.agentDir, "leyline-trash");
    const copies = fs.readdirSync(trash).filter((name) => name.startsWith("v1-switch.v1-"));
    expect(copies).toHaveLength(1);
    expect(fs.readFileSync(path.join(trash, copies[0] ?? "")).equals(before)).toBe(true);
    expect(switched.snapshot.notices).toContainEqual(expect.objectContaining({ kind: "file-upgraded", fromVersion: 1 }));
  });

  it("rejects requests before open and a second open, and refuses a file that is not a pi session", async () => {
    const client = InProcessWorkerClient.start({});
    clients.push(client);
    await expect(client.request("snapshot", {})).rejects.toThrow("no session is open (send open first)");
    const notSession = `${dirs.root}/not-a-session.jsonl`;
    (await import("node:fs")).writeFileSync(notSession, '{"hello":1}\n');
    await expect(client.request("open", { sessionFile: notSession, options: { agentDir: dirs.agentDir } })).rejects.toThrow(
      /not a pi session header/,
    );
    expect((await import("node:fs")).readFileSync(notSession, "utf8")).toBe('{"hello":1}\n');
    await client.request("open", { new: { cwd: dirs.cwd }, options: { agentDir: dirs.agentDir } });
    await expect(client.request("open", { new: { cwd: dirs.cwd } })).rejects.toThrow("a session is already open in this worker");
    const exit = await client.dispose();
    expect(exit).toEqual({ code: 0, signal: null, expected: true });
  });
});

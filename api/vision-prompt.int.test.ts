/**
 * The vision path end to end with the real pi SDK (in-process workers), the scripted faux provider (faux-1
 * takes images, faux-2 does not), the bundled vision extension and a listening app (LEYLINE_API_URL):
 * - an image to an image-capable model reaches it as an image; nothing is saved;
 * - an image to faux-2 without a usable vision model answers 500 (none, unknown, no image input) and reaches
 *   nothing; a queued task keeps its item and holds the queue with the error; an edited prompt answers 500;
 * - with a vision model, the prompt is accepted at once, the attachment is saved in Leyline's data dir, the
 *   parent model gets the path and the vision_agent instruction instead of the image (the session file keeps
 *   the image), its vision_agent call runs the vision agent through POST /api/pi/vision (a child with the
 *   image, no tools, the vision model) and the answer comes back as the tool result;
 * - POST /api/pi/vision directly: an answer, and 500 for a model without images or an unknown one;
 * - a fork copies the session's vision override.
 * A probe extension records what each model call saw (after every context handler) and the active tools.
 */
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type { ExtensionFactory } from "@earendil-works/pi-coding-agent";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { InProcessWorkerClient } from "../adapters/runtime-client/in-process-worker-client.ts";
import { FauxScript, type FauxTurn } from "../adapters/runtime-protocol/faux-script.ts";
import { jsonlLines, recordHost, type HostRecorder } from "../adapters/runtime-host/runtime-host-test-support.ts";
import type { Active } from "../domain/runtime/runtime-types.ts";
import { SUBAGENT_CUSTOM_TYPE } from "../domain/session-summary.ts";
import type { VisionConfig } from "../domain/vision/vision-types.ts";
import type { SubagentResult } from "../adapters/subagents/subagent-runner.ts";
import { call, runtimeApiDirs, runtimeApp, type RuntimeApiDirs } from "./runtime-api.fixture.ts";

/** A 1×1 PNG. */
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
const IMAGE = { type: "image", data: PNG, mimeType: "image/png" };
const PATH_PLACEHOLDER = "{ATTACHMENT_PATH}";
/** A bash tool call that keeps a run going until the test creates `release` in the session's folder. */
const RELEASE_WAIT = "for n in $(seq 1 1200); do [ -f release ] && exit 0; sleep 0.05; done; exit 1";

const TURNS: FauxTurn[] = [
  { match: "DIRECT-LOOK", text: "Direct answer." },
  {
    match: "VISION-LOOK",
    toolCalls: [{ name: "vision_agent", arguments: { path: PATH_PLACEHOLDER, question: "VISION-Q: what colour?" } }],
  },
  { match: "VISION-Q", text: "VISION-ANSWER: a red square." },
  { match: "VISION-LOOK", text: "The picture shows a red square." },
  { match: "DIRECT-VISION-Q", text: "Direct vision answer." },
  { match: "HELLO-FIRST", text: "Hi." },
  { match: "BUSY-RUN", toolCalls: [{ name: "bash", arguments: { command: RELEASE_WAIT } }] },
  { match: "BUSY-RUN", text: "Busy run done." },
];

/** The script, with the attachment path of a tool call taken from the note the parent model read. */
class AttachmentScript extends FauxScript {
  override next(latestUserText: string): FauxTurn | null {
    const turn = super.next(latestUserText);
    const saved = /saved at (\S+) \(image\/png\)/.exec(latestUserText)?.[1];
    if (turn === null || saved === undefined) return turn;
    return JSON.parse(JSON.stringify(turn).replaceAll(PATH_PLACEHOLDER, saved)) as FauxTurn;
  }
}

interface Seen {
  sessionId: string;
  model: string;
  /** The content blocks of the last user message of the call (type, and text for text blocks). */
  lastUser: Array<{ type: string; text?: string }>;
  tools: string[];
}
const seen: Seen[] = [];

const probe: ExtensionFactory = (pi) => {
  pi.on("context_with_system", (event, ctx) => {
    const user = [...event.messages].reverse().find((message) => message.role === "user");
    const content = user !== undefined && "content" in user ? user.content : [];
    const blocks = Array.isArray(content) ? content : [{ type: "text", text: String(content) }];
    seen.push({
      sessionId: ctx.sessionManager.getSessionId(),
      model: ctx.model ? `${ctx.model.provider}/${ctx.model.id}` : "",
      lastUser: blocks.map((block) => (block.type === "text" ? { type: "text", text: block.text } : { type: block.type })),
      tools: pi.getActiveTools(),
    });
    return undefined;
  });
};

let dirs: RuntimeApiDirs;
let app: FastifyInstance;
let recorder: HostRecorder;
let baseUrl = "";
let previousAgentDir: string | undefined;

beforeAll(async () => {
  dirs = runtimeApiDirs("leyline-vision-prompt-");
  previousAgentDir = process.env["PI_CODING_AGENT_DIR"];
  process.env["PI_CODING_AGENT_DIR"] = dirs.agentDir;
  app = await runtimeApp(dirs, {
    host: {
      fauxScript: new AttachmentScript(TURNS),
      createClient: ({ fauxScript }) => InProcessWorkerClient.start({ fauxScript, extensionFactories: [probe] }),
      apiUrl: () => baseUrl,
    },
  });
  recorder = recordHost(app.leyline.host);
  await app.listen({ port: 0, host: "127.0.0.1" });
  const address = app.server.address();
  if (typeof address !== "object" || address === null) throw new Error("not listening");
  baseUrl = `http://127.0.0.1:${address.port}`;
}, 60_000);

afterAll(async () => {
  recorder?.stop();
  await app?.close();
  if (previousAgentDir === undefined) delete process.env["PI_CODING_AGENT_DIR"];
  else process.env["PI_CODING_AGENT_DIR"] = previousAgentDir;
  dirs?.cleanup();
});

const visionDir = (): string => path.join(dirs.dataDir, "vision-attachments");

async function open(model: "faux-1" | "faux-2"): Promise<{ id: string; file: () => string }> {
  const created = await call(app, "POST", "/api/pi/sessions", { cwd: dirs.cwd });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  const id = (created.body["active"] as Active).id;
  if (model === "faux-2") {
    const changed = await call(app, "POST", `/api/pi/sessions/${id}/model`, { provider: "faux", id: "faux-2" });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
  }
  return { id, file: () => app.leyline.host.require(id).sessionFile ?? "" };
}

function agentEnds(id: string): number {
  return recorder.runtimeEvents(id).filter((type) => type === "agent_end").length;
}

async function promptAndWait(id: string, body: Record<string, unknown>): Promise<void> {
  const before = agentEnds(id);
  const res = await call(app, "POST", `/api/pi/sessions/${id}/prompt`, body);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  await recorder.until(() => agentEnds(id) > before, `run of ${id} ended`, 60_000);
}

function userEntries(file: string): Array<{ id: string; content: Array<{ type: string; text?: string; data?: string }> }> {
  return jsonlLines(file)
    .filter((line) => line["type"] === "message" && (line["message"] as { role: string }).role === "user")
    .map((line) => ({
      id: line["id"] as string,
      content: (line["message"] as { content: Array<{ type: string; text?: string; data?: string }> }).content,
    }));
}

async function putVision(body: Record<string, unknown>): Promise<VisionConfig> {
  const res = await call(app, "PUT", "/api/pi/vision/override", { cwd: dirs.cwd, ...body });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as unknown as VisionConfig;
}

describe("prompts with images", () => {
  it("gives an image-capable model the image itself and saves nothing", { timeout: 90_000 }, async () => {
    const session = await open("faux-1");
    await promptAndWait(session.id, { text: "DIRECT-LOOK", images: [IMAGE] });
    const call1 = seen.find((entry) => entry.sessionId === session.id);
    expect(call1?.model).toBe("faux/faux-1");
    expect(call1?.lastUser).toEqual([{ type: "text", text: "DIRECT-LOOK" }, { type: "image" }]);
    expect(fs.existsSync(path.join(visionDir(), session.id))).toBe(false);
    expect(userEntries(session.file())[0]?.content.map((block) => block.type)).toEqual(["text", "image"]);
  });

  it("refuses an image for a model without image input while no usable vision model is set", { timeout: 90_000 }, async () => {
    const session = await open("faux-2");
    const attempt = async (): Promise<string> => {
      const res = await call(app, "POST", `/api/pi/sessions/${session.id}/prompt`, { text: "REFUSED-LOOK", images: [IMAGE] });
      expect(res.status, JSON.stringify(res.body)).toBe(500);
      return res.body["error"] as string;
    };
    expect(await attempt()).toMatch(/No vision model is configured/);
    await putVision({ scope: "global", model: "faux/missing" });
    expect(await attempt()).toMatch(/Vision model faux\/missing is not available/);
    await putVision({ scope: "global", model: "faux/faux-2" });
    expect(await attempt()).toMatch(/Vision model faux\/faux-2 does not support image input/);
    // Nothing reached pi, nothing was saved.
    expect(seen.some((entry) => entry.sessionId === session.id)).toBe(false);
    expect(fs.existsSync(session.file())).toBe(false);
    expect(fs.existsSync(path.join(visionDir(), session.id))).toBe(false);

    // A queued task (sent while a run goes on): when it is sent, it stays and the queue holds with the error.
    const busy = await call(app, "POST", `/api/pi/sessions/${session.id}/prompt`, { text: "BUSY-RUN" });
    expect(busy.status, JSON.stringify(busy.body)).toBe(200);
    const queued = await call(app, "POST", `/api/pi/sessions/${session.id}/prompt`, { text: "QUEUED-LOOK", images: [IMAGE] });
    expect(queued.status, JSON.stringify(queued.body)).toBe(200);
    expect(queued.body["queued"]).toBe(true);
    fs.writeFileSync(path.join(dirs.cwd, "release"), "");
    await recorder.until(() => app.leyline.host.require(session.id).promptQueue.held, "queue held", 30_000);
    const queue = app.leyline.host.require(session.id).promptQueue;
    expect(queue.items.map((item) => item.text)).toEqual(["QUEUED-LOOK"]);
    expect(queue.error).toMatch(/does not support image input/);
    await call(app, "DELETE", "/api/pi/vision/override", { cwd: dirs.cwd, scope: "global" });
  });

  it("routes an image through the vision agent for a model without image input", { timeout: 120_000 }, async () => {
    const session = await open("faux-2");
    // A first exchange so that the session file exists (the session scope keys on it).
    await promptAndWait(session.id, { text: "HELLO-FIRST" });
    const file = session.file();
    await putVision({ scope: "global", model: "faux/faux-2", thinking: "low" });
    const configured = await putVision({ scope: "session", sessionPath: file, model: "faux/faux-1", thinking: "inherit" });
    expect(configured).toMatchObject({ model: "faux/faux-1", modelSource: "session", thinking: "inherit", thinkingSource: "session" });

    await promptAndWait(session.id, { text: "VISION-LOOK at this", images: [IMAGE] });

    // The attachment: Leyline's data dir, named by content, the image's bytes.
    const hash = createHash("sha256").update(PNG).digest("hex").slice(0, 32);
    const attachment = path.join(visionDir(), session.id, `${hash}.png`);
    expect(fs.readFileSync(attachment).equals(Buffer.from(PNG, "base64"))).toBe(true);
    expect(attachment.startsWith(dirs.cwd)).toBe(false);

    // The parent model read the path and the instruction, not the image.
    const parentCalls = seen.filter((entry) => entry.sessionId === session.id && entry.lastUser[0]?.text === "VISION-LOOK at this");
    expect(parentCalls.length).toBe(2);
    for (const parentCall of parentCalls) {
      expect(parentCall.model).toBe("faux/faux-2");
      expect(parentCall.lastUser.map((block) => block.type)).toEqual(["text", "text"]);
      expect(parentCall.lastUser[1]?.text).toContain(attachment);
      expect(parentCall.lastUser[1]?.text).toContain("call the vision_agent tool");
      expect(parentCall.tools).toContain("vision_agent");
    }
    // The session file keeps the image.
    const visionPrompt = userEntries(file).find((entry) => entry.content[0]?.text === "VISION-LOOK at this");
    expect(visionPrompt?.content.map((block) => block.type)).toEqual(["text", "image"]);
    expect(visionPrompt?.content[1]?.data).toBe(PNG);

    // The vision agent's answer is the tool result; its child had the image, the vision model and no tools.
    const results = jsonlLines(file).filter((line) => (line["message"] as { role?: string } | undefined)?.role === "toolResult");
    const result = results.at(-1)?.["message"] as {
      toolName: string;
      isError: boolean;
      content: Array<{ text?: string }>;
      details: { childSession: { path: string } };
    };
    expect(result.toolName).toBe("vision_agent");
    expect(result.isError).toBe(false);
    expect(result.content[0]?.text).toBe("VISION-ANSWER: a red square.");
    const child = jsonlLines(result.details.childSession.path);
    expect(child[0]).toMatchObject({ type: "session", parentSession: file });
    expect(child.find((line) => line["customType"] === SUBAGENT_CUSTOM_TYPE)?.["data"]).toMatchObject({
      agent: "vision",
      parentSessionId: session.id,
    });
    const childCall = seen.find((entry) => entry.lastUser[0]?.text === "VISION-Q: what colour?");
    expect(childCall?.model).toBe("faux/faux-1");
    expect(childCall?.lastUser.map((block) => block.type)).toEqual(["text", "image"]);
    expect(childCall?.tools).toEqual([]);
    const last = jsonlLines(file)
      .filter((line) => (line["message"] as { role?: string } | undefined)?.role === "assistant")
      .at(-1);
    expect(JSON.stringify(last)).toContain("The picture shows a red square.");

    // An edited prompt with images goes through the same preparation: 500 without a usable vision model.
    await call(app, "DELETE", "/api/pi/vision/override", { cwd: dirs.cwd, sessionPath: file, scope: "session" });
    const leafBefore = (await call(app, "GET", `/api/pi/sessions/${session.id}/tree`)).body["leafId"];
    const edited = await call(app, "POST", `/api/pi/sessions/${session.id}/edit-prompt`, {
      entryId: visionPrompt?.id,
      text: "EDITED-LOOK",
      images: [IMAGE],
    });
    expect(edited.status, JSON.stringify(edited.body)).toBe(500);
    expect(edited.body["error"]).toMatch(/does not support image input/);
    // The refusal came before the tree moved: the session is still on the branch it was on.
    expect((await call(app, "GET", `/api/pi/sessions/${session.id}/tree`)).body["leafId"]).toBe(leafBefore);

    // A fork copies the session's vision override.
    await putVision({ scope: "session", sessionPath: file, model: "faux/faux-1", thinking: "high" });
    const forked = await call(app, "POST", `/api/pi/sessions/${session.id}/fork`, { entryId: visionPrompt?.id });
    expect(forked.status, JSON.stringify(forked.body)).toBe(200);
    const forkFile = app.leyline.host.require((forked.body["active"] as Active).id).sessionFile ?? "";
    expect(forkFile).not.toBe(file);
    const forkConfig = await call(
      app,
      "GET",
      `/api/pi/vision/config?cwd=${encodeURIComponent(dirs.cwd)}&sessionPath=${encodeURIComponent(forkFile)}`,
    );
    expect((forkConfig.body as unknown as VisionConfig).overrides.session).toEqual({ model: "faux/faux-1", thinking: "high" });
    await call(app, "DELETE", "/api/pi/vision/override", { cwd: dirs.cwd, scope: "global" });
  });
});

describe("POST /api/pi/vision", () => {
  it("runs the vision agent on an image and answers like the subagent route", { timeout: 90_000 }, async () => {
    const res = await call(app, "POST", "/api/pi/vision", {
      cwd: dirs.cwd,
      question: "DIRECT-VISION-Q",
      image: IMAGE,
      model: "faux/faux-1",
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const result = res.body as unknown as SubagentResult;
    expect(result.messages.at(-1)).toEqual({ role: "assistant", content: "Direct vision answer." });
    expect(result.model).toBe("faux/faux-1");
    expect(fs.existsSync(result.childSession.path)).toBe(true);
  });

  it("answers 500 for a model without image input and for an unknown model", { timeout: 90_000 }, async () => {
    const blind = await call(app, "POST", "/api/pi/vision", { cwd: dirs.cwd, image: IMAGE, model: "faux/faux-2" });
    expect(blind.status).toBe(500);
    expect(blind.body["error"]).toMatch(/does not support image input/);
    const unknown = await call(app, "POST", "/api/pi/vision", { cwd: dirs.cwd, image: IMAGE, model: { provider: "faux", id: "nope" } });
    expect(unknown.status).toBe(500);
    expect(unknown.body["error"]).toMatch(/nope/);
  });
});

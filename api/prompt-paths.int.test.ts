/**
 * Prompt paths over HTTP with a real RuntimeHost (in-process workers): prompts with images (saved in the
 * session file, MIME and empty-text rules), `streamingBehavior: "steer"` while busy (reaches pi in the running
 * turn, never enters the editable queue) and while idle (a normal run), and the queue actions hold, remove and
 * steer on pending tasks (spec "Prompt" and "Editable prompt queue").
 */
import type { FastifyInstance } from "fastify";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { jsonlLines, messageTexts, recordHost } from "../adapters/runtime-host/runtime-host-test-support.ts";
import type { RuntimeHandle } from "../adapters/runtime-host/runtime-handle.ts";
import type { Active } from "../domain/runtime/runtime-types.ts";
import { call, handleOf, runtimeApiSuite } from "./runtime-api.fixture.ts";

/** A valid 1×1 PNG. */
const PNG_DATA = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";
const PNG = { type: "image", data: PNG_DATA, mimeType: "image/png" };
const WAIT_MS = 60_000;

const suite = runtimeApiSuite("leyline-prompt-paths-");
const { dirs, makeApp } = suite;

beforeAll(suite.setUp);
afterEach(suite.closeApps);
afterAll(suite.tearDown);

function fileTexts(handle: RuntimeHandle): string[] {
  return handle.sessionFile === null ? [] : messageTexts(handle.sessionFile);
}

/** Resolves once the runtime is idle with an empty editable queue and `done(texts)` holds for its file. */
async function settled(app: FastifyInstance, id: string, done: (texts: string[]) => boolean, label: string): Promise<void> {
  const rec = recordHost(app.leyline.host);
  const handle = handleOf(app, id);
  try {
    await rec.until(() => !handle.busy() && handle.promptQueue.items.length === 0 && done(fileTexts(handle)), label, WAIT_MS);
  } finally {
    rec.stop();
  }
}

async function create(app: FastifyInstance): Promise<string> {
  const res = await call(app, "POST", "/api/pi/sessions", { cwd: dirs.cwd });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return (res.body["active"] as Active).id;
}

function queueOf(body: Record<string, unknown>) {
  const queue = (body["active"] as Active).state.promptQueue;
  if (!queue) throw new Error("no promptQueue in the response");
  return queue;
}

/** Editable tasks in a response snapshot (promptQueue is absent until the queue first changes). */
function editableTexts(body: Record<string, unknown>): string[] {
  return ((body["active"] as Active).state.promptQueue?.items ?? []).map((item) => item.text);
}

describe("prompt paths (in-process workers)", () => {
  it("a prompt with a PNG is saved with its image block; unsupported MIME and empty text without images answer 400", async () => {
    const app = await makeApp({
      turns: [{ match: "describe the picture", text: "A single pixel." }, { text: "An image without words." }],
    });
    const id = await create(app);
    const url = `/api/pi/sessions/${id}/prompt`;

    const prompted = await call(app, "POST", url, { text: "describe the picture", images: [PNG] });
    expect(prompted.status, JSON.stringify(prompted.body)).toBe(200);
    expect(prompted.body).toMatchObject({ ok: true, queued: false });
    await settled(app, id, (texts) => texts.length === 2, "image prompt answered");
    const file = handleOf(app, id).sessionFile ?? "";
    expect(messageTexts(file)).toEqual(["user:describe the picture", "assistant:A single pixel."]);
    const userMessages = () =>
      jsonlLines(file)
        .filter((line) => line["type"] === "message")
        .map((line) => line["message"] as { role: string; content: unknown })
        .filter((message) => message.role === "user");
    expect(userMessages()[0]?.content).toEqual(expect.arrayContaining([{ type: "image", data: PNG_DATA, mimeType: "image/png" }]));

    // rejected bodies change nothing
    const bmp = await call(app, "POST", url, { text: "a bitmap", images: [{ type: "image", data: PNG_DATA, mimeType: "image/bmp" }] });
    expect(bmp.status).toBe(400);
    expect(bmp.body["error"]).toMatch(/Unsupported image type: image\/bmp/);
    const empty = await call(app, "POST", url, { text: "" });
    expect(empty.status).toBe(400);
    expect(empty.body["error"]).toMatch(/empty/);
    expect((await call(app, "POST", url, { text: "   ", images: [] })).status).toBe(400);
    expect((await call(app, "POST", url, { text: "x", images: [{ type: "image", data: PNG_DATA }] })).status).toBe(400);
    expect(handleOf(app, id).promptQueue.items).toEqual([]);
    expect(messageTexts(file)).toHaveLength(2);

    // empty text with an image is a valid prompt
    const imageOnly = await call(app, "POST", url, { text: "", images: [PNG] });
    expect(imageOnly.status, JSON.stringify(imageOnly.body)).toBe(200);
    expect(imageOnly.body).toMatchObject({ ok: true, queued: false });
    await settled(app, id, (texts) => texts.length === 4, "image-only prompt answered");
    expect(messageTexts(file).slice(2)).toEqual(["user:", "assistant:An image without words."]);
    expect(userMessages()[1]?.content).toEqual(expect.arrayContaining([{ type: "image", data: PNG_DATA, mimeType: "image/png" }]));
  });

  it("steer while busy reaches pi in the running turn without entering the editable queue; steer while idle starts a run", async () => {
    const app = await makeApp({
      turns: [
        { match: "run the slow tool", toolCalls: [{ name: "bash", arguments: { command: "sleep 3" } }] },
        { match: "change course", text: "Steered answer." },
        // only used if the steer arrives after the tool result was answered (pi then delivers it after this turn)
        { match: "run the slow tool", text: "Tool finished." },
        { match: "idle steer", text: "Idle steer answered." },
      ],
    });
    const id = await create(app);
    const handle = handleOf(app, id);
    const rec = recordHost(app.leyline.host);
    try {
      expect((await call(app, "POST", `/api/pi/sessions/${id}/prompt`, { text: "run the slow tool" })).body).toMatchObject({
        queued: false,
      });
      await rec.until(() => rec.runtimeEvents(id).includes("tool_execution_start"), "bash started", WAIT_MS);
      expect(handle.busy()).toBe(true);

      const steered = await call(app, "POST", `/api/pi/sessions/${id}/prompt`, { text: "change course", streamingBehavior: "steer" });
      expect(steered.status, JSON.stringify(steered.body)).toBe(200);
      expect(steered.body).toMatchObject({ ok: true, queued: true });
      expect(editableTexts(steered.body)).toEqual([]);
      expect((steered.body["active"] as Active).state.queuedMessages.steering).toEqual(["change course"]);
      expect(handle.promptQueue.items).toEqual([]);

      await settled(app, id, (texts) => texts.includes("assistant:Steered answer."), "steered run ended");
      const texts = fileTexts(handle);
      expect(texts[0]).toBe("user:run the slow tool");
      expect(texts).toContain("user:change course");
      expect(texts.indexOf("user:change course")).toBeLessThan(texts.indexOf("assistant:Steered answer."));
      // one run: the steer did not start a second one
      expect(rec.runtimeEvents(id).filter((type) => type === "agent_start")).toHaveLength(1);
      expect(rec.runtimeEvents(id).filter((type) => type === "agent_end")).toHaveLength(1);

      // idle: steer is an ordinary prompt that starts a new run
      const idle = await call(app, "POST", `/api/pi/sessions/${id}/prompt`, { text: "idle steer", streamingBehavior: "steer" });
      expect(idle.status, JSON.stringify(idle.body)).toBe(200);
      expect(idle.body).toMatchObject({ ok: true, queued: false });
      expect(editableTexts(idle.body)).toEqual([]);
      await settled(app, id, (all) => all.includes("assistant:Idle steer answered."), "idle steer answered");
      expect(fileTexts(handle).slice(-2)).toEqual(["user:idle steer", "assistant:Idle steer answered."]);
      expect(rec.runtimeEvents(id).filter((type) => type === "agent_start")).toHaveLength(2);
    } finally {
      rec.stop();
    }
  });

  it("hold then remove empties the queue and clears the hold; steer on a held queue is 400; a steered task reaches the running turn", async () => {
    const app = await makeApp({
      turns: [
        { match: "long run", toolCalls: [{ name: "bash", arguments: { command: "sleep 4" } }] },
        { match: "task D", text: "D answered." },
        // only used if the steered task arrives after the tool result was answered
        { match: "long run", text: "slow ".repeat(40) },
      ],
      host: { faux: { tokensPerSecond: 40 } },
    });
    const id = await create(app);
    const handle = handleOf(app, id);
    const queueUrl = `/api/pi/sessions/${id}/queue`;
    const rec = recordHost(app.leyline.host);
    try {
      expect((await call(app, "POST", `/api/pi/sessions/${id}/prompt`, { text: "long run" })).body).toMatchObject({ queued: false });
      await rec.until(() => rec.runtimeEvents(id).includes("tool_execution_start"), "bash started", WAIT_MS);

      for (const text of ["task A", "task B", "task C"]) {
        const queued = await call(app, "POST", `/api/pi/sessions/${id}/prompt`, { text });
        expect(queued.body).toMatchObject({ ok: true, queued: true });
      }
      const [idA, idB, idC] = handle.promptQueue.items.map((item) => item.id);
      expect(handle.promptQueue.items.map((item) => item.text)).toEqual(["task A", "task B", "task C"]);

      const held = await call(app, "POST", queueUrl, { action: "hold", revision: handle.promptQueue.revision });
      expect(held.status, JSON.stringify(held.body)).toBe(200);
      expect(queueOf(held.body)).toMatchObject({ held: true });

      const removedA = await call(app, "POST", queueUrl, { action: "remove", revision: queueOf(held.body).revision, id: idA });
      expect(removedA.status, JSON.stringify(removedA.body)).toBe(200);
      expect(queueOf(removedA.body)).toMatchObject({ held: true });
      expect(queueOf(removedA.body).items.map((item) => item.id)).toEqual([idB, idC]);

      const heldSteer = await call(app, "POST", queueUrl, { action: "steer", revision: queueOf(removedA.body).revision, id: idB });
      expect(heldSteer.status).toBe(400);
      expect(heldSteer.body["error"]).toMatch(/Resume/);
      expect(handle.promptQueue.items.map((item) => item.id)).toEqual([idB, idC]);

      const removedB = await call(app, "POST", queueUrl, { action: "remove", revision: handle.promptQueue.revision, id: idB });
      expect(queueOf(removedB.body)).toMatchObject({ held: true });
      expect(queueOf(removedB.body).items.map((item) => item.id)).toEqual([idC]);
      const removedC = await call(app, "POST", queueUrl, { action: "remove", revision: queueOf(removedB.body).revision, id: idC });
      expect(removedC.status, JSON.stringify(removedC.body)).toBe(200);
      expect(queueOf(removedC.body)).toMatchObject({ held: false, items: [] });
      expect((await call(app, "POST", queueUrl, { action: "remove", revision: queueOf(removedC.body).revision, id: idC })).status).toBe(
        400,
      );

      // a task queued on the unheld queue, then steered: it leaves the editable queue and joins the running turn
      expect(handle.busy()).toBe(true);
      const queuedD = await call(app, "POST", `/api/pi/sessions/${id}/prompt`, { text: "task D" });
      expect(queuedD.body).toMatchObject({ ok: true, queued: true });
      const [itemD] = queueOf(queuedD.body).items;
      expect(itemD?.text).toBe("task D");
      const steerD = await call(app, "POST", queueUrl, { action: "steer", revision: handle.promptQueue.revision, id: itemD?.id });
      expect(steerD.status, JSON.stringify(steerD.body)).toBe(200);
      expect(queueOf(steerD.body)).toMatchObject({ error: "", items: [] });

      await settled(app, id, (texts) => texts.includes("assistant:D answered."), "steered task answered");
      const users = fileTexts(handle).filter((text) => text.startsWith("user:"));
      expect(users).toEqual(["user:long run", "user:task D"]);
      expect(rec.runtimeEvents(id).filter((type) => type === "agent_start")).toHaveLength(1);
    } finally {
      rec.stop();
    }
  });
});

/**
 * Body limits with a real RuntimeHost (in-process workers): a prompt carrying a real 900 KiB PNG (over
 * Fastify's default 1 MiB once base64-encoded) is accepted and reaches pi (the image is in the session file);
 * queue, edit-prompt and subagent bodies get the same limit; a body over `PROMPT_BODY_LIMIT_BYTES` and a large
 * body on any other route answer 413 with the error envelope.
 */
import fs from "node:fs";
import zlib from "node:zlib";
import type { FastifyInstance } from "fastify";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { jsonlLines, messageTexts, recordHost } from "../adapters/runtime-host/runtime-host-test-support.ts";
import type { Active } from "../domain/runtime/runtime-types.ts";
import { PROMPT_BODY_LIMIT_BYTES } from "./body-limits.ts";
import { call, runtimeApiSuite } from "./runtime-api.fixture.ts";

const suite = runtimeApiSuite("leyline-body-limits-");
const { dirs, makeApp } = suite;

beforeAll(suite.setUp);
afterEach(suite.closeApps);
afterAll(suite.tearDown);

/** A PNG chunk: length, type, data, CRC-32 over type and data. */
function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, "ascii"), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(zlib.crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** A real RGB PNG of `side`×`side` pixels of noise (deterministic; noise does not compress). */
function noisePng(side: number): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(side, 0);
  header.writeUInt32BE(side, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8 bits, RGB, deflate, no filter method, no interlace
  const raw = Buffer.alloc(side * (1 + side * 3));
  let seed = 0x2545f491;
  for (let row = 0; row < side; row++) {
    const start = row * (1 + side * 3);
    raw[start] = 0; // filter: none
    for (let i = 1; i <= side * 3; i++) {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      raw[start + i] = seed >>> 24;
    }
  }
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return Buffer.concat([signature, chunk("IHDR", header), chunk("IDAT", zlib.deflateSync(raw)), chunk("IEND", Buffer.alloc(0))]);
}

async function post(app: FastifyInstance, url: string, payload: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await app.inject({ method: "POST", url, headers: { "content-type": "application/json" }, payload });
  return { status: res.statusCode, body: res.json<Record<string, unknown>>() };
}

describe("body limits", () => {
  it("a 900 KiB PNG prompt is accepted and reaches pi; over the limit is 413 with the envelope", async () => {
    const app = await makeApp({ turns: [{ match: "describe", text: "a noisy square" }] });
    const png = noisePng(554);
    expect(png.length).toBeGreaterThan(900 * 1024);
    expect(png.length).toBeLessThan(920 * 1024);
    const data = png.toString("base64");
    const body = JSON.stringify({ text: "describe this image", images: [{ type: "image", data, mimeType: "image/png" }] });
    expect(Buffer.byteLength(body)).toBeGreaterThan(1024 * 1024); // over Fastify's default

    const created = await call(app, "POST", "/api/pi/sessions", { cwd: dirs.cwd });
    const { id } = created.body["active"] as Active;
    const prompted = await post(app, `/api/pi/sessions/${id}/prompt`, body);
    expect(prompted.status, JSON.stringify(prompted.body).slice(0, 300)).toBe(200);
    const handle = app.leyline.host.get(id);
    if (!handle) throw new Error("not open");
    const rec = recordHost(app.leyline.host);
    await rec.until(
      () =>
        !handle.busy() && handle.sessionFile !== null && fs.existsSync(handle.sessionFile) && messageTexts(handle.sessionFile).length === 2,
      "answered",
    );
    rec.stop();
    const user = jsonlLines(handle.sessionFile ?? "").find(
      (line) => line["type"] === "message" && (line["message"] as { role: string }).role === "user",
    );
    const content = (user?.["message"] as { content: Array<{ type: string; data?: string; mimeType?: string }> }).content;
    expect(content.find((part) => part.type === "image")).toEqual({ type: "image", data, mimeType: "image/png" });

    // over the limit: 413 with the envelope, on the scoped and the legacy route; the server keeps serving
    const tooLarge = JSON.stringify({ text: "x".repeat(PROMPT_BODY_LIMIT_BYTES) });
    for (const url of [`/api/pi/sessions/${id}/prompt`, "/api/pi/prompt"]) {
      const res = await post(app, url, tooLarge);
      expect(res.status, url).toBe(413);
      expect(Object.keys(res.body)).toEqual(["error"]);
    }
    expect((await call(app, "GET", "/api/health")).status).toBe(200);
  });

  it("queue, edit-prompt and subagent take the prompt limit; other routes keep 1 MiB", async () => {
    const app = await makeApp({ turns: [] });
    const created = await call(app, "POST", "/api/pi/sessions", { cwd: dirs.cwd });
    const { id } = created.body["active"] as Active;
    const big = "x".repeat(2 * 1024 * 1024);
    // past the body limit, each answers its own validation error
    expect((await post(app, `/api/pi/sessions/${id}/queue`, JSON.stringify({ action: "nope", filler: big }))).status).toBe(400);
    expect(await post(app, `/api/pi/sessions/${id}/edit-prompt`, JSON.stringify({ entryId: "no-such-entry", text: big }))).toEqual({
      status: 404,
      body: { error: "Entry no-such-entry not found" },
    });
    expect(await post(app, "/api/pi/subagent", JSON.stringify({ task: big }))).toEqual({
      status: 400,
      body: { error: "cwd must be a non-empty string" },
    });
    for (const url of [`/api/pi/sessions/${id}/thinking`, `/api/pi/sessions/${id}/model`, "/api/pi/sessions"]) {
      const res = await post(app, url, JSON.stringify({ filler: big }));
      expect(res.status, url).toBe(413);
      expect(Object.keys(res.body)).toEqual(["error"]);
    }
  });
});

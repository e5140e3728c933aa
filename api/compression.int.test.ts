import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import zlib from "node:zlib";
import type { LightMyRequestResponse } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { generateCorpus } from "../test/bench/corpus.ts";
import { closeTestApps, MessageQueue, testApp, testDirs, type TestDirs } from "./app.fixture.ts";
import { COMPRESSION_THRESHOLD } from "./compression.ts";

/** The body as sent on the wire, decoded by its Content-Encoding. */
function decoded(response: LightMyRequestResponse): string {
  const raw = response.rawPayload;
  switch (response.headers["content-encoding"]) {
    case undefined:
      return raw.toString("utf8");
    case "gzip":
      return zlib.gunzipSync(raw).toString("utf8");
    case "br":
      return zlib.brotliDecompressSync(raw).toString("utf8");
    default:
      throw new Error(`unexpected content-encoding ${String(response.headers["content-encoding"])}`);
  }
}

const KB = 1000;
const SESSIONS = 2000;

describe("compressed API responses (2,000 sessions)", () => {
  let dirs: TestDirs;
  let inject: (headers: Record<string, string>, url?: string, method?: "GET" | "HEAD") => Promise<LightMyRequestResponse>;

  beforeAll(async () => {
    dirs = testDirs("compression");
    // The benchmark corpus' sessions (pi's layout, realistic entries), at the smallest size: ~3 KB each.
    const corpus = generateCorpus({ agentDir: dirs.agentDir, seed: 20250601, sessions: SESSIONS, totalBytes: SESSIONS * 3072 });
    expect(corpus.files).toHaveLength(SESSIONS);
    const { app } = await testApp({ watchSessions: false }, dirs);
    inject = (headers, url = "/api/pi/sessions", method = "GET") => app.inject({ method, url, headers });
  });
  afterAll(closeTestApps);

  it("sends the list as is without Accept-Encoding", async () => {
    const plain = await inject({});
    expect(plain.statusCode).toBe(200);
    expect(plain.headers["content-encoding"]).toBeUndefined();
    expect(Number(plain.headers["content-length"])).toBe(plain.rawPayload.length);
    expect(plain.json<{ sessions: unknown[] }>().sessions).toHaveLength(SESSIONS);
    const identity = await inject({ "accept-encoding": "identity" });
    expect(identity.headers["content-encoding"]).toBeUndefined();
    expect(identity.body).toBe(plain.body);
  });

  it.each([
    ["br", "br"],
    ["gzip", "gzip"],
    ["gzip, deflate, br, zstd", "br"],
  ])("with Accept-Encoding %s sends %s that decodes to the same JSON", async (accepted, encoding) => {
    const plain = (await inject({})).body;
    const response = await inject({ "accept-encoding": accepted });
    expect(response.statusCode).toBe(200);
    expect(response.headers["content-encoding"]).toBe(encoding);
    expect(response.headers["vary"]).toMatch(/accept-encoding/i);
    expect(response.headers["content-type"]).toMatch(/^application\/json/);
    expect(decoded(response)).toBe(plain);
    expect(response.rawPayload.length).toBeLessThan(plain.length / 4);
  });

  it("keeps the 2,000-session list under 200 KB on the wire in br, what browsers are answered with", async () => {
    const plain = await inject({});
    const br = await inject({ "accept-encoding": "gzip, deflate, br" });
    expect(br.headers["content-encoding"]).toBe("br");
    expect(plain.rawPayload.length).toBeGreaterThan(1000 * KB);
    expect(br.rawPayload.length).toBeLessThan(200 * KB);
  });

  it("compresses other JSON answers too (a session detail)", async () => {
    const { sessions } = (await inject({})).json<{ sessions: { id: string }[] }>();
    const url = `/api/pi/sessions/${(sessions[0] as { id: string }).id}`;
    const plain = await inject({}, url);
    expect(plain.statusCode).toBe(200);
    expect(plain.rawPayload.length).toBeGreaterThan(COMPRESSION_THRESHOLD);
    const br = await inject({ "accept-encoding": "br" }, url);
    expect(br.headers["content-encoding"]).toBe("br");
    expect(decoded(br)).toBe(plain.body);
  });

  it("answers HEAD as before: the identity length, no Content-Encoding, no body", async () => {
    const plain = await inject({});
    const head = await inject({ "accept-encoding": "gzip, br" }, "/api/pi/sessions", "HEAD");
    expect(head.statusCode).toBe(200);
    expect(head.headers["content-encoding"]).toBeUndefined();
    expect(Number(head.headers["content-length"])).toBe(plain.rawPayload.length);
    expect(head.rawPayload.length).toBe(0);
  });

  it("keeps small answers and error envelopes readable", async () => {
    const info = await inject({ "accept-encoding": "gzip, br" }, "/api/pi/info");
    expect(info.rawPayload.length).toBeLessThan(COMPRESSION_THRESHOLD);
    expect(info.headers["content-encoding"]).toBeUndefined();
    for (const url of ["/api/pi/sessions/by-path", "/api/pi/sessions/by-path?path=/nowhere.jsonl", "/api/nope"]) {
      const error = await inject({ "accept-encoding": "gzip, br" }, url);
      expect(error.statusCode, url).toBeGreaterThanOrEqual(400);
      expect(JSON.parse(decoded(error)), url).toEqual({ error: expect.any(String) });
    }
  });

  it("still refuses a foreign origin with the 403 envelope", async () => {
    const refused = await inject({ "accept-encoding": "gzip, br", origin: "https://evil.example" });
    expect(refused.statusCode).toBe(403);
    expect(JSON.parse(decoded(refused))).toEqual({ error: "Origin not allowed" });
  });
});

describe("responses left uncompressed", () => {
  afterAll(closeTestApps);

  it("serves the built client as it was (validators kept, no Content-Encoding)", async () => {
    const dist = fs.mkdtempSync(path.join(os.tmpdir(), "leyline-dist-"));
    fs.writeFileSync(path.join(dist, "index.html"), `<!doctype html><title>shell</title>${"<!-- pad -->".repeat(200)}`);
    fs.mkdirSync(path.join(dist, "assets"));
    const script = `console.log(${JSON.stringify("x".repeat(4096))});`;
    fs.writeFileSync(path.join(dist, "assets", "app.js"), script);
    fs.writeFileSync(path.join(dist, "assets", "data.json"), JSON.stringify({ pad: "y".repeat(4096) }));
    const { app } = await testApp({ webDistDir: dist });
    const headers = { "accept-encoding": "gzip, br" };
    for (const url of ["/assets/app.js", "/assets/data.json", "/", "/sessions/abc"]) {
      const response = await app.inject({ method: "GET", url, headers });
      expect(response.statusCode, url).toBe(200);
      expect(response.headers["content-encoding"], url).toBeUndefined();
    }
    const asset = await app.inject({ method: "GET", url: "/assets/app.js", headers });
    expect(asset.body).toBe(script);
    const etag = asset.headers["etag"];
    expect(etag).toBeDefined();
    const notModified = await app.inject({ method: "GET", url: "/assets/app.js", headers: { ...headers, "if-none-match": String(etag) } });
    expect(notModified.statusCode).toBe(304);
    expect(notModified.rawPayload.length).toBe(0);
  });

  it("opens the events WebSocket of a client that accepts compressed responses", async () => {
    const { app } = await testApp();
    await app.listen({ port: 0, host: "127.0.0.1" });
    const address = app.server.address();
    if (typeof address !== "object" || address === null) throw new Error("no address");
    const socket = new WebSocket(`ws://127.0.0.1:${address.port}/api/pi/events`, { headers: { "accept-encoding": "gzip, br" } });
    const queue = new MessageQueue(socket);
    const upgraded = new Promise<number>((resolve, reject) => {
      socket.once("upgrade", (response) => resolve(response.statusCode ?? 0));
      socket.once("error", reject);
    });
    expect(await upgraded).toBe(101);
    expect(await queue.next()).toMatchObject({ type: "hello", seq: 0 });
    socket.close();
    await queue.closed;

    const plainGet = await app.inject({ method: "GET", url: "/api/pi/events", headers: { "accept-encoding": "gzip, br" } });
    expect(plainGet.statusCode).toBe(426);
    expect(plainGet.headers["content-encoding"]).toBeUndefined();
    expect(plainGet.json()).toEqual({ error: expect.any(String) });
  });
});

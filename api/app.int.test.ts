import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { FastifyInstance } from "fastify";
import { buildApp, packageVersion } from "./app.ts";
import { testDirs } from "./app.fixture.ts";
import { ServiceError } from "../domain/service-error.ts";
import { HttpError } from "./http-error.ts";
import { CAPABILITIES } from "./info.routes.ts";

const apps: FastifyInstance[] = [];
async function app(options: Parameters<typeof buildApp>[0] = {}): Promise<FastifyInstance> {
  const dirs = testDirs("app");
  const built = await buildApp({ dataDir: dirs.dataDir, agentDir: dirs.agentDir, env: {}, ...options });
  apps.push(built);
  return built;
}
afterEach(async () => {
  await Promise.all(apps.splice(0).map((a) => a.close()));
});

describe("GET /api/pi/info", () => {
  it("answers the spec's shape with package.json's version and every capability flag", async () => {
    const res = await (await app()).inject({ method: "GET", url: "/api/pi/info" });
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-type"]).toMatch(/^application\/json/);
    const pkg = JSON.parse(fs.readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string };
    expect(res.json()).toEqual({
      name: "Leyline",
      version: pkg.version,
      apiVersion: 2,
      capabilities: {
        events: CAPABILITIES.events,
        exports: CAPABILITIES.exports,
        research: CAPABILITIES.research,
        review: CAPABILITIES.review,
        reviewWatch: CAPABILITIES.reviewWatch,
        terminal: CAPABILITIES.terminal,
        fileLinks: CAPABILITIES.fileLinks,
        sessionTree: CAPABILITIES.sessionTree,
        fullTextSearch: CAPABILITIES.fullTextSearch,
        piSettings: CAPABILITIES.piSettings,
        tracing: CAPABILITIES.tracing,
      },
    });
    expect(packageVersion()).toBe(pkg.version);
    // The features that have landed, end to end (routes, extensions, client).
    expect(res.json()).toMatchObject({ capabilities: { events: true, exports: true, research: true } });
  });

  it("reports the version it was built with", async () => {
    const res = await (await app({ version: "9.9.9-test" })).inject({ method: "GET", url: "/api/pi/info" });
    expect(res.json()).toMatchObject({ version: "9.9.9-test" });
  });
});

describe("envelopes and statuses", () => {
  it("answers unknown routes with a 404 envelope", async () => {
    const a = await app();
    for (const url of ["/api/nope", "/api/pi/info/extra", "/nope"]) {
      const res = await a.inject({ method: "GET", url });
      expect(res.statusCode, url).toBe(404);
      expect(res.json(), url).toEqual({ error: "Not found" });
    }
  });

  it("answers a CORS preflight with 204", async () => {
    const res = await (
      await app()
    ).inject({
      method: "OPTIONS",
      url: "/api/pi/info",
      headers: {
        origin: "http://127.0.0.1:5173",
        "access-control-request-method": "POST",
        "access-control-request-headers": "content-type",
      },
    });
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe("");
    expect(res.headers["access-control-allow-methods"]).toContain("POST");
  });

  it("maps thrown errors to the envelope and never leaks 5xx internals", async () => {
    const a = await app();
    a.get("/api/test/http-error", async () => {
      throw new HttpError("conflict", "Stale revision");
    });
    a.get("/api/test/service-error", async () => {
      throw new ServiceError("session_not_found", "Session not found");
    });
    a.get("/api/test/crash", async () => {
      throw new Error("secret internal detail at /home/user/.pi");
    });
    a.post(
      "/api/test/echo",
      { schema: { body: { type: "object", required: ["name"], properties: { name: { type: "string" } } } } },
      async (request) => request.body,
    );

    const conflict = await a.inject({ method: "GET", url: "/api/test/http-error" });
    expect(conflict.statusCode).toBe(409);
    expect(conflict.json()).toEqual({ error: "Stale revision" });

    const notFound = await a.inject({ method: "GET", url: "/api/test/service-error" });
    expect(notFound.statusCode).toBe(404);
    expect(notFound.json()).toEqual({ error: "Session not found" });

    const crash = await a.inject({ method: "GET", url: "/api/test/crash" });
    expect(crash.statusCode).toBe(500);
    expect(crash.json()).toEqual({ error: "Internal server error" });
    expect(crash.body).not.toContain("secret");

    const invalid = await a.inject({ method: "POST", url: "/api/test/echo", payload: { other: 1 } });
    expect(invalid.statusCode).toBe(400);
    expect(Object.keys(invalid.json() as object)).toEqual(["error"]);

    const malformed = await a.inject({
      method: "POST",
      url: "/api/test/echo",
      headers: { "content-type": "application/json" },
      payload: "{not json",
    });
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json()).toEqual({ error: expect.stringContaining("not valid JSON") });
  });
});

describe("serving the built client", () => {
  function distDir(): string {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "leyline-dist-"));
    fs.writeFileSync(path.join(dir, "index.html"), "<!doctype html><title>shell</title>");
    fs.mkdirSync(path.join(dir, "assets"));
    fs.writeFileSync(path.join(dir, "assets", "app.js"), "console.log('app')");
    return dir;
  }

  it("serves files, falls back to index.html for client routes, and keeps /api 404s as JSON", async () => {
    const a = await app({ webDistDir: distDir() });
    const root = await a.inject({ method: "GET", url: "/" });
    expect(root.statusCode).toBe(200);
    expect(root.body).toContain("<title>shell</title>");

    const asset = await a.inject({ method: "GET", url: "/assets/app.js" });
    expect(asset.statusCode).toBe(200);
    expect(asset.body).toBe("console.log('app')");

    const clientRoute = await a.inject({ method: "GET", url: "/sessions/abc?x=1" });
    expect(clientRoute.statusCode).toBe(200);
    expect(clientRoute.headers["content-type"]).toMatch(/^text\/html/);
    expect(clientRoute.body).toContain("<title>shell</title>");

    const api = await a.inject({ method: "GET", url: "/api/unknown" });
    expect(api.statusCode).toBe(404);
    expect(api.json()).toEqual({ error: "Not found" });

    const info = await a.inject({ method: "GET", url: "/api/pi/info" });
    expect(info.statusCode).toBe(200);
  });

  it("serves the API alone when the client is not built", async () => {
    const a = await app({ webDistDir: path.join(os.tmpdir(), "leyline-no-such-dist") });
    const root = await a.inject({ method: "GET", url: "/" });
    expect(root.statusCode).toBe(404);
    expect(root.json()).toEqual({ error: "Not found" });
  });
});

/**
 * The bad-input suite: every route this server has answers malformed JSON, wrong types, unknown ids, missing
 * queries, oversized bodies, disallowed origins, unsupported methods and unknown paths with the spec's status
 * and the `{ "error": string }` envelope, and the server keeps serving afterwards.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { FastifyInstance, InjectOptions } from "fastify";
import { closeTestApps, copyFixture, testApp, testDirs } from "./app.fixture.ts";

afterEach(closeTestApps);

const LARGE_ID = "d703a1a9-1b7b-4fb1-b512-c9738b1fe617";

/** Every GET route with a URL that succeeds (200). */
const GOOD_GETS = [
  "/api/pi/info",
  "/api/health",
  "/internal/live",
  "/internal/ready",
  "/internal/diagnostics",
  "/api/pi/sessions",
  `/api/pi/sessions/${LARGE_ID}`,
  "/api/pi/fs",
];

let app: FastifyInstance;
let largeFile: string;

beforeEach(async () => {
  const dirs = testDirs("bad-input");
  largeFile = copyFixture("v1-large-session.jsonl", dirs);
  ({ app } = await testApp({ allowedOrigins: ["https://ok.example"] }, dirs));
});

async function expectError(request: InjectOptions, status: number): Promise<void> {
  const res = await app.inject(request);
  const label = `${String(request.method)} ${String(request.url)}`;
  expect(res.statusCode, label).toBe(status);
  const body = res.json<Record<string, unknown>>();
  expect(Object.keys(body), label).toEqual(["error"]);
  expect(typeof body["error"], label).toBe("string");
  expect(body["error"], label).not.toMatch(/at .*\.ts:\d+/);
  // The server is still up: a follow-up request succeeds.
  expect((await app.inject({ method: "GET", url: "/api/health" })).statusCode, `after ${label}`).toBe(200);
}

describe("bad input", () => {
  it("every good GET really succeeds (the baseline of this suite)", async () => {
    for (const url of [...GOOD_GETS, `/api/pi/sessions/by-path?path=${encodeURIComponent(largeFile)}`]) {
      expect((await app.inject({ method: "GET", url })).statusCode, url).toBe(200);
    }
  });

  it("403 for a disallowed browser origin on every route, including preflights and unknown paths", async () => {
    for (const url of [...GOOD_GETS, "/api/pi/events", "/api/nope"]) {
      await expectError({ method: "GET", url, headers: { origin: "https://evil.example" } }, 403);
    }
    await expectError(
      { method: "OPTIONS", url: "/api/pi/sessions", headers: { origin: "https://evil.example", "access-control-request-method": "GET" } },
      403,
    );
    await expectError({ method: "GET", url: "/api/health", headers: { origin: "null" } }, 403);
  });

  it("CORS headers for allowed origins, on requests and on the 204 preflight", async () => {
    for (const origin of ["https://ok.example", "http://127.0.0.1:5173"]) {
      const res = await app.inject({ method: "GET", url: "/api/pi/sessions", headers: { origin } });
      expect(res.statusCode).toBe(200);
      expect(res.headers["access-control-allow-origin"]).toBe(origin);
      expect(res.headers["vary"]).toContain("Origin");
      const preflight = await app.inject({
        method: "OPTIONS",
        url: "/api/pi/sessions/abc",
        headers: { origin, "access-control-request-method": "PATCH" },
      });
      expect(preflight.statusCode).toBe(204);
      expect(preflight.headers["access-control-allow-origin"]).toBe(origin);
      expect(preflight.headers["access-control-allow-methods"]).toContain("PATCH");
    }
    const noOrigin = await app.inject({ method: "GET", url: "/api/health" });
    expect(noOrigin.headers["access-control-allow-origin"]).toBeUndefined();
  });

  it("405 with Allow for a known path and an unsupported method", async () => {
    const cases: [InjectOptions["method"], string][] = [
      ["POST", "/api/pi/info"],
      ["DELETE", "/api/health"],
      ["PUT", "/internal/ready"],
      ["PATCH", "/api/pi/fs"],
      ["POST", "/api/pi/events"],
      // (DELETE /api/pi/sessions/by-path is DELETE /api/pi/sessions/:id with the id "by-path": 404)
      ["PUT", "/api/pi/sessions/by-path"],
    ];
    for (const [method, url] of cases) {
      await expectError({ method, url }, 405);
      const res = await app.inject({ method, url });
      expect(res.headers["allow"], url).toContain("GET");
    }
    // A malformed JSON body on a path without that method is still a 405, never a 500.
    await expectError({ method: "POST", url: "/api/pi/info", headers: { "content-type": "application/json" }, payload: "{nope" }, 405);
  });

  it("404 for unknown paths and unknown ids", async () => {
    for (const url of ["/api/nope", "/api/pi/sessions/a/b", "/api/pi/sessionsx", "/internal/nope", "/api/pi/sessions/unknown-id"]) {
      await expectError({ method: "GET", url }, 404);
    }
  });

  it("400 for missing queries and wrong query types", async () => {
    await expectError({ method: "GET", url: "/api/pi/sessions/by-path" }, 400);
    await expectError({ method: "GET", url: "/api/pi/sessions/by-path?path=%20" }, 400);
    await expectError({ method: "GET", url: "/api/pi/sessions/by-path?path=a&path=b" }, 400);
    await expectError({ method: "GET", url: "/api/pi/fs?path=a&path=b" }, 400);
    await expectError({ method: "GET", url: `/api/pi/sessions/${LARGE_ID}?path=a&path=b` }, 400);
    await expectError({ method: "GET", url: "/api/pi/events?sessionId=a&sessionId=b" }, 400);
  });

  it("400 for malformed JSON and 413 for an oversized body on a route that takes a body", async () => {
    // No route of this change takes a body yet: a probe route stands for the app-wide parser and limits.
    const probe = await testApp();
    probe.app.post("/api/test/body", async (request) => ({ got: request.body }));
    const malformed = await probe.app.inject({
      method: "POST",
      url: "/api/test/body",
      headers: { "content-type": "application/json" },
      payload: "{not json",
    });
    expect(malformed.statusCode).toBe(400);
    expect(Object.keys(malformed.json<object>())).toEqual(["error"]);
    const oversized = await probe.app.inject({
      method: "POST",
      url: "/api/test/body",
      headers: { "content-type": "application/json" },
      payload: JSON.stringify({ text: "x".repeat(1024 * 1024 + 1) }),
    });
    expect(oversized.statusCode).toBe(413);
    expect(Object.keys(oversized.json<object>())).toEqual(["error"]);
    const fine = await probe.app.inject({ method: "POST", url: "/api/test/body", payload: { a: 1 } });
    expect(fine.json()).toEqual({ got: { a: 1 } });
  });

  it("500 with a message for invalid filesystem paths and id/path mismatches, and the server stays up", async () => {
    await expectError({ method: "GET", url: "/api/pi/fs?path=/no/such/dir" }, 500);
    await expectError({ method: "GET", url: "/api/pi/fs?path=./x" }, 500);
    await expectError({ method: "GET", url: `/api/pi/sessions/other-id?path=${encodeURIComponent(largeFile)}` }, 500);
  });

  it("426 for a plain GET on the events WebSocket endpoint", async () => {
    await expectError({ method: "GET", url: "/api/pi/events" }, 426);
    await expectError({ method: "GET", url: "/api/pi/events?sessionId=x" }, 426);
  });
});

/**
 * The native backend's records through the real app (testApp + inject, a real leyline.sqlite in a temp data dir):
 * the connection registry, the app setting ui.thinking_default and pinned sessions. Every happy path, every error
 * the spec lists (400, 404, 405, 413), the limits (80-character names, 200 pins, 500 ids per prune, 64 KiB bodies),
 * and that the records survive a restart on the same data dir. LEYLINE_CHECK_RESPONSES checks every answer
 * against its declared schema.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { FastifyInstance } from "fastify";
import type { BackendRegistry, PinnedSessions } from "../domain/native-app/native-records.ts";
import { closeTestApps, testApp, testDirs } from "./app.fixture.ts";

afterEach(closeTestApps);

async function send(app: FastifyInstance, method: "GET" | "POST" | "PATCH" | "PUT" | "DELETE", url: string, payload?: unknown) {
  const response = await app.inject({ method, url, ...(payload !== undefined ? { payload: payload as object } : {}) });
  return { status: response.statusCode, body: response.json() as unknown, headers: response.headers };
}

describe("connection registry", () => {
  it("creates (201), renames, re-points, defaults and deletes connections; the default returns to builtin", async () => {
    const { app } = await testApp();
    expect(await send(app, "GET", "/api/leyline/connections")).toMatchObject({
      status: 200,
      body: { connections: [], defaultConnectionId: "builtin" },
    });

    const created = await send(app, "POST", "/api/leyline/connections", { name: "  Lab box ", url: "http://127.0.0.1:8788/" });
    expect(created.status).toBe(201);
    const registry = created.body as BackendRegistry;
    expect(registry.connections).toHaveLength(1);
    const lab = registry.connections[0]!;
    expect(lab).toMatchObject({ name: "Lab box", url: "http://127.0.0.1:8788" });
    expect(lab.id).not.toBe("builtin");
    expect(lab.createdAt).toBe(lab.updatedAt);

    const second = (await send(app, "POST", "/api/leyline/connections", { name: "Office", url: "https://office.example:8443/leyline" }))
      .body as BackendRegistry;
    expect(second.connections.map((c) => c.name)).toEqual(["Lab box", "Office"]);
    const office = second.connections[1]!;

    const renamed = await send(app, "PATCH", `/api/leyline/connections/${lab.id}`, { name: "Lab" });
    expect(renamed.status).toBe(200);
    expect((renamed.body as BackendRegistry).connections[0]).toMatchObject({ id: lab.id, name: "Lab", url: "http://127.0.0.1:8788" });
    const moved = await send(app, "PATCH", `/api/leyline/connections/${lab.id}`, { url: "http://localhost:9000/x/" });
    expect((moved.body as BackendRegistry).connections[0]).toMatchObject({ name: "Lab", url: "http://localhost:9000/x" });

    expect((await send(app, "PUT", "/api/leyline/connections/default", { id: office.id })).body).toMatchObject({
      defaultConnectionId: office.id,
    });
    expect((await send(app, "PUT", "/api/leyline/connections/default", { id: "builtin" })).body).toMatchObject({
      defaultConnectionId: "builtin",
    });
    await send(app, "PUT", "/api/leyline/connections/default", { id: office.id });

    // Deleting the default saved connection resets the default to builtin.
    const deleted = await send(app, "DELETE", `/api/leyline/connections/${office.id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toMatchObject({ defaultConnectionId: "builtin" });
    expect((deleted.body as BackendRegistry).connections.map((c) => c.id)).toEqual([lab.id]);
  });

  it("answers every refusal with the envelope: 400 for bad values and builtin, 404 for unknown ids, 405 for other methods", async () => {
    const { app } = await testApp();
    const cases: Array<[unknown, string]> = [
      [{}, "name is required"],
      [{ name: "x" }, "url is required"],
      [{ name: 5, url: "http://a" }, "name must be a string"],
      [{ name: "   ", url: "http://a" }, "name must not be empty"],
      [{ name: "x".repeat(81), url: "http://a" }, "name must be at most 80 characters"],
      [{ name: "x", url: "ftp://a" }, "url must start with http:// or https://"],
      [{ name: "x", url: "http://u:p@a" }, "url must not contain credentials"],
      [{ name: "x", url: "http://a/?q=1" }, "url must not contain a query"],
      [{ name: "x", url: "http://a/#f" }, "url must not contain a fragment"],
      [{ name: "x", url: "http://" }, "url is not a valid URL"],
      [[1], "Request body must be a JSON object"],
    ];
    for (const [payload, error] of cases) {
      expect(await send(app, "POST", "/api/leyline/connections", payload), JSON.stringify(payload)).toMatchObject({
        status: 400,
        body: { error },
      });
    }
    expect((await send(app, "POST", "/api/leyline/connections", { name: "x".repeat(80), url: "http://a" })).status).toBe(201);

    const id = ((await send(app, "GET", "/api/leyline/connections")).body as BackendRegistry).connections[0]!.id;
    expect(await send(app, "PATCH", `/api/leyline/connections/${id}`, {})).toMatchObject({
      status: 400,
      body: { error: "name or url is required" },
    });
    expect(await send(app, "PATCH", `/api/leyline/connections/${id}`, { url: "mailto:a@b" })).toMatchObject({ status: 400 });
    expect(await send(app, "PATCH", "/api/leyline/connections/builtin", { name: "Mine" })).toMatchObject({
      status: 400,
      body: { error: "The native backend (builtin) cannot be changed" },
    });
    expect(await send(app, "DELETE", "/api/leyline/connections/builtin")).toMatchObject({
      status: 400,
      body: { error: "The native backend (builtin) cannot be removed" },
    });
    for (const [method, url, payload] of [
      ["PATCH", "/api/leyline/connections/nope", { name: "x" }],
      ["DELETE", "/api/leyline/connections/nope", undefined],
      ["PUT", "/api/leyline/connections/default", { id: "nope" }],
    ] as const) {
      expect(await send(app, method, url, payload), `${method} ${url}`).toMatchObject({
        status: 404,
        body: { error: "Connection not found" },
      });
    }
    expect(await send(app, "PUT", "/api/leyline/connections/default", {})).toMatchObject({
      status: 400,
      body: { error: "id is required" },
    });
    const wrong = await send(app, "PUT", "/api/leyline/connections");
    expect(wrong.status).toBe(405);
    expect(wrong.headers["allow"]).toBe("GET, HEAD, POST");
    expect(await send(app, "GET", "/api/leyline/nothing-here")).toMatchObject({ status: 404, body: { error: "Not found" } });
  });
});

describe("app settings", () => {
  it("stores ui.thinking_default; empty means unset; other values 400, other keys 404; kept across a restart", async () => {
    const dirs = testDirs("native-settings");
    const { app } = await testApp({}, dirs);
    const url = "/api/leyline/settings/ui.thinking_default";
    expect(await send(app, "GET", url)).toMatchObject({ status: 200, body: { key: "ui.thinking_default", value: "" } });
    expect(await send(app, "PUT", url, { value: "expanded" })).toMatchObject({
      status: 200,
      body: { key: "ui.thinking_default", value: "expanded" },
    });
    expect(await send(app, "GET", url)).toMatchObject({ body: { value: "expanded" } });
    for (const value of ["", "open", 1, null, undefined]) {
      expect(await send(app, "PUT", url, value === undefined ? {} : { value }), String(value)).toMatchObject({
        status: 400,
        body: { error: 'value must be "collapsed" or "expanded"' },
      });
    }
    for (const key of ["ui.theme", "server.network_access", "server.network_access_port"]) {
      expect(await send(app, "GET", `/api/leyline/settings/${key}`)).toMatchObject({
        status: 404,
        body: { error: `Unknown setting: ${key}` },
      });
      expect(await send(app, "PUT", `/api/leyline/settings/${key}`, { value: "expanded" })).toMatchObject({ status: 404 });
    }
    expect((await send(app, "DELETE", url)).status).toBe(405);
    await closeTestApps();

    const { app: again } = await testApp({}, dirs);
    expect(await send(again, "GET", url)).toMatchObject({ body: { value: "expanded" } });
  });
});

describe("pinned sessions", () => {
  const pins = "/api/leyline/pinned-sessions";

  it("pins (201, in pin order, idempotent), unpins and prunes per connection; a deleted connection takes its pins", async () => {
    const { app } = await testApp();
    expect(await send(app, "GET", `${pins}?connectionId=builtin`)).toMatchObject({
      status: 200,
      body: { connectionId: "builtin", pinnedIds: [] },
    });
    for (const id of ["s1", " s2 ", "s3", "s1"]) {
      const added = await send(app, "POST", pins, { connectionId: "builtin", sessionId: id });
      expect(added.status).toBe(201);
    }
    expect((await send(app, "GET", `${pins}?connectionId=builtin`)).body).toEqual({
      connectionId: "builtin",
      pinnedIds: ["s1", "s2", "s3"],
    });

    const remote = ((await send(app, "POST", "/api/leyline/connections", { name: "R", url: "http://127.0.0.1:9" })).body as BackendRegistry)
      .connections[0]!.id;
    await send(app, "POST", pins, { connectionId: remote, sessionId: "s1" });
    expect((await send(app, "GET", `${pins}?connectionId=${remote}`)).body).toEqual({ connectionId: remote, pinnedIds: ["s1"] });

    expect((await send(app, "DELETE", `${pins}?connectionId=builtin&sessionId=s2`)).body).toEqual({
      connectionId: "builtin",
      pinnedIds: ["s1", "s3"],
    });
    expect((await send(app, "DELETE", `${pins}?connectionId=builtin&sessionId=absent`)).status).toBe(200);
    expect((await send(app, "POST", `${pins}/prune`, { connectionId: "builtin", sessionIds: ["s3", "zz"] })).body).toEqual({
      connectionId: "builtin",
      pinnedIds: ["s1"],
    });
    // The other connection's pins are its own.
    expect((await send(app, "GET", `${pins}?connectionId=${remote}`)).body).toMatchObject({ pinnedIds: ["s1"] });
    await send(app, "DELETE", `/api/leyline/connections/${remote}`);
    expect(await send(app, "GET", `${pins}?connectionId=${remote}`)).toMatchObject({
      status: 404,
      body: { error: "Connection not found" },
    });
    expect((await send(app, "GET", `${pins}?connectionId=builtin`)).body).toMatchObject({ pinnedIds: ["s1"] });
  });

  it("holds the limits: 200 pins per connection, 500 ids per prune, 1..128 characters, 64 KiB bodies", async () => {
    const { app } = await testApp();
    for (let i = 0; i < 200; i++) {
      const added = await send(app, "POST", pins, { connectionId: "builtin", sessionId: `session-${i}` });
      expect(added.status).toBe(201);
    }
    expect(await send(app, "POST", pins, { connectionId: "builtin", sessionId: "one-too-many" })).toMatchObject({
      status: 400,
      body: { error: "A connection can have at most 200 pinned sessions" },
    });
    // Re-pinning a pinned id at the limit is no error.
    expect((await send(app, "POST", pins, { connectionId: "builtin", sessionId: "session-7" })).status).toBe(201);

    const tooMany = Array.from({ length: 501 }, (_, i) => `session-${i}`);
    expect(await send(app, "POST", `${pins}/prune`, { connectionId: "builtin", sessionIds: tooMany })).toMatchObject({
      status: 400,
      body: { error: "sessionIds can hold at most 500 ids per request" },
    });
    const pruned = await send(app, "POST", `${pins}/prune`, { connectionId: "builtin", sessionIds: tooMany.slice(0, 500) });
    expect(pruned).toMatchObject({ status: 200, body: { pinnedIds: [] } });

    const cases: Array<[string, string, unknown, number, string]> = [
      ["GET", pins, undefined, 400, "connectionId is required"],
      ["GET", `${pins}?connectionId=%20`, undefined, 400, "connectionId must not be empty"],
      ["GET", `${pins}?connectionId=${"c".repeat(129)}`, undefined, 400, "connectionId must be at most 128 characters"],
      ["GET", `${pins}?connectionId=unknown`, undefined, 404, "Connection not found"],
      ["POST", pins, { connectionId: "builtin" }, 400, "sessionId is required"],
      ["POST", pins, { connectionId: "builtin", sessionId: 12 }, 400, "sessionId must be a string"],
      ["POST", pins, { connectionId: "builtin", sessionId: "s".repeat(129) }, 400, "sessionId must be at most 128 characters"],
      ["POST", pins, { sessionId: "s" }, 400, "connectionId is required"],
      ["POST", pins, "just text", 400, "Request body must be a JSON object"],
      ["DELETE", `${pins}?connectionId=builtin`, undefined, 400, "sessionId is required"],
      ["POST", `${pins}/prune`, { connectionId: "builtin", sessionIds: "s1" }, 400, "sessionIds must be an array of strings"],
      ["POST", `${pins}/prune`, { connectionId: "builtin", sessionIds: ["ok", ""] }, 400, "every session id must not be empty"],
      ["POST", `${pins}/prune`, { connectionId: "nope", sessionIds: [] }, 404, "Connection not found"],
    ];
    for (const [method, url, payload, status, error] of cases) {
      const response = await app.inject({
        method: method as "GET",
        url,
        ...(payload !== undefined ? { payload: JSON.stringify(payload), headers: { "content-type": "application/json" } } : {}),
      });
      expect({ status: response.statusCode, body: response.json() as unknown }, `${method} ${url} ${JSON.stringify(payload)}`).toEqual({
        status,
        body: { error },
      });
    }

    // 64 KiB: a body just under is read; one over answers 413 with the envelope.
    const padding = (bytes: number) => JSON.stringify({ connectionId: "builtin", sessionId: "s", pad: "x".repeat(bytes) });
    const under = padding(64 * 1024 - 60);
    expect(Buffer.byteLength(under)).toBeLessThanOrEqual(64 * 1024);
    const ok = await app.inject({ method: "POST", url: pins, payload: under, headers: { "content-type": "application/json" } });
    expect(ok.statusCode).toBe(201);
    const over = await app.inject({
      method: "POST",
      url: `${pins}/prune`,
      payload: padding(64 * 1024),
      headers: { "content-type": "application/json" },
    });
    expect(over.statusCode).toBe(413);
    expect(over.json()).toHaveProperty("error");
    expect((await send(app, "PUT", pins, {})).status).toBe(405);
  });

  it("keeps pins across a restart on the same data dir", async () => {
    const dirs = testDirs("native-pins");
    const { app } = await testApp({}, dirs);
    await send(app, "POST", pins, { connectionId: "builtin", sessionId: "kept" });
    await closeTestApps();
    const { app: again } = await testApp({}, dirs);
    expect((await send(again, "GET", `${pins}?connectionId=builtin`)).body as PinnedSessions).toEqual({
      connectionId: "builtin",
      pinnedIds: ["kept"],
    });
  });
});

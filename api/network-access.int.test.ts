/**
 * GET and PUT /api/leyline/network-access over the real app (leyline.sqlite in a temp data dir) listening on
 * 127.0.0.1, with the relay bound to 127.0.0.1 and injected documentation interface addresses (192.0.2.10): no
 * traffic goes anywhere but loopback. Covers the validation errors and statuses, the relay's HTTP and WebSocket
 * traffic (byte for byte), live port changes and their failures (bind, persistence), disabling (remote connections
 * closed, the request that disabled sharing through the relay still answered), restart and restore, automatic
 * ports, serialized operations and shutdown.
 */
import http from "node:http";
import net from "node:net";
import type { FastifyInstance } from "fastify";
import { sql } from "kysely";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { readAppSettings } from "../adapters/native-app/app-settings-store.ts";
import type { NetworkAccessOptions } from "../adapters/network-access/network-access-service.ts";
import { freePort, listenLoopback, LOOPBACK, openConnection, rawExchange, refuses } from "../adapters/network-access/relay.fixture.ts";
import {
  NETWORK_ACCESS_KEY,
  NETWORK_ACCESS_PORT_KEY,
  type NetworkAccess,
  UNAVAILABLE_MESSAGE,
  UPDATE_REQUIRED,
} from "../domain/native-app/network-access.ts";
import { closeTestApps, MessageQueue, testApp, testDirs, type TestDirs } from "./app.fixture.ts";

const PATH = "/api/leyline/network-access";
const LAN = "192.0.2.10";
const PORT_MESSAGE = "port must be an integer from 0 through 65535";

const networkAccess: NetworkAccessOptions = {
  bindHost: LOOPBACK,
  interfaces: () => ({
    lo: [{ address: "127.0.0.1", family: "IPv4", internal: true }],
    eth0: [
      { address: LAN, family: "IPv4", internal: false },
      { address: "2001:db8::10", family: "IPv6", internal: false },
    ],
  }),
  hostname: () => "leyline-test-box",
  closeGraceMs: 1000,
};

const occupied: net.Server[] = [];
afterEach(async () => {
  await closeTestApps();
  await Promise.all(occupied.splice(0).map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
});
afterAll(closeTestApps);

async function sharingApp(dirs?: TestDirs, extra: Parameters<typeof testApp>[0] = {}): Promise<{ app: FastifyInstance; dirs: TestDirs }> {
  return testApp({ networkAccess, ...extra }, dirs ?? testDirs("net"));
}

/** Listens on 127.0.0.1 (a free port) and resolves with the port, once the restore has run. */
async function listen(app: FastifyInstance): Promise<number> {
  await app.listen({ port: 0, host: LOOPBACK });
  const address = app.server.address();
  if (typeof address !== "object" || address === null) throw new Error("no address");
  return address.port;
}

async function put(app: FastifyInstance, body: unknown): Promise<{ status: number; body: NetworkAccess & { error: string } }> {
  const res = await app.inject({ method: "PUT", url: PATH, payload: body as object });
  return { status: res.statusCode, body: res.json() };
}

async function get(app: FastifyInstance): Promise<NetworkAccess> {
  const res = await app.inject({ method: "GET", url: PATH });
  expect(res.statusCode).toBe(200);
  return res.json();
}

async function saved(app: FastifyInstance): Promise<Record<string, string>> {
  const { db } = await app.leyline.readSide.database();
  return readAppSettings(db, [NETWORK_ACCESS_KEY, NETWORK_ACCESS_PORT_KEY]);
}

async function enabledAt(app: FastifyInstance, port: number): Promise<NetworkAccess> {
  const res = await put(app, { enabled: true, port });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.enabled).toBe(true);
  return res.body;
}

async function occupy(): Promise<number> {
  const server = net.createServer();
  occupied.push(server);
  return listenLoopback(server);
}

interface RawResponse {
  status: number;
  head: string;
  body: string;
}

function parseResponse(bytes: Buffer): RawResponse | null {
  const text = bytes.toString("latin1");
  const end = text.indexOf("\r\n\r\n");
  if (end === -1) return null;
  const head = text.slice(0, end);
  const length = /^content-length: *(\d+)/im.exec(head);
  const body = text.slice(end + 4);
  if (length?.[1] !== undefined && Buffer.byteLength(body, "latin1") < Number(length[1])) return null;
  return { status: Number(head.slice(9, 12)), head, body };
}

/** One HTTP/1.1 request with Connection: close over a raw socket to 127.0.0.1:port. */
async function rawRequest(
  port: number,
  method: string,
  url: string,
  options: { host?: string; body?: unknown } = {},
): Promise<RawResponse> {
  const body = options.body === undefined ? "" : JSON.stringify(options.body);
  const headers = [`${method} ${url} HTTP/1.1`, `Host: ${options.host ?? `${LOOPBACK}:${port}`}`, "Connection: close"];
  if (body !== "") headers.push("Content-Type: application/json", `Content-Length: ${Buffer.byteLength(body)}`);
  const parsed = parseResponse(await rawExchange(port, `${headers.join("\r\n")}\r\n\r\n${body}`));
  if (parsed === null) throw new Error("incomplete response");
  return parsed;
}

const withoutDate = (bytes: Buffer): string => bytes.toString("latin1").replace(/^date: .*\r\n/im, "");

describe("validation and statuses", () => {
  it("answers GET before the server listens: not available, defaults; enabling then fails with 400 and the error stays", async () => {
    const { app } = await sharingApp();
    expect(await get(app)).toEqual({
      available: false,
      enabled: false,
      port: null,
      configuredPort: 0,
      urls: [],
      directAccess: false,
      error: "",
    });
    expect(await put(app, { enabled: true })).toEqual({ status: 400, body: { error: UNAVAILABLE_MESSAGE } });
    expect(await get(app)).toMatchObject({ available: false, enabled: false, error: UNAVAILABLE_MESSAGE });
    expect(await saved(app)).toEqual({});
    // a port update while off only saves the port (and clears the error)
    expect(await put(app, { port: 4321 })).toEqual({
      status: 200,
      body: { available: false, enabled: false, port: null, configuredPort: 4321, urls: [], directAccess: false, error: "" },
    });
    expect(await saved(app)).toEqual({ [NETWORK_ACCESS_PORT_KEY]: "4321" });
    expect((await app.inject({ method: "GET", url: PATH })).headers["cache-control"]).toBe("no-store");
  });

  it.each([
    ["{}", {}, UPDATE_REQUIRED],
    ["only unknown fields", { foo: 1 }, UPDATE_REQUIRED],
    ["null enabled", { enabled: null }, "enabled must be a boolean"],
    ["string enabled", { enabled: "yes" }, "enabled must be a boolean"],
    ["numeric enabled", { enabled: 1 }, "enabled must be a boolean"],
    ["null port", { port: null }, PORT_MESSAGE],
    ["port -1", { port: -1 }, PORT_MESSAGE],
    ["port 65536", { port: 65536 }, PORT_MESSAGE],
    ["port 1.5", { port: 1.5 }, PORT_MESSAGE],
    ['port "80"', { port: "80" }, PORT_MESSAGE],
    ["a valid enabled with an invalid port", { enabled: false, port: -5 }, PORT_MESSAGE],
    ["an array", [], "Request body must be a JSON object"],
  ])("refuses %s with 400 and saves nothing", async (_name, body, message) => {
    const { app } = await sharingApp();
    expect(await put(app, body)).toEqual({ status: 400, body: { error: message } });
    expect(await saved(app)).toEqual({});
    expect((await get(app)).error).toBe("");
  });

  it("refuses an empty body (400), a body over 1 KiB (413), other methods (405 with Allow); ignores extra fields", async () => {
    const { app } = await sharingApp();
    const empty = await app.inject({ method: "PUT", url: PATH, headers: { "content-type": "application/json" }, payload: "" });
    expect(empty.statusCode).toBe(400);
    expect(Object.keys(empty.json<object>())).toEqual(["error"]);
    const none = await app.inject({ method: "PUT", url: PATH });
    expect(none.statusCode).toBe(400);
    expect(none.json()).toEqual({ error: UPDATE_REQUIRED });

    const large = await app.inject({
      method: "PUT",
      url: PATH,
      headers: { "content-type": "application/json" },
      payload: JSON.stringify({ port: 5, padding: "x".repeat(1100) }),
    });
    expect(large.statusCode).toBe(413);
    expect(Object.keys(large.json<object>())).toEqual(["error"]);
    expect(await saved(app)).toEqual({});
    // just under the limit passes (extra fields ignored)
    const near = JSON.stringify({ port: 5, padding: "x".repeat(990) });
    expect(Buffer.byteLength(near)).toBeLessThanOrEqual(1024);
    const ok = await app.inject({ method: "PUT", url: PATH, headers: { "content-type": "application/json" }, payload: near });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json<NetworkAccess>().configuredPort).toBe(5);

    for (const method of ["POST", "DELETE", "PATCH"] as const) {
      const res = await app.inject({ method, url: PATH, payload: { enabled: true } });
      expect(res.statusCode, method).toBe(405);
      expect(res.json()).toEqual({ error: "Method not allowed" });
      expect(res.headers["allow"]).toBe("GET, HEAD, PUT");
    }
  });
});

describe("the relay's bind address", () => {
  it("comes from LEYLINE_NETWORK_ACCESS_HOST in the app's env unless the option sets it", async () => {
    // An address this machine does not have: the bind fails before any socket exists (nothing listens anywhere).
    const fromEnv = await testApp({ env: { LEYLINE_NETWORK_ACCESS_HOST: LAN }, networkAccess: { ...networkAccess, bindHost: undefined } });
    await listen(fromEnv.app);
    expect(await put(fromEnv.app, { enabled: true })).toEqual({
      status: 400,
      body: { error: `Address ${LAN} is not available on this machine` },
    });
    const fromOption = await testApp({ env: { LEYLINE_NETWORK_ACCESS_HOST: LAN }, networkAccess });
    await listen(fromOption.app);
    const on = await put(fromOption.app, { enabled: true });
    expect(on.body.enabled).toBe(true);
    expect((await rawRequest(on.body.port ?? 0, "GET", "/api/health")).status).toBe(200);
  });
});

describe("the contract", () => {
  it("documents both routes in the OpenAPI document with the body and the NetworkAccess answer", async () => {
    const { app } = await sharingApp();
    const doc = (await app.inject({ method: "GET", url: "/api/openapi.json" })).json<{
      paths: Record<
        string,
        Record<string, { requestBody?: { content?: Record<string, { schema?: { properties?: object } }> }; responses?: object }>
      >;
    }>();
    const operations = doc.paths[PATH] ?? {};
    expect(
      Object.keys(operations)
        .filter((method) => method !== "head")
        .sort(),
    ).toEqual(["get", "put"]);
    expect(Object.keys(operations["put"]?.requestBody?.content?.["application/json"]?.schema?.properties ?? {})).toEqual([
      "enabled",
      "port",
    ]);
    expect(Object.keys(operations["get"]?.responses ?? {})).toEqual(["200", "4XX", "5XX"]);
  });
});

describe("the relay", () => {
  it("enables on an automatic port and relays HTTP byte for byte; the Host of the LAN address is allowed while on", async () => {
    const { app } = await sharingApp();
    const originPort = await listen(app);
    expect(await get(app)).toMatchObject({ available: true, enabled: false, port: null, directAccess: false, error: "" });
    const on = await put(app, { enabled: true });
    expect(on.status).toBe(200);
    const relayPort = on.body.port ?? 0;
    expect(relayPort).toBeGreaterThan(0);
    expect(relayPort).not.toBe(originPort);
    expect(on.body).toEqual({
      available: true,
      enabled: true,
      port: relayPort,
      configuredPort: 0,
      urls: [`http://${LAN}:${relayPort}`],
      directAccess: false,
      error: "",
    });
    expect(await saved(app)).toEqual({ [NETWORK_ACCESS_KEY]: "true", [NETWORK_ACCESS_PORT_KEY]: "0" });

    const request = `GET /api/pi/info HTTP/1.1\r\nHost: localhost\r\nAccept: application/json\r\nConnection: close\r\n\r\n`;
    const direct = withoutDate(await rawExchange(originPort, request));
    const relayed = withoutDate(await rawExchange(relayPort, request));
    expect(direct).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(relayed).toBe(direct);

    // what a LAN browser sends through the relay
    const lan = await rawRequest(relayPort, "GET", PATH, { host: `${LAN}:${relayPort}` });
    expect(lan.status).toBe(200);
    expect(JSON.parse(lan.body)).toMatchObject({ enabled: true, port: relayPort });
    expect((await rawRequest(relayPort, "GET", PATH, { host: `leyline-test-box.local:${relayPort}` })).status).toBe(200);

    // a repeated enable reuses the listener
    expect((await put(app, { enabled: true })).body).toMatchObject({ enabled: true, port: relayPort, configuredPort: 0 });
    // the active automatic port chosen as a fixed port keeps the listener and saves the fixed port
    expect((await put(app, { port: relayPort })).body).toMatchObject({ enabled: true, port: relayPort, configuredPort: relayPort });
    expect(await saved(app)).toEqual({ [NETWORK_ACCESS_KEY]: "true", [NETWORK_ACCESS_PORT_KEY]: String(relayPort) });
    expect((await rawRequest(relayPort, "GET", "/api/health")).status).toBe(200);
  });

  it("relays a WebSocket both ways (handshake byte for byte, heartbeat answered) and disabling closes it", async () => {
    const { app } = await sharingApp(undefined, { heartbeatMs: 250 });
    const originPort = await listen(app);
    const relayPort = (await enabledAt(app, 0)).port ?? 0;

    const handshake = [
      "GET /api/pi/events HTTP/1.1",
      "Host: localhost",
      "Upgrade: websocket",
      "Connection: Upgrade",
      "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
      "Sec-WebSocket-Version: 13",
      "",
      "",
    ].join("\r\n");
    const headOf = async (port: number): Promise<string> => {
      const connection = await openConnection(port);
      connection.socket.write(handshake);
      const bytes = await connection.waitFor((received) => received.includes("\r\n\r\n"));
      connection.socket.destroy();
      return bytes.toString("latin1").slice(0, bytes.indexOf("\r\n\r\n"));
    };
    const directHead = await headOf(originPort);
    expect(directHead).toMatch(/^HTTP\/1\.1 101 Switching Protocols\r\n/);
    expect(await headOf(relayPort)).toBe(directHead);

    const remote = new WebSocket(`ws://${LOOPBACK}:${relayPort}/api/pi/events`);
    const remoteQueue = new MessageQueue(remote);
    const local = new WebSocket(`ws://${LOOPBACK}:${originPort}/api/pi/events`);
    const localQueue = new MessageQueue(local);
    let localPings = 0;
    local.on("message", (data: Buffer) => {
      if ((JSON.parse(data.toString("utf8")) as { type: string }).type !== "ping") return;
      localPings += 1;
      local.send(JSON.stringify({ type: "pong" }));
    });
    expect((await remoteQueue.next()).type).toBe("hello");
    // three pings answered: the server terminates a socket whose previous ping went unanswered
    for (let i = 0; i < 3; i++) {
      await remoteQueue.nextOf("ping");
      remote.send(JSON.stringify({ type: "pong" }));
    }
    expect(remote.readyState).toBe(WebSocket.OPEN);
    await localQueue.nextOf("hello");

    const off = await put(app, { enabled: false });
    expect(off.body).toMatchObject({ enabled: false, port: null, urls: [] });
    // no close frame: the relay ends the TCP connection (1006 on the client)
    expect((await remoteQueue.closed).code).toBe(1006);
    expect(await refuses(relayPort)).toBe(true);
    // the local client is not affected
    const pingsBefore = localPings;
    await expect.poll(() => localPings, { timeout: 5000 }).toBeGreaterThanOrEqual(pingsBefore + 2);
    expect(local.readyState).toBe(WebSocket.OPEN);
    local.close();
    await localQueue.closed;
  });

  it("answers the PUT that disables sharing through the relay itself, then closes that connection", async () => {
    const { app } = await sharingApp();
    await listen(app);
    const relayPort = (await enabledAt(app, 0)).port ?? 0;
    const connection = await openConnection(relayPort);
    const body = JSON.stringify({ enabled: false });
    // keep-alive: the relay, not the origin, ends this connection
    connection.socket.write(
      `PUT ${PATH} HTTP/1.1\r\nHost: ${LAN}:${relayPort}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
    );
    const response = parseResponse(await connection.waitFor((bytes) => parseResponse(bytes) !== null));
    expect(response?.status).toBe(200);
    expect(JSON.parse(response?.body ?? "")).toMatchObject({ enabled: false, port: null });
    await connection.closed;
    expect(await refuses(relayPort)).toBe(true);
    expect(await saved(app)).toEqual({ [NETWORK_ACCESS_KEY]: "false", [NETWORK_ACCESS_PORT_KEY]: "0" });
  });

  it("changes the port live (also through the old relay): the new port serves, the old one refuses", async () => {
    const { app } = await sharingApp();
    await listen(app);
    const first = await freePort();
    expect((await enabledAt(app, first)).port).toBe(first);
    const second = await freePort();
    // sent through the old relay, whose connections close after the answer
    const answer = await rawRequest(first, "PUT", PATH, { body: { port: second } });
    expect(answer.status, answer.body).toBe(200);
    expect(JSON.parse(answer.body)).toMatchObject({
      enabled: true,
      port: second,
      configuredPort: second,
      urls: [`http://${LAN}:${second}`],
    });
    expect(await refuses(first)).toBe(true);
    expect((await rawRequest(second, "GET", "/api/health")).status).toBe(200);
    expect(await saved(app)).toEqual({ [NETWORK_ACCESS_KEY]: "true", [NETWORK_ACCESS_PORT_KEY]: String(second) });
    // automatic selection while a fixed port listens is a port change: a new relay on a free port, the old one closed
    const automatic = (await put(app, { port: 0 })).body as { enabled: boolean; port: number; configuredPort: number };
    expect(automatic).toMatchObject({ enabled: true, configuredPort: 0 });
    expect(automatic.port).not.toBe(second);
    expect(await refuses(second)).toBe(true);
    expect((await rawRequest(automatic.port, "GET", "/api/health")).status).toBe(200);
  });

  it("keeps the old listener and settings when the new port cannot be bound; the error stays until a success", async () => {
    const { app } = await sharingApp();
    await listen(app);
    const first = await freePort();
    await enabledAt(app, first);
    const busy = await occupy();
    const message = `Port ${busy} is already in use`;
    expect(await put(app, { port: busy })).toEqual({ status: 400, body: { error: message } });
    expect(await get(app)).toMatchObject({ enabled: true, port: first, configuredPort: first, error: message });
    expect(await saved(app)).toEqual({ [NETWORK_ACCESS_KEY]: "true", [NETWORK_ACCESS_PORT_KEY]: String(first) });
    expect((await rawRequest(first, "GET", "/api/health")).status).toBe(200);
    // enabling from off at a busy port fails the same way and leaves sharing off
    expect((await put(app, { enabled: false })).body.error).toBe("");
    expect(await put(app, { enabled: true, port: busy })).toEqual({ status: 400, body: { error: message } });
    expect(await get(app)).toMatchObject({ enabled: false, port: null, configuredPort: first, error: message });
    expect((await put(app, { enabled: true })).body).toMatchObject({ enabled: true, port: first, error: "" });
  });

  it("keeps the relay and the settings when saving fails (a live port change, a disable)", async () => {
    const { app } = await sharingApp();
    await listen(app);
    const first = await freePort();
    await enabledAt(app, first);
    const { db } = await app.leyline.readSide.database();
    await sql`CREATE TRIGGER refuse_insert BEFORE INSERT ON app_settings BEGIN SELECT RAISE(ABORT, 'disk is full'); END`.execute(db);
    await sql`CREATE TRIGGER refuse_update BEFORE UPDATE ON app_settings BEGIN SELECT RAISE(ABORT, 'disk is full'); END`.execute(db);
    const second = await freePort();
    const change = await put(app, { port: second });
    expect(change.status).toBe(400);
    expect(change.body.error).toMatch(/^Could not save the network access settings: .*disk is full/);
    expect(await refuses(second)).toBe(true);
    expect(await get(app)).toMatchObject({ enabled: true, port: first, configuredPort: first, error: change.body.error });
    expect((await rawRequest(first, "GET", "/api/health")).status).toBe(200);

    const disable = await put(app, { enabled: false });
    expect(disable.status).toBe(400);
    expect(await get(app)).toMatchObject({ enabled: true, port: first });
    expect((await rawRequest(first, "GET", "/api/health")).status).toBe(200);

    await sql`DROP TRIGGER refuse_insert`.execute(db);
    await sql`DROP TRIGGER refuse_update`.execute(db);
    expect((await put(app, { enabled: false })).body).toMatchObject({ enabled: false, port: null, error: "" });
    expect(await refuses(first)).toBe(true);
  });

  it("restores the saved fixed port after a restart; a restore failure is reported and leaves the preference", async () => {
    const dirs = testDirs("net-restart");
    const { app: before } = await sharingApp(dirs);
    await listen(before);
    const port = await freePort();
    await enabledAt(before, port);
    await before.close();
    expect(await refuses(port)).toBe(true);

    const { app: after } = await sharingApp(dirs);
    expect((await get(after)).enabled).toBe(false);
    await listen(after);
    expect(await get(after)).toMatchObject({ available: true, enabled: true, port, configuredPort: port, error: "" });
    expect((await rawRequest(port, "GET", "/api/health")).status).toBe(200);
    await after.close();

    const blocker = net.createServer();
    occupied.push(blocker);
    await listenLoopback(blocker, port);
    const { app: blocked } = await sharingApp(dirs);
    await listen(blocked);
    expect(await get(blocked)).toMatchObject({
      enabled: false,
      port: null,
      configuredPort: port,
      error: `Network access was not restored: Port ${port} is already in use`,
    });
    expect(await saved(blocked)).toEqual({ [NETWORK_ACCESS_KEY]: "true", [NETWORK_ACCESS_PORT_KEY]: String(port) });
  });

  it("picks a free port for automatic selection each time it binds", async () => {
    const { app } = await sharingApp();
    await listen(app);
    const first = (await enabledAt(app, 0)).port ?? 0;
    expect((await rawRequest(first, "GET", "/api/health")).status).toBe(200);
    expect((await put(app, { enabled: false })).body.port).toBeNull();
    const second = (await enabledAt(app, 0)).port ?? 0;
    expect(second).toBeGreaterThan(0);
    expect((await rawRequest(second, "GET", "/api/health")).status).toBe(200);
    expect((await get(app)).configuredPort).toBe(0);
  });

  it("serializes operations in call order: omitted fields resolve in turn, GET waits for earlier ones", async () => {
    const { app } = await sharingApp();
    await listen(app);
    const service = app.leyline.networkAccess;
    const [p0, p1, p2] = [await freePort(), await freePort(), await freePort()];
    const [a, b, state, c, d, e] = await Promise.all([
      service.update({ enabled: true, port: p0 }),
      service.update({ port: p1 }),
      service.get(),
      service.update({ enabled: false }),
      service.update({ port: p2 }),
      service.update({ enabled: true }),
    ]);
    expect(a).toMatchObject({ enabled: true, port: p0, configuredPort: p0 });
    expect(b).toMatchObject({ enabled: true, port: p1, configuredPort: p1 });
    expect(state).toMatchObject({ enabled: true, port: p1, configuredPort: p1 });
    expect(c).toMatchObject({ enabled: false, port: null, configuredPort: p1 });
    expect(d).toMatchObject({ enabled: false, port: null, configuredPort: p2 });
    expect(e).toMatchObject({ enabled: true, port: p2, configuredPort: p2 });
    expect(await get(app)).toEqual(e);
    expect(await refuses(p0)).toBe(true);
    expect(await refuses(p1)).toBe(true);
    expect((await rawRequest(p2, "GET", "/api/health")).status).toBe(200);
  });

  it("leaves exactly one consistent state after a burst of concurrent PUTs: no listener leaks", async () => {
    const { app } = await sharingApp();
    await listen(app);
    const fixed = [await freePort(), await freePort()];
    const bodies = [
      { enabled: true, port: 0 },
      { enabled: false },
      { port: fixed[0] },
      { enabled: true },
      { enabled: true, port: 0 },
      { port: fixed[1] },
      { enabled: false },
      { enabled: true, port: 0 },
    ];
    const answers = await Promise.all(bodies.map((body) => put(app, body)));
    for (const answer of answers) expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const final = await get(app);
    expect(answers.map((answer) => answer.body)).toContainEqual(final);
    const stored = await saved(app);
    expect(stored[NETWORK_ACCESS_PORT_KEY]).toBe(String(final.configuredPort));
    if (final.enabled) expect(stored[NETWORK_ACCESS_KEY]).toBe("true");
    const seen = new Set([...fixed, ...answers.map((answer) => answer.body.port).filter((port): port is number => port !== null)]);
    for (const port of seen) {
      if (port === final.port) expect((await rawRequest(port, "GET", "/api/health")).status).toBe(200);
      else expect(await refuses(port), String(port)).toBe(true);
    }
  });

  it("closes the relay and its connections when the app closes", async () => {
    const { app } = await sharingApp();
    await listen(app);
    const port = (await enabledAt(app, 0)).port ?? 0;
    const connection = await openConnection(port);
    connection.socket.write(`GET /api/health HTTP/1.1\r\nHost: localhost\r\n\r\n`);
    await connection.waitFor((bytes) => parseResponse(bytes) !== null);
    await app.close();
    expect(await refuses(port)).toBe(true);
    await connection.closed;
  });

  it("keeps plain HTTP clients with keep-alive working through the relay", async () => {
    const { app } = await sharingApp();
    await listen(app);
    const port = (await enabledAt(app, 0)).port ?? 0;
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const fetchJson = (url: string): Promise<{ status: number; text: string }> =>
      new Promise((resolve, reject) => {
        http
          .get({ host: LOOPBACK, port, path: url, agent }, (res) => {
            let text = "";
            res.setEncoding("utf8");
            res.on("data", (chunk: string) => (text += chunk));
            res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
          })
          .on("error", reject);
      });
    for (let i = 0; i < 5; i++) expect((await fetchJson("/api/health")).status).toBe(200);
    expect(JSON.parse((await fetchJson(PATH)).text)).toMatchObject({ enabled: true, port });
    agent.destroy();
  });
});

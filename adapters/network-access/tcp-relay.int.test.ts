/**
 * The TCP relay over real sockets on 127.0.0.1: bytes both ways unchanged, half-close forwarded, pairs tracked,
 * close() frees the port at once and closes the connections (after the origin finished what it was answering),
 * the grace cap, bind failures.
 */
import { randomBytes } from "node:crypto";
import http from "node:http";
import net from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { freePort, listenLoopback, LOOPBACK, openConnection, rawExchange, refuses } from "./relay.fixture.ts";
import { RelayListenError, startTcpRelay, type TcpRelay } from "./tcp-relay.ts";

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function server(onConnection: (socket: net.Socket) => void): Promise<number> {
  const sockets = new Set<net.Socket>();
  const origin = net.createServer({ allowHalfOpen: true }, (socket) => {
    sockets.add(socket);
    onConnection(socket);
  });
  const port = await listenLoopback(origin);
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        origin.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      }),
  );
  return port;
}

async function relayTo(port: number, extra: Partial<Parameters<typeof startTcpRelay>[0]> = {}): Promise<TcpRelay> {
  const relay = await startTcpRelay({ host: LOOPBACK, port: 0, target: { host: LOOPBACK, port }, ...extra });
  cleanups.push(async () => {
    await relay.close();
    await relay.drained;
  });
  return relay;
}

describe("startTcpRelay", () => {
  it("forwards bytes unchanged in both directions (1 MiB of random bytes echoed)", async () => {
    const originPort = await server((socket) => socket.pipe(socket));
    const relay = await relayTo(originPort);
    expect(relay.port).toBeGreaterThan(0);
    expect(relay.port).not.toBe(originPort);
    const payload = randomBytes(1024 * 1024);
    const connection = await openConnection(relay.port);
    connection.socket.write(payload);
    const echoed = await connection.waitFor((bytes) => bytes.length >= payload.length);
    expect(echoed.equals(payload)).toBe(true);
    expect(relay.connections()).toBe(1);
    connection.socket.end();
    await connection.closed;
    await expect.poll(() => relay.connections()).toBe(0);
  });

  it("forwards a half-close: the origin still answers after the client's FIN", async () => {
    const originPort = await server((socket) => {
      let text = "";
      socket.on("data", (chunk: Buffer) => (text += chunk.toString("utf8")));
      socket.on("end", () => socket.end(`got ${text}`));
    });
    const relay = await relayTo(originPort);
    const connection = await openConnection(relay.port);
    connection.socket.end("hello");
    await connection.closed;
    expect(connection.received().toString("utf8")).toBe("got hello");
  });

  it("closes the client when the origin refuses the connection", async () => {
    const relay = await relayTo(await freePort());
    const connection = await openConnection(relay.port);
    await connection.closed;
    expect(connection.received().length).toBe(0);
    await expect.poll(() => relay.connections()).toBe(0);
  });

  it("stops listening at once on close and closes open connections; drained resolves", async () => {
    const originPort = await server((socket) => socket.pipe(socket));
    const relay = await relayTo(originPort);
    const connection = await openConnection(relay.port);
    connection.socket.write("ping");
    await connection.waitFor((bytes) => bytes.toString() === "ping");
    await relay.close();
    expect(await refuses(relay.port)).toBe(true);
    await connection.closed;
    await relay.drained;
    expect(relay.connections()).toBe(0);
  });

  it("lets the origin finish the response it is writing before the connection closes (originIdle)", async () => {
    const hooks: { respond?: () => void; idle?: () => void } = {};
    const origin = http.createServer((_request, response) => {
      hooks.respond = () => response.end("finished");
    });
    const originPort = await listenLoopback(origin);
    cleanups.push(() => new Promise<void>((resolve) => origin.close(() => resolve())));
    const relay = await relayTo(originPort, { originIdle: () => new Promise<void>((resolve) => (hooks.idle = resolve)) });
    const connection = await openConnection(relay.port);
    connection.socket.write(`GET / HTTP/1.1\r\nHost: ${LOOPBACK}\r\n\r\n`);
    await expect.poll(() => hooks.respond !== undefined).toBe(true);
    await relay.close();
    expect(await refuses(relay.port)).toBe(true);
    // The client's next bytes no longer reach the origin; the answer in progress still reaches the client.
    connection.socket.write(`GET /second HTTP/1.1\r\nHost: ${LOOPBACK}\r\n\r\n`);
    hooks.respond?.();
    hooks.idle?.();
    await connection.closed;
    const text = connection.received().toString("utf8");
    expect(text).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(text.endsWith("finished")).toBe(true);
    expect(text.match(/HTTP\/1\.1/g)).toHaveLength(1);
    await relay.drained;
  });

  it("destroys what remains after the grace", async () => {
    const originPort = await server(() => undefined);
    const relay = await relayTo(originPort, { originIdle: () => new Promise<void>(() => undefined), closeGraceMs: 200 });
    const connection = await openConnection(relay.port);
    await expect.poll(() => relay.connections()).toBe(1);
    const started = Date.now();
    await relay.close();
    await connection.closed;
    expect(Date.now() - started).toBeGreaterThanOrEqual(150);
    await relay.drained;
  });

  it("fails with the bind error's code on an occupied port, and listens on a fixed free port", async () => {
    const occupied = net.createServer();
    const port = await listenLoopback(occupied);
    cleanups.push(() => new Promise<void>((resolve) => occupied.close(() => resolve())));
    const failure = await startTcpRelay({ host: LOOPBACK, port, target: { host: LOOPBACK, port: 1 } }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(RelayListenError);
    expect((failure as RelayListenError).code).toBe("EADDRINUSE");
    const fixed = await freePort();
    const relay = await relayTo(port, { port: fixed });
    expect(relay.port).toBe(fixed);
  });

  it("relays HTTP byte for byte", async () => {
    const origin = http.createServer((request, response) => {
      response.setHeader("x-url", request.url ?? "");
      response.end(JSON.stringify({ host: request.headers.host }));
    });
    const originPort = await listenLoopback(origin);
    cleanups.push(() => new Promise<void>((resolve) => origin.close(() => resolve())));
    const relay = await relayTo(originPort);
    const request = `GET /x?y=1 HTTP/1.1\r\nHost: 192.0.2.10:${relay.port}\r\nConnection: close\r\n\r\n`;
    const strip = (bytes: Buffer): string => bytes.toString("latin1").replace(/^Date: .*\r\n/im, "");
    const direct = strip(await rawExchange(originPort, request));
    const relayed = strip(await rawExchange(relay.port, request));
    expect(relayed).toBe(direct);
    expect(relayed).toContain(`{"host":"192.0.2.10:${relay.port}"}`);
  });
});

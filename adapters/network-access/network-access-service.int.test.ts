/**
 * The network-access service over a real leyline.sqlite (temp data dir) and a plain HTTP origin on 127.0.0.1:
 * a response still in progress when sharing is disabled reaches the remote client (origin activity), a wildcard
 * origin is relayed over loopback and counts as direct access (its address is data here: nothing binds 0.0.0.0),
 * the allowed hosts follow the switch, and close() ends everything.
 */
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openLeylineDatabase, type LeylineDatabaseHandle } from "../sqlite/database.ts";
import { createNetworkAccessService, type NetworkAccessService } from "./network-access-service.ts";
import { listenLoopback, LOOPBACK, openConnection, rawExchange, refuses } from "./relay.fixture.ts";

const LAN = "192.0.2.10";
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Origin {
  readonly server: http.Server;
  readonly port: number;
  /** Requests to /slow wait for this; resolves the oldest waiting one. */
  release(): void;
  slowWaiting(): number;
}

async function origin(): Promise<Origin> {
  const waiting: Array<() => void> = [];
  const server = http.createServer((request, response) => {
    const answer = (): void => {
      response.setHeader("content-type", "text/plain");
      response.end(`answered ${request.url ?? ""} for ${request.headers.host ?? ""}`);
    };
    if (request.url === "/slow") waiting.push(answer);
    else answer();
  });
  const port = await listenLoopback(server);
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  );
  return { server, port, release: () => waiting.shift()?.(), slowWaiting: () => waiting.length };
}

async function service(extra: Partial<Parameters<typeof createNetworkAccessService>[0]> = {}): Promise<NetworkAccessService> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "leyline-netsvc-"));
  const handle: LeylineDatabaseHandle = await openLeylineDatabase({ dataDir });
  const created = createNetworkAccessService({
    database: async () => handle.db,
    bindHost: LOOPBACK,
    interfaces: () => ({ eth0: [{ address: LAN, family: "IPv4", internal: false }] }),
    hostname: () => "box",
    closeGraceMs: 3000,
    ...extra,
  });
  cleanups.push(async () => {
    await created.close();
    await handle.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });
  return created;
}

describe("network access service", () => {
  it("lets a response in progress through the relay finish when sharing is disabled, then closes the connection", async () => {
    const target = await origin();
    const access = await service();
    await access.originListening({ address: LOOPBACK, port: target.port }, target.server);
    const relayPort = (await access.update({ enabled: true })).port ?? 0;
    const connection = await openConnection(relayPort);
    connection.socket.write(`GET /slow HTTP/1.1\r\nHost: ${LAN}:${relayPort}\r\n\r\n`);
    await expect.poll(() => target.slowWaiting()).toBe(1);

    const off = await access.update({ enabled: false });
    expect(off).toMatchObject({ enabled: false, port: null });
    expect(await refuses(relayPort)).toBe(true);
    // the origin takes its time; the relay waits for the answer (well within its 3 s grace)
    await new Promise((resolve) => setTimeout(resolve, 100));
    target.release();
    await connection.closed;
    const text = connection.received().toString("latin1");
    expect(text).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(text.endsWith(`answered /slow for ${LAN}:${relayPort}`)).toBe(true);
  });

  it("relays a wildcard origin over loopback and reports direct access; hosts follow the switch", async () => {
    const target = await origin();
    const access = await service();
    expect(access.extraHosts()).toEqual([]);
    // the origin's address as data: a wildcard bind (nothing here listens on it)
    await access.originListening({ address: "0.0.0.0", port: target.port }, target.server);
    expect(await access.get()).toMatchObject({ available: true, enabled: false, directAccess: true, urls: [] });
    expect(access.extraHosts()).toEqual([`${LAN}:${target.port}`]);

    const on = await access.update({ enabled: true });
    const relayPort = on.port ?? 0;
    expect(on).toMatchObject({ enabled: true, directAccess: true, urls: [`http://${LAN}:${relayPort}`] });
    expect(access.extraHosts().sort()).toEqual(
      [`${LAN}:${relayPort}`, `${LAN}:${target.port}`, `box.local:${relayPort}`, `box:${relayPort}`].sort(),
    );
    const reply = (await rawExchange(relayPort, `GET /x HTTP/1.1\r\nHost: box:${relayPort}\r\nConnection: close\r\n\r\n`)).toString();
    expect(reply.endsWith(`answered /x for box:${relayPort}`)).toBe(true);

    await access.update({ enabled: false });
    expect(access.extraHosts()).toEqual([`${LAN}:${target.port}`]);
  });

  it("keeps a loopback origin's hosts empty while off, and refuses updates after close", async () => {
    const target = await origin();
    const access = await service();
    await access.originListening({ address: LOOPBACK, port: target.port }, target.server);
    expect(access.extraHosts()).toEqual([]);
    const relayPort = (await access.update({ enabled: true, port: 0 })).port ?? 0;
    expect(access.extraHosts()).toContain(`${LAN}:${relayPort}`);
    const open = await openConnection(relayPort);
    await access.close();
    expect(await refuses(relayPort)).toBe(true);
    await open.closed;
    expect(access.extraHosts()).toEqual([]);
    await expect(access.update({ enabled: true })).rejects.toThrow("Network access is shutting down");
  });

  it("reports an unreadable database as a 400 failure and keeps it in error", async () => {
    const access = await service({ database: () => Promise.reject(new Error("no disk")) });
    await expect(access.update({ port: 5 })).rejects.toMatchObject({
      code: "invalid_request",
      message: "Could not open the network access settings: no disk",
    });
    await expect(access.get()).rejects.toMatchObject({ code: "invalid_request" });
  });
});

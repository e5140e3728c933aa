/**
 * Security suite: no web page can drive Leyline (issue 9). Over the real app with a real runtime host
 * (in-process pi workers, counted through the host's worker factory) and a real pi session file:
 * - DNS rebinding: `Host: evil.example:PORT` with the matching `Origin` is refused on HTTP (inject) and on a
 *   WebSocket upgrade over a real listening socket, before any runtime starts or any bash command runs;
 * - fetch metadata: `Sec-Fetch-Site: cross-site` / `same-site` without an allowed Origin (what an `<img src>`
 *   or a form sends) is refused on /api GET and POST, so GET /api/pi/state builds no preview and
 *   POST /api/pi/sessions/:id/bash opens no runtime; same-origin, none and absent metadata keep working;
 * - the allow-list: loopback names and addresses, `*.localhost`, the hosts of allowed origins and extra hosts;
 *   a request without Host only on HTTP/1.0;
 * - network access: a non-loopback address (an injected documentation address, 192.0.2.10; traffic only ever goes
 *   to 127.0.0.1 with that Host header) is allowed with the relay's port while sharing is on, and only then.
 */
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import type { FastifyInstance, InjectOptions } from "fastify";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { InProcessWorkerClient } from "../../adapters/runtime-client/in-process-worker-client.ts";
import type { NetworkAccessOptions } from "../../adapters/network-access/network-access-service.ts";
import { freePort } from "../../adapters/network-access/relay.fixture.ts";
import { CROSS_SITE_REFUSED, HOST_NOT_ALLOWED } from "../../api/origin-policy.ts";
import { listenForEvents, runtimeApiSuite } from "../../api/runtime-api.fixture.ts";
import { writeSeedSession } from "../e2e/support/session-seed.ts";

const suite = runtimeApiSuite("leyline-sec-host-");
const { dirs } = suite;

beforeAll(suite.setUp);
afterEach(suite.closeApps);
afterAll(suite.tearDown);

interface Counted {
  app: FastifyInstance;
  /** Worker clients the host and the previewer created (each one is a pi runtime). */
  workers: () => number;
  /** The seeded session's id (a real v3 pi session file in the sessions dir). */
  sessionId: string;
}

const relayHosts = new Set<string>();

const LAN = "192.0.2.10";
/** The relay binds 127.0.0.1 only; the machine's interfaces are a documentation address. */
const networkAccess: NetworkAccessOptions = {
  bindHost: "127.0.0.1",
  interfaces: () => ({ eth0: [{ address: LAN, family: "IPv4", internal: false }] }),
  hostname: () => "leyline-sec-box",
};

/** An app whose worker factory counts every runtime or preview started, over one seeded session. */
async function countedApp(): Promise<Counted> {
  const sessionsDir = path.join(dirs.agentDir, "sessions");
  const { id } = writeSeedSession(sessionsDir, {
    cwd: dirs.cwd,
    messages: ["earlier question", "earlier answer"],
    startMs: Date.parse("2026-01-02T03:04:05Z"),
  });
  let created = 0;
  const app = await suite.makeApp({
    turns: [],
    host: {
      createClient: ({ fauxScript }) => {
        created += 1;
        return InProcessWorkerClient.start({ fauxScript });
      },
    },
    app: { allowedOrigins: ["https://app.example.com"], extraHosts: () => relayHosts, networkAccess },
  });
  await app.leyline.readSide.ready();
  return { app, workers: () => created, sessionId: id };
}

async function send(app: FastifyInstance, options: InjectOptions): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await app.inject(options);
  return { status: res.statusCode, body: res.json<Record<string, unknown>>() };
}

function marker(name: string): string {
  return path.join(dirs.root, `${name}-${Math.random().toString(36).slice(2)}.txt`);
}

/** A WebSocket handshake's outcome: "open", or the refusal's status and body. */
function handshake(url: string, headers: Record<string, string>): Promise<{ opened: true } | { status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, { headers });
    socket.on("unexpected-response", (req, res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (body += chunk));
      res.on("end", () => {
        resolve({ status: res.statusCode ?? 0, body });
        req.destroy();
      });
    });
    socket.on("open", () => {
      socket.close();
      resolve({ opened: true });
    });
    socket.on("error", reject);
  });
}

/** Sends raw bytes over TCP and resolves with the response's status line. */
function rawRequest(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1", () => socket.write(text));
    let received = "";
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => (received += chunk));
    socket.on("end", () => resolve(received.split("\r\n", 1)[0] ?? ""));
    socket.on("error", reject);
  });
}

describe("DNS rebinding: the Host allow-list", () => {
  it("refuses a rebinding Host with its matching Origin on every HTTP route, before bash runs or a runtime starts", async () => {
    const { app, workers, sessionId } = await countedApp();
    const rebinding = { host: "evil.example:8787", origin: "http://evil.example:8787", "sec-fetch-site": "same-origin" };
    const touched = marker("rebinding-bash");
    const attempts: InjectOptions[] = [
      { method: "POST", url: `/api/pi/sessions/${sessionId}/bash`, payload: { command: `touch ${touched}` }, headers: rebinding },
      { method: "GET", url: `/api/pi/state?cwd=${encodeURIComponent(dirs.cwd)}`, headers: rebinding },
      { method: "POST", url: "/api/pi/sessions", payload: { cwd: dirs.cwd }, headers: rebinding },
      { method: "GET", url: "/api/pi/sessions", headers: rebinding },
      // Issue 15's routes: the tree, a label, search (message text of every session) and the project's file list.
      { method: "GET", url: `/api/pi/sessions/${sessionId}/tree`, headers: rebinding },
      { method: "POST", url: `/api/pi/sessions/${sessionId}/label`, payload: { entryId: "x", label: "y" }, headers: rebinding },
      { method: "GET", url: "/api/pi/search?q=secret", headers: rebinding },
      { method: "GET", url: `/api/pi/sessions/${sessionId}/file-mentions?q=env`, headers: rebinding },
      // Issue 17's routes: traces (every run's input and output), their setting and bookmarks, memories, vision.
      { method: "GET", url: "/api/pi/traces?q=secret", headers: rebinding },
      { method: "GET", url: "/api/pi/traces/some-trace", headers: rebinding },
      { method: "PATCH", url: "/api/pi/traces/some-trace", payload: { bookmarked: true }, headers: rebinding },
      { method: "PUT", url: "/api/pi/traces/config", payload: { enabled: false }, headers: rebinding },
      { method: "GET", url: `/api/pi/memories?cwd=${encodeURIComponent(dirs.cwd)}`, headers: rebinding },
      { method: "GET", url: `/api/pi/vision/config?cwd=${encodeURIComponent(dirs.cwd)}`, headers: rebinding },
      { method: "GET", url: "/api/health", headers: { host: "evil.example:8787" } },
      { method: "GET", url: "/internal/diagnostics", headers: { host: "evil.example" } },
      { method: "GET", url: "/", headers: { host: "127.0.0.1.nip.io:8787" } },
      { method: "OPTIONS", url: "/api/pi/sessions", headers: { ...rebinding, "access-control-request-method": "POST" } },
    ];
    for (const attempt of attempts) {
      expect(await send(app, attempt), `${attempt.method} ${attempt.url}`).toEqual({ status: 403, body: { error: HOST_NOT_ALLOWED } });
    }
    expect(fs.existsSync(touched)).toBe(false);
    expect(workers()).toBe(0);
    expect(app.leyline.host.openRuntimes()).toHaveLength(0);
  });

  it("allows loopback names and addresses, *.localhost, allowed-origin hosts and extra hosts (any port)", async () => {
    const { app } = await countedApp();
    const hosts = [
      "localhost:8787",
      "127.0.0.1:8787",
      "127.0.0.1",
      "127.3.2.1:9",
      "[::1]:8787",
      "leyline.localhost:8787",
      "app.example.com",
    ];
    for (const host of hosts) {
      expect((await send(app, { method: "GET", url: "/api/pi/sessions", headers: { host } })).status, host).toBe(200);
    }
    // other IP literals only while an extra host (the network relay) lists them
    for (const host of ["192.168.1.5:8787", "[fe80::1]:9000", "0.0.0.0:8787"]) {
      expect(await send(app, { method: "GET", url: "/api/pi/sessions", headers: { host } }), host).toEqual({
        status: 403,
        body: { error: HOST_NOT_ALLOWED },
      });
    }
    relayHosts.add("192.168.1.5:8787");
    try {
      // the same-origin rule holds for an allowed host
      const sameOrigin = await send(app, {
        method: "GET",
        url: "/api/pi/sessions",
        headers: { host: "192.168.1.5:8787", origin: "http://192.168.1.5:8787" },
      });
      expect(sameOrigin.status).toBe(200);
    } finally {
      relayHosts.clear();
    }
    // the network relay's names join the list while they are in the extra-host set
    expect((await send(app, { method: "GET", url: "/api/health", headers: { host: "leyline-box.lan:8787" } })).status).toBe(403);
    relayHosts.add("leyline-box.lan");
    try {
      expect((await send(app, { method: "GET", url: "/api/health", headers: { host: "leyline-box.lan:8787" } })).status).toBe(200);
    } finally {
      relayHosts.clear();
    }
  });

  it("refuses a WebSocket upgrade with a spoofed Host before upgrading; loopback upgrades still open", async () => {
    const { app } = await countedApp();
    const url = await listenForEvents(app);
    const port = new URL(url).port;
    const spoofed: Array<Record<string, string>> = [
      { host: `evil.example:${port}`, origin: `http://evil.example:${port}` },
      { host: `evil.example:${port}` },
    ];
    for (const headers of spoofed) {
      const refused = await handshake(url, headers);
      expect(refused, JSON.stringify(headers)).toEqual({ status: 403, body: JSON.stringify({ error: HOST_NOT_ALLOWED }) });
    }
    expect(await handshake(url, {})).toEqual({ opened: true });
    expect(
      await handshake(url, { host: `localhost:${port}`, origin: `http://localhost:${port}`, "sec-fetch-site": "same-origin" }),
    ).toEqual({ opened: true });
  });

  it("accepts a request without Host only on HTTP/1.0 (Node answers 400 to HTTP/1.1 without it)", async () => {
    const { app } = await countedApp();
    const port = new URL(await listenForEvents(app)).port;
    expect(await rawRequest(Number(port), "GET /api/health HTTP/1.0\r\n\r\n")).toMatch(/^HTTP\/1\.[01] 200/);
    expect(await rawRequest(Number(port), "GET /api/health HTTP/1.0\r\nHost: evil.example\r\n\r\n")).toMatch(/^HTTP\/1\.[01] 403/);
    expect(await rawRequest(Number(port), "GET /api/health HTTP/1.1\r\nConnection: close\r\n\r\n")).toMatch(/^HTTP\/1\.[01] 400/);
  });
});

describe("network access: the relay's addresses", () => {
  /** One raw HTTP/1.1 request to 127.0.0.1:port with this Host header; resolves with the status and body. */
  function hostRequest(port: number, host: string, url = "/api/health"): Promise<{ status: number; body: string }> {
    return new Promise((resolve, reject) => {
      const socket = net.connect(port, "127.0.0.1", () =>
        socket.write(`GET ${url} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`),
      );
      let received = "";
      socket.setEncoding("utf8");
      socket.on("data", (chunk: string) => (received += chunk));
      socket.on("end", () => {
        const [head = "", body = ""] = received.split("\r\n\r\n", 2);
        resolve({ status: Number(head.slice(9, 12)), body });
      });
      socket.on("error", reject);
    });
  }

  it("allows the interface address with the relay's port while sharing is on, and only then", async () => {
    const { app } = await countedApp();
    const originPort = Number(new URL(await listenForEvents(app)).port);
    const relayPort = await freePort();
    const lanHost = `${LAN}:${relayPort}`;
    const refused = { status: 403, body: JSON.stringify({ error: HOST_NOT_ALLOWED }) };
    try {
      // sharing off (its port saved): the origin refuses the relay's address
      expect((await send(app, { method: "PUT", url: "/api/leyline/network-access", payload: { port: relayPort } })).status).toBe(200);
      expect(await hostRequest(originPort, lanHost)).toEqual(refused);
      expect(await hostRequest(originPort, `leyline-sec-box.local:${relayPort}`)).toEqual(refused);

      const on = await send(app, { method: "PUT", url: "/api/leyline/network-access", payload: { enabled: true } });
      expect(on.body).toMatchObject({ enabled: true, port: relayPort, urls: [`http://${lanHost}`] });
      expect((await hostRequest(originPort, lanHost)).status).toBe(200);
      expect((await hostRequest(relayPort, lanHost)).status).toBe(200);
      expect((await hostRequest(relayPort, `leyline-sec-box:${relayPort}`)).status).toBe(200);
      expect((await hostRequest(relayPort, `leyline-sec-box.local:${relayPort}`)).status).toBe(200);
      // only with the relay's port; the origin itself listens on loopback (no direct access)
      expect(await hostRequest(originPort, `${LAN}:${originPort}`)).toEqual(refused);
      expect(await hostRequest(relayPort, LAN)).toEqual(refused);
      expect(await hostRequest(relayPort, "evil.example")).toEqual(refused);
      // a WebSocket upgrade through the relay with the LAN Host opens
      expect(await handshake(`ws://127.0.0.1:${relayPort}/api/pi/events`, { host: lanHost, origin: `http://${lanHost}` })).toEqual({
        opened: true,
      });

      const off = await send(app, { method: "PUT", url: "/api/leyline/network-access", payload: { enabled: false } });
      expect(off.body).toMatchObject({ enabled: false, port: null });
      expect(await hostRequest(originPort, lanHost)).toEqual(refused);
      expect(await handshake(`ws://127.0.0.1:${originPort}/api/pi/events`, { host: lanHost })).toEqual(refused);
    } finally {
      // the suite's apps share one data dir: leave sharing saved off
      await send(app, { method: "PUT", url: "/api/leyline/network-access", payload: { enabled: false, port: 0 } });
    }
  });
});

describe("fetch metadata on /api", () => {
  it("refuses cross-site and same-site requests without an allowed Origin: no preview, no runtime, no bash", async () => {
    const { app, workers, sessionId } = await countedApp();
    const touched = marker("cross-site-bash");
    for (const site of ["cross-site", "same-site"]) {
      const headers = { host: "127.0.0.1:8787", "sec-fetch-site": site };
      const attempts: InjectOptions[] = [
        { method: "GET", url: `/api/pi/state?cwd=${encodeURIComponent(dirs.cwd)}`, headers },
        {
          method: "GET",
          url: `/api/pi/state?cwd=${encodeURIComponent(dirs.cwd)}&refresh=1`,
          headers: { ...headers, "sec-fetch-mode": "no-cors", "sec-fetch-dest": "image" },
        },
        { method: "POST", url: `/api/pi/sessions/${sessionId}/bash`, payload: { command: `touch ${touched}` }, headers },
        { method: "POST", url: "/api/pi/active-session", payload: { id: sessionId }, headers },
        { method: "POST", url: "/api/pi/sessions", payload: { cwd: dirs.cwd }, headers },
        { method: "GET", url: "/api/pi/sessions", headers },
      ];
      for (const attempt of attempts) {
        expect(await send(app, attempt), `${site} ${attempt.method} ${attempt.url}`).toEqual({
          status: 403,
          body: { error: CROSS_SITE_REFUSED },
        });
      }
    }
    expect(fs.existsSync(touched)).toBe(false);
    expect(workers()).toBe(0);
    expect(app.leyline.host.openRuntimes()).toHaveLength(0);
    // outside /api a cross-site navigation is not refused (here: no built client, so the 404 envelope)
    expect(await send(app, { method: "GET", url: "/sessions/abc", headers: { "sec-fetch-site": "cross-site" } })).toEqual({
      status: 404,
      body: { error: "Not found" },
    });
  });

  it("refuses cross-site WebSocket upgrades without an allowed Origin", async () => {
    const { app } = await countedApp();
    const url = await listenForEvents(app);
    expect(await handshake(url, { "sec-fetch-site": "cross-site" })).toEqual({
      status: 403,
      body: JSON.stringify({ error: CROSS_SITE_REFUSED }),
    });
    expect(await handshake(url, { "sec-fetch-site": "same-site" })).toEqual({
      status: 403,
      body: JSON.stringify({ error: CROSS_SITE_REFUSED }),
    });
    expect(await handshake(url, { "sec-fetch-site": "same-origin", origin: `http://${new URL(url).host}` })).toEqual({ opened: true });
  });

  it("keeps same-origin, none and absent metadata working: a preview is built and bash runs", async () => {
    const { app, workers, sessionId } = await countedApp();
    const sameOrigin = { host: "127.0.0.1:8787", origin: "http://127.0.0.1:8787", "sec-fetch-site": "same-origin" };
    const preview = await send(app, { method: "GET", url: `/api/pi/state?cwd=${encodeURIComponent(dirs.cwd)}`, headers: sameOrigin });
    expect(preview.status, JSON.stringify(preview.body)).toBe(200);
    expect(preview.body["active"]).toMatchObject({ id: "" });
    expect(workers()).toBe(1);
    expect((await send(app, { method: "GET", url: "/api/pi/sessions", headers: { "sec-fetch-site": "none" } })).status).toBe(200);
    const touched = marker("same-origin-bash");
    const bash = await send(app, {
      method: "POST",
      url: `/api/pi/sessions/${sessionId}/bash`,
      payload: { command: `touch ${touched}` },
      headers: { "sec-fetch-site": "same-origin" },
    });
    expect(bash.status, JSON.stringify(bash.body)).toBe(200);
    expect(fs.existsSync(touched)).toBe(true);
    // no metadata at all (curl, the subagent extension's fetch)
    expect((await send(app, { method: "GET", url: "/api/health" })).status).toBe(200);
  });

  it("lets an allowed cross-origin frontend through (browsers label its CORS requests cross-site)", async () => {
    const { app } = await countedApp();
    const res = await app.inject({
      method: "GET",
      url: "/api/pi/sessions",
      headers: { host: "127.0.0.1:8787", origin: "https://app.example.com", "sec-fetch-site": "cross-site", "sec-fetch-mode": "cors" },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers["access-control-allow-origin"]).toBe("https://app.example.com");
    const loopback = await send(app, {
      method: "GET",
      url: "/api/health",
      headers: { origin: "http://localhost:5173", "sec-fetch-site": "same-site" },
    });
    expect(loopback.status).toBe(200);
    expect(
      await send(app, { method: "GET", url: "/api/health", headers: { origin: "https://evil.example", "sec-fetch-site": "cross-site" } }),
    ).toEqual({
      status: 403,
      body: { error: "Origin not allowed" },
    });
  });
});

import { describe, expect, it } from "vitest";
import {
  allowedOriginsFromEnv,
  createOriginPolicy,
  CROSS_SITE_REFUSED,
  HOST_NOT_ALLOWED,
  isLoopbackHost,
  normalizeOrigin,
  ORIGIN_NOT_ALLOWED,
  parseHostHeader,
  type PolicyRequest,
} from "./origin-policy.ts";

describe("origin policy", () => {
  const policy = createOriginPolicy(["https://app.example.com", "http://LAN.example:8080/"]);

  it("allows requests without Origin, loopback origins on any port and scheme, and same-origin requests", () => {
    expect(policy.allows(undefined, "127.0.0.1:8787")).toBe(true);
    for (const origin of ["http://127.0.0.1:5173", "https://127.0.0.1", "http://localhost:3000", "http://localhost", "http://[::1]:8787"]) {
      expect(policy.allows(origin, "127.0.0.1:8787"), origin).toBe(true);
    }
    expect(policy.allows("http://127.0.0.2:8787", "127.0.0.2:8787")).toBe(true);
    expect(policy.allows("http://dev.localhost:8787", "DEV.localhost:8787")).toBe(true);
    expect(policy.allows("http://app.example.com:8787", "app.example.com:8787")).toBe(true);
  });

  it("counts same-origin only for an allowed Host: a rebinding page is same-origin with its own name", () => {
    expect(policy.allows("http://evil.example:8787", "evil.example:8787")).toBe(false);
    expect(policy.allows("http://myhost:8787", "MYHOST:8787")).toBe(false);
    expect(createOriginPolicy([], { extraHosts: () => ["myhost"] }).allows("http://myhost:8787", "MYHOST:8787")).toBe(true);
  });

  it("counts a LAN address as same-origin only while extra hosts list it (network access on)", () => {
    expect(policy.allows("http://192.168.1.5:8787", "192.168.1.5:8787")).toBe(false);
    const sharing = createOriginPolicy([], { extraHosts: () => ["192.168.1.5:8787", "192.168.1.5:80"] });
    expect(sharing.allows("http://192.168.1.5:8787", "192.168.1.5:8787")).toBe(true);
    expect(sharing.allows("http://192.168.1.5", "192.168.1.5:80")).toBe(true);
    expect(sharing.allows("http://192.168.1.5:8787", "192.168.1.5:9999")).toBe(false);
  });

  it("allows configured origins after normalisation and rejects everything else", () => {
    expect(policy.allows("https://app.example.com", "127.0.0.1:8787")).toBe(true);
    expect(policy.allows("http://lan.example:8080", "127.0.0.1:8787")).toBe(true);
    for (const origin of [
      "https://evil.example",
      "http://app.example.com",
      "https://app.example.com:444",
      "http://127.0.0.2:8787",
      "http://localhost.evil.example",
      "null",
      "file://",
      "not a url",
      "",
    ]) {
      expect(policy.allows(origin, "127.0.0.1:8787"), origin).toBe(false);
    }
    expect(policy.allows("http://192.168.1.5:8787", "192.168.1.5:9999")).toBe(false);
  });

  it("reads LEYLINE_SERVER_ALLOWED_ORIGINS as a comma-separated list, dropping blanks and non-http entries", () => {
    expect(
      allowedOriginsFromEnv({
        LEYLINE_SERVER_ALLOWED_ORIGINS: " https://a.example , ,ftp://b.example,http://c.example:81/x, https://a.example",
      }),
    ).toEqual(["https://a.example", "http://c.example:81"]);
    expect(allowedOriginsFromEnv({})).toEqual([]);
    expect(normalizeOrigin("HTTPS://A.Example:443")).toBe("https://a.example");
    expect(normalizeOrigin("http://user:pw@a.example")).toBeNull();
  });

  it("parses Host header values strictly", () => {
    expect(parseHostHeader("LocalHost:8787")).toEqual({ hostname: "localhost", port: "8787" });
    expect(parseHostHeader("[::1]")).toEqual({ hostname: "[::1]", port: null });
    expect(parseHostHeader("[fe80::1]:80")).toEqual({ hostname: "[fe80::1]", port: "80" });
    for (const bad of [
      "",
      "a b",
      "user@localhost",
      "localhost:99999",
      "localhost:",
      "[::g]",
      "[::1",
      "::1",
      "localhost.",
      ".localhost",
      "a..b",
      "x/y",
    ]) {
      expect(parseHostHeader(bad), bad).toBeNull();
    }
  });
});

describe("host allow-list, origin and fetch metadata (refusal table)", () => {
  const relay = new Set<string>();
  const policy = createOriginPolicy(["https://app.example.com", "http://lan.example:8080"], { extraHosts: () => relay });
  const request = (overrides: Partial<PolicyRequest>): PolicyRequest => ({
    url: "/api/pi/state",
    host: "127.0.0.1:8787",
    origin: undefined,
    secFetchSite: undefined,
    httpVersion: "1.1",
    ...overrides,
  });

  it.each([
    "localhost",
    "localhost:8787",
    "LOCALHOST:1",
    "127.0.0.1:8787",
    "127.0.0.1",
    "127.9.8.7:80",
    "[::1]:8787",
    "[::1]",
    "leyline.localhost:8787",
    "a.b.localhost",
    "127.255.255.254:1",
    "[0:0:0:0:0:0:0:1]:8787",
    "[::ffff:127.0.0.1]:8787",
    "[::ffff:7f00:1]",
    "app.example.com",
    "app.example.com:443",
    "lan.example:9999",
  ])("allows Host %s", (host) => {
    expect(policy.refusal(request({ host }))).toBeNull();
  });

  it.each([
    "evil.example:8787",
    "evil.example",
    "localhost.evil.example",
    "localhost.",
    "127.0.0.1.nip.io:8787",
    "7f000001.rbndr.us:8787",
    "127.1:8787",
    "2130706433:8787",
    "example.com",
    "app.example.com.evil.example",
    "[::1]:99999",
    "localhost:8787, evil.example",
    "",
    // non-loopback IP literals: only while extra hosts (the network-access relay) list them
    "192.168.1.5:8787",
    "10.0.0.1",
    "0.0.0.0:8787",
    "128.0.0.1",
    "[fe80::1]:8787",
    "[2001:db8::1]",
    "[::ffff:192.0.2.10]",
    "[::]:8787",
  ])("refuses Host %s with 'Host not allowed'", (host) => {
    expect(policy.refusal(request({ host }))).toBe(HOST_NOT_ALLOWED);
    expect(policy.refusal(request({ host, url: "/" }))).toBe(HOST_NOT_ALLOWED);
  });

  it("refuses the DNS-rebinding pair (Host and a matching Origin of the attacker's name)", () => {
    expect(policy.refusal(request({ host: "evil.example:8787", origin: "http://evil.example:8787", secFetchSite: "same-origin" }))).toBe(
      HOST_NOT_ALLOWED,
    );
    expect(policy.refusal(request({ host: "127.0.0.1:8787", origin: "http://evil.example:8787" }))).toBe(ORIGIN_NOT_ALLOWED);
  });

  it("allows a missing Host only on HTTP/1.0", () => {
    expect(policy.refusal(request({ host: undefined, httpVersion: "1.0" }))).toBeNull();
    expect(policy.refusal(request({ host: undefined, httpVersion: "1.1" }))).toBe(HOST_NOT_ALLOWED);
    expect(policy.refusal(request({ host: undefined, httpVersion: "2.0" }))).toBe(HOST_NOT_ALLOWED);
  });

  it("reads extra hosts (the network relay's names) on every request, by name or name:port", () => {
    expect(policy.refusal(request({ host: "leyline-box.lan:8787" }))).toBe(HOST_NOT_ALLOWED);
    relay.add("Leyline-Box.lan");
    relay.add("pinned.lan:9000");
    expect(policy.refusal(request({ host: "leyline-box.lan:8787" }))).toBeNull();
    expect(policy.refusal(request({ host: "leyline-box.lan" }))).toBeNull();
    expect(policy.refusal(request({ host: "pinned.lan:9000" }))).toBeNull();
    expect(policy.refusal(request({ host: "pinned.lan:9001" }))).toBe(HOST_NOT_ALLOWED);
    expect(policy.refusal(request({ host: "leyline-box.lan:8787", origin: "http://leyline-box.lan:8787" }))).toBeNull();
    relay.clear();
    expect(policy.refusal(request({ host: "leyline-box.lan:8787" }))).toBe(HOST_NOT_ALLOWED);
  });

  it("allows a non-loopback IP literal only with the port extra hosts list it with, and only while listed", () => {
    expect(policy.refusal(request({ host: "192.0.2.10:9000" }))).toBe(HOST_NOT_ALLOWED);
    relay.add("192.0.2.10:9000");
    try {
      expect(policy.refusal(request({ host: "192.0.2.10:9000" }))).toBeNull();
      expect(
        policy.refusal(request({ host: "192.0.2.10:9000", origin: "http://192.0.2.10:9000", secFetchSite: "same-origin" })),
      ).toBeNull();
      expect(policy.refusal(request({ host: "192.0.2.10:8787" }))).toBe(HOST_NOT_ALLOWED);
      expect(policy.refusal(request({ host: "192.0.2.10" }))).toBe(HOST_NOT_ALLOWED);
    } finally {
      relay.clear();
    }
    expect(policy.refusal(request({ host: "192.0.2.10:9000" }))).toBe(HOST_NOT_ALLOWED);
  });

  it("reads a Host without a port as port 80 (browsers leave the default port out)", () => {
    const onEighty = createOriginPolicy([], { extraHosts: () => ["192.0.2.10:80"] });
    expect(onEighty.allowsHost("192.0.2.10")).toBe(true);
    expect(onEighty.allowsHost("192.0.2.10:80")).toBe(true);
    expect(onEighty.allowsHost("192.0.2.10:81")).toBe(false);
    expect(createOriginPolicy([], { extraHosts: () => ["192.0.2.10:9000"] }).allowsHost("192.0.2.10")).toBe(false);
  });

  it("allows every IP-literal Host (any port) while the origin itself listens outside loopback, and names only when listed", () => {
    let direct = false;
    const origin = createOriginPolicy([], { anyAddress: () => direct });
    expect(origin.allowsHost("192.0.2.10:8080")).toBe(false);
    direct = true;
    for (const host of ["192.0.2.10:8080", "10.1.2.3", "[2001:db8::1]:9000"]) expect(origin.allowsHost(host), host).toBe(true);
    // A rebinding page sends its name: still refused.
    expect(origin.allowsHost("evil.example:8787")).toBe(false);
    direct = false;
    expect(origin.allowsHost("10.1.2.3")).toBe(false);
  });

  it("tells loopback hosts from the others", () => {
    for (const host of ["localhost", "a.localhost", "127.0.0.1", "127.1.2.3", "[::1]", "[0::1]", "[::ffff:127.0.0.1]"]) {
      expect(isLoopbackHost(host), host).toBe(true);
    }
    for (const host of ["0.0.0.0", "128.0.0.1", "192.0.2.10", "[::]", "[fe80::1]", "[::ffff:192.0.2.10]", "localhost.example", "[zz]"]) {
      expect(isLoopbackHost(host), host).toBe(false);
    }
  });

  it.each([
    // [site, origin, url, expected]
    ["cross-site", undefined, "/api/pi/state?cwd=/tmp", CROSS_SITE_REFUSED],
    ["same-site", undefined, "/api/pi/sessions/abc/bash", CROSS_SITE_REFUSED],
    ["Cross-Site", undefined, "/api", CROSS_SITE_REFUSED],
    ["cross-site", undefined, "/api/pi/events", CROSS_SITE_REFUSED],
    ["cross-site", "https://evil.example", "/api/pi/state", ORIGIN_NOT_ALLOWED],
    ["same-site", "http://127.0.0.2:8787", "/api/pi/state", ORIGIN_NOT_ALLOWED],
    // an allowed cross-origin frontend (CORS) is labelled cross-site or same-site by browsers
    ["cross-site", "https://app.example.com", "/api/pi/state", null],
    ["same-site", "http://localhost:5173", "/api/pi/state", null],
    ["cross-site", "http://[::1]:5173", "/api/pi/sessions", null],
    // same-origin, none and no header keep working
    ["same-origin", undefined, "/api/pi/state", null],
    ["same-origin", "http://127.0.0.1:8787", "/api/pi/state", null],
    ["none", undefined, "/api/pi/state", null],
    [undefined, undefined, "/api/pi/state", null],
    // outside /api: cross-site navigations to the client's pages still load
    ["cross-site", undefined, "/", null],
    ["cross-site", undefined, "/sessions/abc", null],
    ["same-site", undefined, "/apix", null],
  ])("Sec-Fetch-Site %s with Origin %s on %s → %s", (secFetchSite, origin, url, expected) => {
    expect(policy.refusal(request({ secFetchSite, origin, url }))).toBe(expected);
  });
});

import { describe, expect, it } from "vitest";
import {
  type InterfaceAddress,
  isDirectAccess,
  isLoopbackAddress,
  listenFailureMessage,
  NETWORK_ACCESS_KEY,
  NETWORK_ACCESS_PORT_KEY,
  networkAccessHosts,
  type NetworkAccessState,
  parseSavedNetworkAccess,
  planNetworkAccessUpdate,
  relayTargetHost,
  savedNetworkAccessValues,
  sharingUrls,
} from "./network-access.ts";

const addresses: InterfaceAddress[] = [
  { address: "127.0.0.1", family: "IPv4", internal: true },
  { address: "::1", family: "IPv6", internal: true },
  { address: "192.0.2.10", family: "IPv4", internal: false },
  { address: "2001:db8::10", family: "IPv6", internal: false },
  { address: "198.51.100.7", family: "IPv4", internal: false },
  { address: "192.0.2.10", family: "IPv4", internal: false },
];

describe("saved preference", () => {
  it("reads the stored values, and anything it did not write as the defaults", () => {
    expect(parseSavedNetworkAccess({})).toEqual({ enabled: false, port: 0 });
    expect(parseSavedNetworkAccess({ [NETWORK_ACCESS_KEY]: "true", [NETWORK_ACCESS_PORT_KEY]: "8080" })).toEqual({
      enabled: true,
      port: 8080,
    });
    expect(parseSavedNetworkAccess({ [NETWORK_ACCESS_KEY]: "false", [NETWORK_ACCESS_PORT_KEY]: "65535" })).toEqual({
      enabled: false,
      port: 65535,
    });
    for (const port of ["65536", "-1", "1.5", "", "abc", " 80", "080x", "999999"]) {
      expect(parseSavedNetworkAccess({ [NETWORK_ACCESS_KEY]: "yes", [NETWORK_ACCESS_PORT_KEY]: port }), port).toEqual({
        enabled: false,
        port: 0,
      });
    }
  });

  it("writes only the fields given, as the text rows it reads back", () => {
    expect(savedNetworkAccessValues({ port: 0 })).toEqual({ [NETWORK_ACCESS_PORT_KEY]: "0" });
    expect(savedNetworkAccessValues({ enabled: true, port: 4321 })).toEqual({
      [NETWORK_ACCESS_KEY]: "true",
      [NETWORK_ACCESS_PORT_KEY]: "4321",
    });
    expect(parseSavedNetworkAccess(savedNetworkAccessValues({ enabled: false, port: 1 }))).toEqual({ enabled: false, port: 1 });
  });
});

describe("planNetworkAccessUpdate", () => {
  const off: NetworkAccessState = { saved: { enabled: false, port: 8080 }, relayPort: null, available: true };
  const onFixed: NetworkAccessState = { saved: { enabled: true, port: 8080 }, relayPort: 8080, available: true };
  const onAuto: NetworkAccessState = { saved: { enabled: true, port: 0 }, relayPort: 40123, available: true };

  it("saves only the port when sharing stays off, even when the saved switch is on (a failed restore)", () => {
    expect(planNetworkAccessUpdate(off, { port: 9000 })).toEqual({ type: "save-port", port: 9000 });
    const failedRestore: NetworkAccessState = { saved: { enabled: true, port: 8080 }, relayPort: null, available: true };
    expect(planNetworkAccessUpdate(failedRestore, { port: 9000 })).toEqual({ type: "save-port", port: 9000 });
    expect(planNetworkAccessUpdate({ ...off, available: false }, { port: 9000 })).toEqual({ type: "save-port", port: 9000 });
  });

  it("disables with the saved port unless one is given", () => {
    expect(planNetworkAccessUpdate(onFixed, { enabled: false })).toEqual({ type: "disable", port: 8080 });
    expect(planNetworkAccessUpdate(onFixed, { enabled: false, port: 7000 })).toEqual({ type: "disable", port: 7000 });
    expect(planNetworkAccessUpdate(off, { enabled: false })).toEqual({ type: "disable", port: 8080 });
  });

  it("needs the origin's address to enable", () => {
    expect(planNetworkAccessUpdate({ ...off, available: false }, { enabled: true })).toEqual({ type: "unavailable" });
  });

  it("binds at the saved port, or the given one, when nothing listens", () => {
    expect(planNetworkAccessUpdate(off, { enabled: true })).toEqual({ type: "bind", port: 8080 });
    expect(planNetworkAccessUpdate(off, { enabled: true, port: 0 })).toEqual({ type: "bind", port: 0 });
  });

  it("keeps the listener for a repeated enable or its own port as a fixed port; fixed to automatic binds anew", () => {
    expect(planNetworkAccessUpdate(onFixed, { enabled: true })).toEqual({ type: "keep", port: 8080, save: false });
    expect(planNetworkAccessUpdate(onFixed, { port: 8080 })).toEqual({ type: "keep", port: 8080, save: false });
    expect(planNetworkAccessUpdate(onAuto, { enabled: true })).toEqual({ type: "keep", port: 0, save: false });
    expect(planNetworkAccessUpdate(onAuto, { port: 40123 })).toEqual({ type: "keep", port: 40123, save: true });
    expect(planNetworkAccessUpdate(onFixed, { port: 0 })).toEqual({ type: "bind", port: 0 });
  });

  it("binds a replacement for another port while the listener runs (a port-only update keeps sharing on)", () => {
    expect(planNetworkAccessUpdate(onFixed, { port: 9000 })).toEqual({ type: "bind", port: 9000 });
    expect(planNetworkAccessUpdate(onAuto, { enabled: true, port: 9000 })).toEqual({ type: "bind", port: 9000 });
  });
});

describe("addresses", () => {
  it("tells loopback, wildcard and other addresses apart", () => {
    for (const address of ["127.0.0.1", "127.8.9.10", "::1", "::ffff:127.0.0.1"]) {
      expect(isLoopbackAddress(address), address).toBe(true);
      expect(isDirectAccess(address), address).toBe(false);
    }
    for (const address of ["0.0.0.0", "::", "192.0.2.10", "2001:db8::1", "128.0.0.1"]) {
      expect(isDirectAccess(address), address).toBe(true);
    }
  });

  it("relays a wildcard origin to loopback and any other to itself", () => {
    expect(relayTargetHost("0.0.0.0")).toBe("127.0.0.1");
    expect(relayTargetHost("::")).toBe("::1");
    expect(relayTargetHost("127.0.0.1")).toBe("127.0.0.1");
    expect(relayTargetHost("192.0.2.10")).toBe("192.0.2.10");
  });

  it("lists sharing URLs for non-internal IPv4 addresses, once each", () => {
    expect(sharingUrls(addresses, 8080)).toEqual(["http://192.0.2.10:8080", "http://198.51.100.7:8080"]);
    expect(sharingUrls([], 8080)).toEqual([]);
  });

  it("allows the relay's names only while it listens, and the interfaces on the origin's port only for a non-loopback origin", () => {
    const base = { addresses, hostname: "Leyline-Box", origin: { address: "127.0.0.1", port: 8787 } };
    expect(networkAccessHosts({ ...base, relayPort: null })).toEqual([]);
    expect(networkAccessHosts({ ...base, relayPort: 9000 })).toEqual([
      "192.0.2.10:9000",
      "198.51.100.7:9000",
      "leyline-box:9000",
      "leyline-box.local:9000",
    ]);
    expect(networkAccessHosts({ ...base, hostname: "box.local", relayPort: 9000 })).toContain("box.local:9000");
    expect(networkAccessHosts({ ...base, hostname: "box.local", relayPort: 9000 })).not.toContain("box.local.local:9000");
    expect(networkAccessHosts({ ...base, relayPort: null, origin: { address: "0.0.0.0", port: 8787 } })).toEqual([
      "192.0.2.10:8787",
      "198.51.100.7:8787",
      "[2001:db8::10]:8787",
    ]);
    expect(networkAccessHosts({ ...base, relayPort: null, origin: { address: "192.0.2.10", port: 8787 } })).toContain("192.0.2.10:8787");
    expect(networkAccessHosts({ ...base, relayPort: null, origin: null })).toEqual([]);
  });
});

describe("listenFailureMessage", () => {
  it("words the usual bind failures", () => {
    expect(listenFailureMessage("EADDRINUSE", "0.0.0.0", 8080, "x")).toBe("Port 8080 is already in use");
    expect(listenFailureMessage("EACCES", "0.0.0.0", 80, "x")).toBe("Permission denied to listen on port 80");
    expect(listenFailureMessage("EADDRNOTAVAIL", "192.0.2.10", 80, "x")).toBe("Address 192.0.2.10 is not available on this machine");
    expect(listenFailureMessage(undefined, "0.0.0.0", 80, "boom")).toBe("Could not listen on port 80: boom");
  });
});

import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import type { NetworkAccess } from "../../api/network-access.ts";
import { noAddressNote, operationLabel, PORT_MAX, portApply, readPort, savedPortLabel, sharingSummary } from "./network-access-view.ts";

const state = (over: Partial<NetworkAccess> = {}): NetworkAccess => ({
  available: true,
  enabled: false,
  port: null,
  configuredPort: 0,
  urls: [],
  directAccess: false,
  error: "",
  ...over,
});

describe("readPort", () => {
  test.prop([fc.integer({ min: 0, max: PORT_MAX })])("reads every port it prints, with spaces around", (port) => {
    expect(readPort(String(port))).toEqual({ ok: true, port });
    expect(readPort(` ${port}\t`)).toEqual({ ok: true, port });
  });

  test.prop([fc.integer({ min: PORT_MAX + 1, max: Number.MAX_SAFE_INTEGER })])("refuses numbers above 65535", (port) => {
    const reading = readPort(String(port));
    expect(reading.ok).toBe(false);
    if (!reading.ok) expect(reading.message).toContain("from 0 to 65535");
  });

  test.prop([fc.string().filter((text) => !/^\s*\d+\s*$/.test(text))])("refuses anything that is not digits", (text) => {
    expect(readPort(text).ok).toBe(false);
  });

  it("says what to enter, in words", () => {
    expect(readPort("")).toEqual({ ok: false, message: "Enter a port from 0 to 65535 (0 picks a free port automatically)." });
    expect(readPort("-1")).toEqual({ ok: false, message: "The port must be a whole number from 0 to 65535." });
    expect(readPort("80.5")).toEqual({ ok: false, message: "The port must be a whole number from 0 to 65535." });
    expect(readPort("1e3")).toEqual({ ok: false, message: "The port must be a whole number from 0 to 65535." });
    expect(readPort("70000")).toEqual({ ok: false, message: "The port must be from 0 to 65535; 70000 is too large." });
    expect(readPort("0080")).toEqual({ ok: true, port: 80 });
  });
});

describe("portApply", () => {
  test.prop([fc.integer({ min: 0, max: PORT_MAX }), fc.integer({ min: 0, max: PORT_MAX })])(
    "sends a valid port only when it differs from the saved one",
    (port, saved) => {
      expect(portApply(String(port), saved)).toEqual(port === saved ? { kind: "unchanged" } : { kind: "send", port });
    },
  );

  it("refuses an invalid port before anything is sent", () => {
    expect(portApply("abc", 0)).toEqual({ kind: "invalid", message: "The port must be a whole number from 0 to 65535." });
  });
});

describe("the state in words", () => {
  it("names the saved port, Automatic for 0", () => {
    expect(savedPortLabel(0)).toBe("Automatic");
    expect(savedPortLabel(8123)).toBe("8123");
  });

  it("sums up sharing on, off and unavailable", () => {
    expect(sharingSummary(state({ enabled: true, port: 51234 }))).toBe("On: shared on port 51234 (chosen automatically).");
    expect(sharingSummary(state({ enabled: true, port: 8123, configuredPort: 8123 }))).toBe("On: shared on port 8123.");
    expect(sharingSummary(state())).toBe("Off: not shared on the network.");
    expect(sharingSummary(state({ available: false }))).toBe("Off: sharing is not available.");
  });

  it("says no address was found only while sharing is on without URLs, with the port", () => {
    expect(noAddressNote(state({ enabled: true, port: 8123 }))).toBe(
      "No network address was found for this computer. Sharing listens on port 8123: use this computer's address with that port.",
    );
    expect(noAddressNote(state({ enabled: true, port: 8123, urls: ["http://192.168.1.5:8123/"] }))).toBeNull();
    expect(noAddressNote(state())).toBeNull();
  });

  it("has progress words for every request", () => {
    expect(["load", "enable", "disable", "port"].map((op) => operationLabel(op as "load"))).toEqual([
      "Reading the sharing state…",
      "Turning sharing on…",
      "Turning sharing off…",
      "Applying the port…",
    ]);
  });
});

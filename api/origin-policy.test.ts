import { describe, expect, it } from "vitest";
import { allowedOriginsFromEnv, createOriginPolicy, normalizeOrigin } from "./origin-policy.ts";

describe("origin policy", () => {
  const policy = createOriginPolicy(["https://app.example.com", "http://LAN.example:8080/"]);

  it("allows requests without Origin, loopback origins on any port and scheme, and same-origin requests", () => {
    expect(policy.allows(undefined, "127.0.0.1:8787")).toBe(true);
    for (const origin of ["http://127.0.0.1:5173", "https://127.0.0.1", "http://localhost:3000", "http://localhost", "http://[::1]:8787"]) {
      expect(policy.allows(origin, "127.0.0.1:8787"), origin).toBe(true);
    }
    expect(policy.allows("http://192.168.1.5:8787", "192.168.1.5:8787")).toBe(true);
    expect(policy.allows("http://myhost:8787", "MYHOST:8787")).toBe(true);
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
    expect(allowedOriginsFromEnv({ LEYLINE_SERVER_ALLOWED_ORIGINS: " https://a.example , ,ftp://b.example,http://c.example:81/x, https://a.example" })).toEqual([
      "https://a.example",
      "http://c.example:81",
    ]);
    expect(allowedOriginsFromEnv({})).toEqual([]);
    expect(normalizeOrigin("HTTPS://A.Example:443")).toBe("https://a.example");
    expect(normalizeOrigin("http://user:pw@a.example")).toBeNull();
  });
});

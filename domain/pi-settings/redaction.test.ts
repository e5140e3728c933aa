import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { containsRedaction, displayUrl, isPublicLink, REDACTED, redactSecrets, safeBaseUrl } from "./redaction.ts";

// Secrets and credentials come from an alphabet the marker "[redacted]" and the generated hosts do not use, so
// "the output does not contain it" can only fail by a leak.
const SECRET_CHARS = "0123456789ABFGHIJKLMNOPQSUVWXYZ_-".split("");
const secretArb = fc.array(fc.constantFrom(...SECRET_CHARS), { minLength: 1, maxLength: 12 }).map((chars) => chars.join(""));
const credentialArb = fc
  .array(fc.constantFrom(..."0123456789XYZQ".split("")), { minLength: 3, maxLength: 10 })
  .map((c) => `Q${c.join("")}`);
const hostArb = fc.constantFrom("example.com", "mcp.host.dev", "127.0.0.1", "[::1]", "localhost:8080");
const pathArb = fc.constantFrom("", "/", "/mcp", "/a/b/", "/v1/sse");

describe("displayUrl", () => {
  it("removes credentials and redacts query values and the fragment, keeping parameter names", () => {
    expect(displayUrl("https://user:pw@x.dev/mcp?token=abc&mode=1#frag")).toBe(
      "https://x.dev/mcp?token=[redacted]&mode=[redacted]#[redacted]",
    );
    expect(displayUrl("https://x.dev/mcp?secretflag")).toBe("https://x.dev/mcp?[redacted]");
    expect(displayUrl("https://x.dev/mcp")).toBe("https://x.dev/mcp");
    expect(displayUrl("https://x.dev/mcp?#")).toBe("https://x.dev/mcp");
  });

  it("treats the forms the URL parser reads as credentials as credentials", () => {
    expect(displayUrl("https:\\\\alice:pw@x.dev/mcp")).toBe("https://x.dev/mcp");
    expect(displayUrl("https://al\tice@x.dev/")).toBe("https://x.dev/");
  });

  it("cuts an unparseable URL by hand", () => {
    expect(displayUrl("not a url user:pw@host/x?k=v#f")).toBe("host/x?k=[redacted]#[redacted]");
    expect(displayUrl("http://user:pw@bad host/x?y")).toBe("http://bad host/x?[redacted]");
  });

  it("never shows the user name or password (property)", () => {
    fc.assert(
      fc.property(credentialArb, credentialArb, hostArb, pathArb, fc.boolean(), (user, password, host, path, mangle) => {
        const url = `${mangle ? "https:\\\\" : "https://"}${user}:${password}@${host}${path}?k=${password}#${user}`;
        const shown = displayUrl(url);
        expect(shown).not.toContain(user);
        expect(shown).not.toContain(password);
      }),
    );
  });

  it("never shows a query value or fragment of arbitrary text (property)", () => {
    fc.assert(
      fc.property(fc.string(), credentialArb, credentialArb, (prefix, value, fragment) => {
        const shown = displayUrl(`${prefix.replace(/[?#]/g, "")}?name=${value}#${fragment}`);
        expect(shown).not.toContain(value);
        expect(shown).not.toContain(fragment);
      }),
    );
  });
});

describe("safeBaseUrl", () => {
  it("keeps an HTTP(S) URL without credentials, query or fragment as written", () => {
    expect(safeBaseUrl("https://api.example.com/v1")).toBe("https://api.example.com/v1");
    expect(safeBaseUrl("http://127.0.0.1:11434")).toBe("http://127.0.0.1:11434");
  });

  it.each([
    "https://user:pw@api.example.com",
    "https://@api.example.com",
    "https:\\\\user@api.example.com",
    "https://api.example.com/v1?key=x",
    "https://api.example.com/v1?",
    "https://api.example.com/#x",
    " https://api.example.com",
    "ftp://api.example.com",
    "not a url",
    "",
  ])("gives an empty string for %j", (url) => {
    expect(safeBaseUrl(url)).toBe("");
  });
});

describe("isPublicLink", () => {
  it("accepts HTTP(S) links without credentials only", () => {
    expect(isPublicLink("https://auth.example.com/device?code=1")).toBe(true);
    expect(isPublicLink("http://localhost:1455/callback")).toBe(true);
    expect(isPublicLink("https://user@auth.example.com")).toBe(false);
    expect(isPublicLink("javascript:alert(1)")).toBe(false);
    expect(isPublicLink("file:///etc/passwd")).toBe(false);
    expect(isPublicLink("nonsense")).toBe(false);
  });
});

describe("redactSecrets", () => {
  it("replaces every occurrence, longest secret first, and ignores empty secrets", () => {
    expect(redactSecrets("token abc and abcdef and abc", ["abc", "abcdef", ""])).toBe(`token ${REDACTED} and ${REDACTED} and ${REDACTED}`);
    expect(redactSecrets("nothing here", [])).toBe("nothing here");
  });

  it("hides overlapping secrets whole", () => {
    expect(redactSecrets("xxAAB-BCCyy", ["AAB-B", "B-BCC"])).toBe(`xx${REDACTED}CCyy`);
  });

  it("leaves no secret in the text (property)", () => {
    fc.assert(
      fc.property(
        fc.array(secretArb, { maxLength: 5 }),
        fc.array(fc.oneof(fc.string(), secretArb), { maxLength: 12 }),
        (secrets, pieces) => {
          const out = redactSecrets(pieces.join(""), secrets);
          for (const secret of secrets) expect(out).not.toContain(secret);
        },
      ),
    );
  });

  it("changes nothing without a secret in the text (property)", () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        expect(redactSecrets(text, [`${text}!missing`])).toBe(text);
      }),
    );
  });

  it("recognises redacted display values", () => {
    expect(containsRedaction(`Bearer ${REDACTED}`)).toBe(true);
    expect(containsRedaction("Bearer abc")).toBe(false);
  });
});

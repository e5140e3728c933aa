import { validateMcpServerConfig } from "@earendil-works/pi-mcp";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { deleteMcpServer, editMcpServer, type McpEditValues, mcpActionTarget, mcpInventory, mcpOperationKey } from "./mcp-config.ts";
import { mcpEntryError, mcpNamespace } from "./mcp-config-validation.ts";

const SECRET = "sk-live-0123456789abcdef";
const ENV_SECRET = "ghp_envvalue987654";
const CLIENT_SECRET = "oauth-client-secret-42";

const file = (servers: Record<string, unknown>, extra: Record<string, unknown> = {}): string =>
  `${JSON.stringify({ ...extra, mcpServers: servers }, null, 2)}\n`;

const FULL = file({
  docs: {
    url: "https://bob:hunter2pw@docs.example.com/mcp?token=querysecret1#fragsecret",
    headers: { Authorization: `Bearer ${SECRET}`, "X-Team": "platform-team" },
    oauth: { clientId: "leyline", clientSecret: CLIENT_SECRET, scope: "read write", callbackPort: 8765 },
    timeout: 30,
  },
  local: {
    command: `/usr/bin/run-with-${SECRET}`,
    args: ["--token", "argsecret"],
    env: { GITHUB_TOKEN: ENV_SECRET },
    cwd: "/srv/tools",
    enabled: false,
    exposure: "codemode-deferred",
    description: "kept",
  },
});

function parsed(text: string): Record<string, Record<string, unknown>> {
  return (JSON.parse(text) as { mcpServers: Record<string, Record<string, unknown>> }).mcpServers;
}

function edit(text: string, name: string, values: McpEditValues, create = false) {
  return editMcpServer(text, { name, create, values });
}

function editedText(text: string, name: string, values: McpEditValues, create = false): string {
  const result = edit(text, name, values, create);
  if (!result.ok) throw new Error(`edit refused: ${result.message}`);
  return result.text;
}

describe("mcpInventory", () => {
  it("lists nothing for a missing or empty file", () => {
    expect(mcpInventory(null, "r0")).toEqual({ revision: "r0", servers: [] });
    expect(mcpInventory("", "r0")).toEqual({ revision: "r0", servers: [] });
  });

  it("shows servers without header, env, argument or client-secret values, with URLs redacted", () => {
    const inventory = mcpInventory(FULL, "r1");
    expect(inventory.servers).toEqual([
      {
        name: "docs",
        transport: "http",
        enabled: true,
        exposure: "codemode",
        url: "https://docs.example.com/mcp?token=[redacted]#[redacted]",
        timeout: 30,
        headers: [
          { name: "Authorization", configured: true },
          { name: "X-Team", configured: true },
        ],
        env: [],
        oauth: { clientId: "leyline", scope: "read write", callbackPort: 8765, clientSecretConfigured: true },
      },
      {
        name: "local",
        transport: "stdio",
        enabled: false,
        exposure: "codemode-deferred",
        command: "/usr/bin/run-with-[redacted]",
        cwd: "/srv/tools",
        argsConfigured: true,
        argsCount: 2,
        headers: [],
        env: [{ name: "GITHUB_TOKEN", configured: true }],
        oauth: {},
      },
    ]);
    const shown = JSON.stringify(inventory);
    for (const secret of [
      SECRET,
      ENV_SECRET,
      CLIENT_SECRET,
      "hunter2pw",
      "bob",
      "querysecret1",
      "fragsecret",
      "argsecret",
      "platform-team",
    ]) {
      expect(shown).not.toContain(secret);
    }
  });

  it("lists invalid entries with their error and keeps the others", () => {
    const inventory = mcpInventory(
      file({
        ok: { command: "node" },
        notObject: "npx thing",
        sse: { type: "sse", url: "https://x.dev/sse" },
        neither: { enabled: true },
        badTimeout: { command: "node", timeout: -1 },
        "ok-2": { url: "https://a.dev/mcp" },
        ok_2: { url: "https://b.dev/mcp" },
      }),
      "r",
    );
    const errors = Object.fromEntries(inventory.servers.map((server) => [server.name, server.error]));
    expect(errors).toEqual({
      ok: undefined,
      notObject: 'server "notObject" must be an object',
      sse: 'server "sse": legacy SSE transport is not supported; use the streamable HTTP URL',
      neither: 'server "neither" needs either "command" (stdio) or "url" (streamable HTTP)',
      badTimeout: 'server "badTimeout": timeout must be a positive number of seconds',
      "ok-2": undefined,
      ok_2: 'server "ok_2" conflicts with "ok-2"',
    });
    expect(inventory.servers.find((server) => server.name === "sse")?.transport).toBe("http");
  });

  it("stays readable for an invalid file: no servers and a warning", () => {
    for (const text of ['{ "mcpServers": { "a": {}, "a": {} } }', '{ "mcpServers": { // c\n } }', "[1]", '{ "mcpServers": [] }', "{"]) {
      const inventory = mcpInventory(text, "r");
      expect(inventory.servers).toEqual([]);
      expect(inventory.warning).toMatch(/^The global mcp\.json is invalid: /);
    }
  });

  it("never shows a header or env value (property)", () => {
    const secretArb = fc.stringMatching(/^[A-Za-z0-9_\-.]{4,24}$/).map((value) => `Z${value}Z`);
    fc.assert(
      fc.property(secretArb, secretArb, fc.boolean(), (header, env, inCommand) => {
        const text = file({
          h: { url: `https://h.dev/mcp?key=${header}`, headers: { "X-Key": header } },
          s: { command: inCommand ? `run-${env}` : "run", env: { KEY: env }, cwd: `/w/${header}` },
        });
        const shown = JSON.stringify(mcpInventory(text, "r"));
        expect(shown).not.toContain(header);
        expect(shown).not.toContain(env);
      }),
    );
  });
});

describe("known secrets", () => {
  it("never count a server name as a secret, so messages stay readable", () => {
    const inventory = mcpInventory(file({ github: { command: "node", env: { SERVICE: "github" }, timeout: "soon" } }), "r");
    expect(inventory.servers[0]?.error).toBe('server "github": timeout must be a positive number of seconds');
  });

  it("are redacted from action target errors", () => {
    const text = file({
      s: { url: "https://x.dev/mcp", headers: { "X-Key": "abcdefgh123" }, oauth: { callbackUrl: "http://x/abcdefgh123" } },
    });
    const result = mcpActionTarget(text, "s", "check");
    expect(result).toMatchObject({ ok: false, code: "conflict" });
    if (!result.ok) expect(result.message).not.toContain("abcdefgh123");
  });
});

describe("create and delete (property)", () => {
  it("a created server is valid, listed without error, and deleting it restores the other content", () => {
    const nameArb = fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9_-]{0,15}$/).filter((name) => mcpNamespace(name) !== mcpNamespace("base"));
    const valuesArb: fc.Arbitrary<McpEditValues> = fc.oneof(
      fc.record(
        {
          command: fc.constantFrom("node", "npx", "/usr/bin/env"),
          args: fc.array(fc.string(), { maxLength: 3 }),
          env: fc.dictionary(fc.stringMatching(/^[A-Z_]{1,8}$/), fc.string()),
          timeout: fc.double({ min: 0.5, max: 600, noNaN: true }),
          enabled: fc.boolean(),
          exposure: fc.constantFrom("deferred", "direct", "hidden"),
        },
        { requiredKeys: ["command"] },
      ),
      fc.record(
        {
          url: fc.constantFrom("https://a.dev/mcp", "http://127.0.0.1:9000/mcp"),
          headers: fc.dictionary(fc.stringMatching(/^X-[A-Za-z]{1,8}$/), fc.stringMatching(/^[ -~]{0,20}$/)),
          oauth: fc.record(
            { clientId: fc.stringMatching(/^[a-z]{1,8}$/), callbackPort: fc.integer({ min: 1, max: 65535 }) },
            { requiredKeys: [] },
          ),
        },
        { requiredKeys: ["url"] },
      ),
    );
    const base = '{\n  "mcpServers": {\n    "base": { "command": "node" }\n  },\n  "autoEnableCodemode": true\n}\n';
    fc.assert(
      fc.property(nameArb, valuesArb, (name, values) => {
        const created = editMcpServer(base, { name, create: true, values });
        if (!created.ok) throw new Error(created.message);
        const inventory = mcpInventory(created.text, "r");
        // Object key order (integer-like names first) is pi's order too.
        expect(inventory.servers.map((server) => server.name).sort()).toEqual(["base", name].sort());
        expect(inventory.servers.filter((server) => server.error !== undefined)).toEqual([]);
        const deleted = deleteMcpServer(created.text, name);
        if (!deleted.ok) throw new Error(deleted.message);
        expect(JSON.parse(deleted.text)).toEqual(JSON.parse(base));
      }),
    );
  });
});

describe("mcpEntryError mirrors pi-mcp's validateMcpServerConfig", () => {
  const samples: Array<[string, unknown]> = [
    ["a", { command: "node", args: ["x"], env: { A: "1" }, cwd: "." }],
    ["a", { command: "node", args: "x" }],
    ["a", { url: "https://x.dev/mcp", headers: { A: 1 } }],
    ["a", { url: "ftp://x.dev" }],
    ["a", { url: "https://x.dev", oauth: { callbackPort: 70000 } }],
    ["a", { url: "https://x.dev", oauth: { callbackUrl: "http://localhost:9000/cb", callbackPort: 9001 } }],
    ["a", { url: "https://x.dev", oauth: { callbackUrl: "https://localhost/cb" } }],
    ["a", { url: "https://x.dev", oauth: { clientRegistration: "nope" } }],
    ["a", { url: "https://x.dev", oauth: { authServerMetadataUrl: "http://example.com/.well-known" } }],
    ["a", { type: "stdio", url: "https://x.dev" }],
    ["a", { command: "node", enabled: "yes" }],
    ["a", { command: "node", description: 3 }],
    ["bad name", { command: "node" }],
    ["a", []],
  ];
  it.each(samples)("%s %j", (name, raw) => {
    const pi = validateMcpServerConfig(name, raw, { checkMetadataDocumentCallback: () => undefined });
    expect(mcpEntryError(name, raw)).toBe(pi.kind === "invalid" ? pi.error : undefined);
  });
});

describe("editMcpServer", () => {
  it("creates a stdio server with exposure deferred, in a missing file and beside other content", () => {
    const fresh = editedText("", "files", { command: "npx", args: ["-y", "server"], env: { ROOT: "/w" } }, true);
    expect(JSON.parse(fresh)).toEqual({
      mcpServers: { files: { command: "npx", args: ["-y", "server"], env: { ROOT: "/w" }, exposure: "deferred" } },
    });
    const beside = '{\n  "autoEnableCodemode": false,\n  "mcpServers": {\n    "one": { "url": "https://one.dev/mcp" }\n  }\n}\n';
    const text = editedText(beside, "two", { url: "https://two.dev/mcp", exposure: "direct", enabled: false }, true);
    expect(text.startsWith('{\n  "autoEnableCodemode": false,\n  "mcpServers": {\n    "one": { "url": "https://one.dev/mcp" },\n')).toBe(
      true,
    );
    expect(parsed(text).two).toEqual({ url: "https://two.dev/mcp", exposure: "direct", enabled: false });
  });

  it("refuses duplicates and names that share a namespace (409), and edits or deletes of missing servers (409)", () => {
    const text = file({ "my-tools": { command: "node" } });
    expect(edit(text, "my-tools", { command: "node" }, true)).toMatchObject({ ok: false, code: "conflict" });
    expect(edit(text, "my_tools", { command: "node" }, true)).toMatchObject({ ok: false, code: "conflict" });
    expect(edit(text, "other", { enabled: false })).toMatchObject({ ok: false, code: "conflict" });
    expect(deleteMcpServer(text, "other")).toMatchObject({ ok: false, code: "conflict" });
    expect(edit(file({ s: "text" }), "s", { enabled: false })).toMatchObject({ ok: false, code: "conflict" });
  });

  it("refuses edits of an invalid file (409)", () => {
    expect(edit('{ "mcpServers": { "a": {} , } }', "a", { enabled: false })).toMatchObject({ ok: false, code: "conflict" });
    expect(deleteMcpServer('{"mcpServers": 1}', "a")).toMatchObject({ ok: false, code: "conflict" });
  });

  it.each<[string, string, McpEditValues, boolean]>([
    ["bad name", "a b", { command: "node" }, true],
    ["both url and command", "n", { command: "node", url: "https://x.dev" }, true],
    ["neither on create", "n", { enabled: true }, true],
    ["non-HTTP URL", "n", { url: "ftp://x.dev" }, true],
    ["incomplete URL", "n", { url: "/mcp" }, true],
    ["redacted URL", "n", { url: "https://x.dev/mcp?token=[redacted]" }, true],
    ["blank command", "n", { command: "  " }, true],
    ["zero timeout", "n", { command: "node", timeout: 0 }, true],
    ["infinite timeout", "n", { command: "node", timeout: Number.POSITIVE_INFINITY }, true],
    ["args on HTTP", "n", { url: "https://x.dev", args: ["a"] }, true],
    ["env on HTTP", "n", { url: "https://x.dev", env: { A: "b" } }, true],
    ["headers on stdio", "n", { command: "node", headers: { A: "b" } }, true],
    ["oauth on stdio", "n", { command: "node", oauth: { clientId: "c" } }, true],
    ["codemode on create", "n", { command: "node", exposure: "codemode" }, true],
    ["unknown exposure", "n", { command: "node", exposure: "everywhere" }, true],
    ["bad header name", "n", { url: "https://x.dev", headers: { "Bad Header": "v" } }, true],
    ["header line break", "n", { url: "https://x.dev", headers: { A: "v\r\nB: x" } }, true],
    ["redacted header", "n", { url: "https://x.dev", headers: { A: "Bearer [redacted]" } }, true],
    ["set and remove header", "n", { url: "https://x.dev", headers: { Authorization: "x" }, removeHeaders: ["authorization"] }, true],
    ["set and remove env", "n", { command: "node", env: { A: "x" }, removeEnv: ["A"] }, true],
    ["callback port 0", "n", { url: "https://x.dev", oauth: { callbackPort: 0 } }, true],
    ["callback port 65536", "n", { url: "https://x.dev", oauth: { callbackPort: 65536 } }, true],
    ["callback port 1.5", "n", { url: "https://x.dev", oauth: { callbackPort: 1.5 } }, true],
    ["https callback", "n", { url: "https://x.dev", oauth: { callbackUrl: "https://localhost/cb" } }, true],
    ["remote callback", "n", { url: "https://x.dev", oauth: { callbackUrl: "http://example.com/cb" } }, true],
    ["callback query", "n", { url: "https://x.dev", oauth: { callbackUrl: "http://127.0.0.1/cb?x=1" } }, true],
    ["callback credentials", "n", { url: "https://x.dev", oauth: { callbackUrl: "http://u:p@localhost/cb" } }, true],
    ["callback port mismatch", "n", { url: "https://x.dev", oauth: { callbackUrl: "http://[::1]:9000/cb", callbackPort: 9001 } }, true],
  ])("refuses %s (400)", (_label, name, values, create) => {
    expect(edit("", name, values, create)).toMatchObject({ ok: false, code: "invalid_request" });
  });

  it("refuses fields that are not editable (400)", () => {
    for (const values of [{ type: "http" }, { toolExposure: {} }, { autoEnableCodemode: false }, { oauth: { clientName: "x" } }]) {
      expect(edit(file({ a: { command: "node" } }), "a", values as McpEditValues)).toMatchObject({ ok: false, code: "invalid_request" });
    }
  });

  it("converts transports: incompatible fields go, unknown fields stay", () => {
    const http = file({
      s: { url: "https://x.dev", type: "http", headers: { A: "1" }, oauth: { clientId: "c" }, description: "d", custom: 1 },
    });
    expect(parsed(editedText(http, "s", { command: "node", args: ["a"] })).s).toEqual({
      command: "node",
      args: ["a"],
      description: "d",
      custom: 1,
    });
    const stdio = file({ s: { command: "node", args: ["a"], cwd: "/w", env: { A: "1" }, description: "d", exposure: "direct" } });
    expect(parsed(editedText(stdio, "s", { url: "https://x.dev/mcp" })).s).toEqual({
      url: "https://x.dev/mcp",
      description: "d",
      exposure: "direct",
    });
  });

  it("refuses to keep a legacy SSE entry, and converts it when a streamable URL is supplied", () => {
    const sse = file({ s: { type: "sse", url: "https://x.dev/sse" } });
    expect(edit(sse, "s", { enabled: false })).toMatchObject({
      ok: false,
      code: "invalid_request",
      message: expect.stringContaining("Legacy SSE"),
    });
    expect(parsed(editedText(sse, "s", { url: "https://x.dev/mcp" })).s).toEqual({ url: "https://x.dev/mcp" });
  });

  it("removes args, cwd, timeout and single OAuth fields with null", () => {
    const stdio = file({ s: { command: "node", args: ["a"], cwd: "/w", timeout: 5 } });
    expect(parsed(editedText(stdio, "s", { args: null, cwd: null, timeout: null })).s).toEqual({ command: "node" });
    const http = file({ h: { url: "https://x.dev", oauth: { clientId: "c", clientSecret: "s", clientName: "kept" } } });
    expect(parsed(editedText(http, "h", { oauth: { clientId: null, scope: "read" } })).h).toEqual({
      url: "https://x.dev",
      oauth: { clientSecret: "s", clientName: "kept", scope: "read" },
    });
    expect(
      parsed(editedText(file({ h: { url: "https://x.dev", oauth: { clientId: "c" } } }), "h", { oauth: { clientId: null } })).h,
    ).toEqual({
      url: "https://x.dev",
    });
  });

  it("merges and removes headers (any case, existing spelling kept) and env entries (exact)", () => {
    const http = file({ h: { url: "https://x.dev", headers: { Authorization: "old", "X-A": "1", "X-B": "2" } } });
    expect(parsed(editedText(http, "h", { headers: { authorization: "new", "X-C": "3" }, removeHeaders: ["x-a"] })).h?.headers).toEqual({
      Authorization: "new",
      "X-B": "2",
      "X-C": "3",
    });
    const stdio = file({ s: { command: "node", env: { A: "1", a: "2" } } });
    expect(parsed(editedText(stdio, "s", { env: { B: "3" }, removeEnv: ["A"] })).s?.env).toEqual({ a: "2", B: "3" });
    expect(parsed(editedText(file({ s: { command: "node", env: { A: "1" } } }), "s", { removeEnv: ["A"] })).s).toEqual({ command: "node" });
  });

  it("accepts a callback URL whose port matches callbackPort, or without a port", () => {
    const text = editedText(
      "",
      "h",
      { url: "https://x.dev", oauth: { callbackUrl: "http://127.0.0.1:9000/cb", callbackPort: 9000 } },
      true,
    );
    expect(parsed(text).h?.oauth).toEqual({ callbackUrl: "http://127.0.0.1:9000/cb", callbackPort: 9000 });
    expect(edit("", "h", { url: "https://x.dev", oauth: { callbackUrl: "http://localhost/cb", callbackPort: 9000 } }, true).ok).toBe(true);
  });

  it("keeps an existing exposure sent back unchanged, legacy or defaulted, and sets a new selection", () => {
    const text = file({ legacy: { command: "node", exposure: "codemode-deferred" }, plain: { command: "node" } });
    expect(editedText(text, "legacy", { exposure: "codemode-deferred" })).toBe(text);
    expect(editedText(text, "plain", { exposure: "codemode" })).toBe(text);
    expect(parsed(editedText(text, "plain", { exposure: "hidden" })).plain?.exposure).toBe("hidden");
    expect(edit(text, "plain", { exposure: "codemode-deferred" })).toMatchObject({ ok: false, code: "invalid_request" });
  });

  it("writes enabled: false and removes the key for enabled: true", () => {
    const text = file({ s: { command: "node" } });
    const disabled = editedText(text, "s", { enabled: false });
    expect(parsed(disabled).s).toEqual({ command: "node", enabled: false });
    expect(parsed(editedText(disabled, "s", { enabled: true })).s).toEqual({ command: "node" });
  });

  it("changes only the edited bytes", () => {
    const text = [
      "{",
      '  "mcpServers": {',
      '    "a": { "command": "node",   "args": ["x"] },',
      '    "b": {',
      '      "url": "https://b.dev/mcp",',
      '      "headers": { "X-Key": "v" }',
      "    }",
      "  },",
      '  "autoEnableCodemode": true',
      "}",
      "",
    ].join("\n");
    const next = editedText(text, "b", { timeout: 10 });
    expect(next).toContain('    "a": { "command": "node",   "args": ["x"] },');
    expect(next).toContain('      "headers": { "X-Key": "v" },\n      "timeout": 10\n');
    expect(next.endsWith('  "autoEnableCodemode": true\n}\n')).toBe(true);
    expect(editedText(text, "b", {})).toBe(text);
  });

  it("refuses an edit that leaves an existing field invalid (400)", () => {
    expect(edit(file({ s: { command: "node", description: 5 } }), "s", { enabled: false })).toMatchObject({
      ok: false,
      code: "invalid_request",
      message: expect.stringContaining("description must be a string"),
    });
  });
});

describe("deleteMcpServer", () => {
  it("removes the whole entry, unknown fields included, and nothing else", () => {
    const text = file({ a: { command: "node", custom: { deep: true } }, b: { url: "https://b.dev" } }, { autoEnableCodemode: false });
    const result = deleteMcpServer(text, "a");
    expect(result.ok).toBe(true);
    if (result.ok) expect(JSON.parse(result.text)).toEqual({ autoEnableCodemode: false, mcpServers: { b: { url: "https://b.dev" } } });
  });
});

describe("mcpActionTarget", () => {
  const text = file({
    s: { command: "node", args: ["srv.js"], env: { A: "${HOME}" }, enabled: false },
    h: { url: "https://x.dev/mcp", oauth: { clientId: "c", callbackPort: 9000 } },
    bearer: { url: "https://x.dev/mcp", headers: { authorization: "Bearer abc" } },
    provider: { url: "https://x.dev/mcp", auth: { provider: "github" } },
    broken: { command: "node", timeout: "soon" },
  });

  it("resolves a valid server, disabled or not", () => {
    expect(mcpActionTarget(text, "s", "check")).toMatchObject({
      ok: true,
      target: { name: "s", transport: "stdio", command: "node", args: ["srv.js"], env: { A: "${HOME}" } },
    });
    expect(mcpActionTarget(text, "h", "login")).toMatchObject({
      ok: true,
      target: { transport: "http", url: "https://x.dev/mcp", oauth: { clientId: "c", callbackPort: 9000 } },
    });
  });

  it("answers 404 for a missing server, 409 for an invalid one, 400 for sign-in where it does not apply", () => {
    expect(mcpActionTarget(text, "nope", "check")).toMatchObject({ ok: false, code: "settings_not_found" });
    expect(mcpActionTarget(text, "broken", "check")).toMatchObject({ ok: false, code: "conflict" });
    expect(mcpActionTarget("{", "s", "check")).toMatchObject({ ok: false, code: "conflict" });
    expect(mcpActionTarget(text, "s", "login")).toMatchObject({ ok: false, code: "invalid_request" });
    expect(mcpActionTarget(text, "bearer", "logout")).toMatchObject({ ok: false, code: "invalid_request" });
    expect(mcpActionTarget(text, "provider", "login")).toMatchObject({ ok: false, code: "invalid_request" });
    expect(mcpActionTarget(text, "bearer", "check").ok).toBe(true);
  });

  it("keys HTTP operations by normalized URL and stdio operations by file and name", () => {
    const h = mcpActionTarget(text, "h", "check");
    const s = mcpActionTarget(text, "s", "check");
    if (!h.ok || !s.ok) throw new Error("targets expected");
    expect(mcpOperationKey({ ...h.target, url: "HTTPS://X.dev:443/mcp" } as typeof h.target, "/a/mcp.json")).toBe(
      "mcp-url:https://x.dev/mcp",
    );
    expect(mcpOperationKey(s.target, "/a/mcp.json")).toBe("mcp-stdio:/a/mcp.json#s");
  });
});

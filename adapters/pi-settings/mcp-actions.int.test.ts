import { createHash, randomBytes } from "node:crypto";
import * as fs from "node:fs";
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import type { AuthPrompt } from "@earendil-works/pi-ai";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { SettingsNotice } from "../../domain/pi-settings/settings-operation-types.ts";
import { checkMcpServer, loginMcpServer, logoutMcpServer, type McpActionOptions } from "./mcp-actions.ts";
import { McpCredentialFile } from "./mcp-credentials.ts";
import type { OperationContext } from "./settings-operations.ts";

// Real child processes (a stdio MCP server of ours) and a real HTTP MCP server with an OAuth authorization server
// on 127.0.0.1; the only thing played by the test is the browser following the authorization redirect.

const FIXTURE = fileURLToPath(new URL("./mcp-test-server.fixture.mjs", import.meta.url));
const ENV_SECRET = "resolved-env-secret-8c1f";
const HEADER_SECRET = "header-key-5d2e9a";

let tmp: string;
let agentDir: string;

beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "leyline-mcp-actions-"));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
afterEach(() => {
  agentDir = "";
});

function freshAgentDir(): string {
  agentDir = fs.mkdtempSync(path.join(tmp, "agent-"));
  return agentDir;
}

function options(extra: Partial<McpActionOptions> = {}): McpActionOptions {
  return {
    cwd: tmp,
    agentDir: agentDir || freshAgentDir(),
    env: { ...process.env, LEYLINE_FIXTURE_SECRET: ENV_SECRET, LEYLINE_FIXTURE_KEY: HEADER_SECRET },
    ...extra,
  };
}

interface Recorder {
  ctx: OperationContext;
  events: SettingsNotice[];
  prompts: AuthPrompt[];
}

/** An operation context whose prompts stay open until their own signal (or the operation) aborts them. */
function recorder(
  signal: AbortSignal = new AbortController().signal,
  onEvent: (event: SettingsNotice) => void = () => undefined,
): Recorder {
  const events: SettingsNotice[] = [];
  const prompts: AuthPrompt[] = [];
  const ctx: OperationContext = {
    signal,
    prompt: (prompt) => {
      prompts.push(prompt);
      return new Promise<string>((_, reject) => {
        const stop = (): void => reject(new Error("prompt withdrawn"));
        prompt.signal?.addEventListener("abort", stop, { once: true });
        signal.addEventListener("abort", stop, { once: true });
      });
    },
    notify: (event) => {
      events.push(event);
      onEvent(event);
    },
  };
  return { ctx, events, prompts };
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function readPid(file: string): number {
  return Number(fs.readFileSync(file, "utf8"));
}

describe("checkMcpServer over stdio", () => {
  it("lists the tools with their exposure and redacted metadata, then ends the server and its children", async () => {
    const pidFile = path.join(tmp, "check.pid");
    const config = {
      command: process.execPath,
      args: [FIXTURE],
      env: { FIXTURE_PID_FILE: pidFile, FIXTURE_SECRET: "${LEYLINE_FIXTURE_SECRET}", FIXTURE_CHILD: "1" },
      enabled: false,
      exposure: "direct",
      toolExposure: { "who*": "hidden" },
    };
    const result = await checkMcpServer({ name: "fixture", config }, recorder().ctx, options());
    expect(result.tools.map(({ name, exposure }) => ({ name, exposure }))).toEqual([
      { name: "echo", exposure: "direct" },
      { name: "whoami", exposure: "hidden" },
    ]);
    expect(result.tools[1]?.description).toContain("[redacted]");
    expect(JSON.stringify(result)).not.toContain(ENV_SECRET);
    expect(result.report).toContain('Checked "fixture" over stdio with a temporary connection: leyline-fixture 1.0.0 listed 2 tools.');
    expect(result.report).toContain("stays disabled");
    expect(isAlive(readPid(pidFile))).toBe(false);
    const grandchild = readPid(`${pidFile}.child`);
    await vi.waitFor(() => expect(isAlive(grandchild)).toBe(false), { timeout: 5_000, interval: 50 });
  });

  it("stops connection setup and the server process on cancellation", async () => {
    const pidFile = path.join(tmp, "cancel.pid");
    const controller = new AbortController();
    const config = { command: process.execPath, args: [FIXTURE], env: { FIXTURE_PID_FILE: pidFile, FIXTURE_MODE: "hang" } };
    const started = Date.now();
    const check = checkMcpServer({ name: "hang", config }, recorder(controller.signal).ctx, options());
    await vi.waitFor(() => expect(fs.existsSync(pidFile) && fs.readFileSync(pidFile, "utf8") !== "").toBe(true), {
      timeout: 10_000,
      interval: 20,
    });
    const pid = readPid(pidFile);
    expect(isAlive(pid)).toBe(true);
    controller.abort(new Error("cancelled by the test"));
    await expect(check).rejects.toThrow("cancelled by the test");
    expect(isAlive(pid)).toBe(false);
    expect(Date.now() - started).toBeLessThan(20_000);
  });

  it("gives up at its deadline and ends the server", async () => {
    const pidFile = path.join(tmp, "deadline.pid");
    const config = { command: process.execPath, args: [FIXTURE], env: { FIXTURE_PID_FILE: pidFile, FIXTURE_MODE: "hang" } };
    await expect(checkMcpServer({ name: "slow", config }, recorder().ctx, options({ deadlineMs: 1_000 }))).rejects.toThrow(
      "The MCP check did not finish within 1 seconds.",
    );
    expect(isAlive(readPid(pidFile))).toBe(false);
  });

  it("reports failures in its own words", async () => {
    const ctx = recorder().ctx;
    await expect(checkMcpServer({ name: "gone", config: { command: "/nonexistent/leyline-mcp" } }, ctx, options())).rejects.toThrow(
      'MCP server "gone" could not start: its command or working directory was not found.',
    );
    const crash = { command: process.execPath, args: [FIXTURE], env: { FIXTURE_MODE: "crash" } };
    await expect(checkMcpServer({ name: "crash", config: crash }, ctx, options())).rejects.toThrow(
      'MCP server "crash" closed the connection before answering.',
    );
    const missing = { command: process.execPath, args: [FIXTURE], env: { TOKEN: "${LEYLINE_SURELY_UNSET_VARIABLE}" } };
    await expect(checkMcpServer({ name: "unset", config: missing }, ctx, options())).rejects.toThrow(
      'Failed to resolve MCP server "unset" env "TOKEN" from environment variable: LEYLINE_SURELY_UNSET_VARIABLE',
    );
    await expect(checkMcpServer({ name: "bad", config: { url: "ftp://x" } }, ctx, options())).rejects.toThrow(
      "has an invalid configuration",
    );
  });
});

// ---- A streamable HTTP MCP server with an OAuth authorization server ---------------------------------------

interface HttpFixture {
  origin: string;
  url: string;
  /** Access tokens issued so far. */
  tokens: string[];
  close(): Promise<void>;
}

async function startHttpFixture(mode: "header" | "oauth"): Promise<HttpFixture> {
  const tokens: string[] = [];
  const codes = new Map<string, { challenge: string; redirectUri: string }>();
  let origin = "";
  const json = (res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void => {
    res.writeHead(status, { "content-type": "application/json", ...headers }).end(JSON.stringify(body));
  };
  const readBody = async (req: http.IncomingMessage): Promise<string> => {
    let text = "";
    for await (const chunk of req) text += String(chunk);
    return text;
  };
  const server = http.createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? "/", origin);
      const body = await readBody(req);
      if (url.pathname.startsWith("/.well-known/oauth-protected-resource")) {
        return json(res, 200, { resource: `${origin}/mcp`, authorization_servers: [origin] });
      }
      if (url.pathname === "/.well-known/oauth-authorization-server") {
        return json(res, 200, {
          issuer: origin,
          authorization_endpoint: `${origin}/authorize`,
          token_endpoint: `${origin}/token`,
          registration_endpoint: `${origin}/register`,
          response_types_supported: ["code"],
          grant_types_supported: ["authorization_code", "refresh_token"],
          code_challenge_methods_supported: ["S256"],
          token_endpoint_auth_methods_supported: ["none"],
        });
      }
      if (url.pathname === "/register") {
        const metadata = JSON.parse(body) as Record<string, unknown>;
        return json(res, 201, { ...metadata, client_id: "registered-client", token_endpoint_auth_method: "none" });
      }
      if (url.pathname === "/authorize") {
        const code = randomBytes(8).toString("hex");
        const redirectUri = url.searchParams.get("redirect_uri") ?? "";
        codes.set(code, { challenge: url.searchParams.get("code_challenge") ?? "", redirectUri });
        const target = new URL(redirectUri);
        target.searchParams.set("code", code);
        target.searchParams.set("state", url.searchParams.get("state") ?? "");
        res.writeHead(302, { location: target.href }).end();
        return;
      }
      if (url.pathname === "/token") {
        const form = new URLSearchParams(body);
        const grant = codes.get(form.get("code") ?? "");
        const verifier = form.get("code_verifier") ?? "";
        if (
          !grant ||
          createHash("sha256").update(verifier).digest("base64url") !== grant.challenge ||
          form.get("redirect_uri") !== grant.redirectUri
        ) {
          return json(res, 400, { error: "invalid_grant" });
        }
        const token = `access-${randomBytes(12).toString("hex")}`;
        tokens.push(token);
        return json(res, 200, { access_token: token, token_type: "Bearer", expires_in: 3600, refresh_token: `refresh-${token}` });
      }
      if (url.pathname !== "/mcp") return json(res, 404, { error: "not found" });
      if (req.method !== "POST") return json(res, 405, { error: "method not allowed" });
      const authorized =
        mode === "header"
          ? req.headers["x-api-key"] === HEADER_SECRET
          : tokens.includes((req.headers.authorization ?? "").replace(/^Bearer /, ""));
      if (!authorized) {
        const challenge = `Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"`;
        return json(res, 401, { error: "unauthorized" }, mode === "oauth" ? { "www-authenticate": challenge } : {});
      }
      const message = JSON.parse(body) as { id?: number; method: string; params?: { protocolVersion?: string } };
      if (message.id === undefined) return void res.writeHead(202).end();
      if (message.method === "initialize") {
        const result = {
          protocolVersion: message.params?.protocolVersion,
          capabilities: { tools: {} },
          serverInfo: { name: "http-fixture", version: "2.0.0" },
        };
        return json(res, 200, { jsonrpc: "2.0", id: message.id, result }, { "mcp-session-id": "session-1" });
      }
      if (message.method === "tools/list") {
        const description = `Searches docs with key ${String(req.headers["x-api-key"] ?? req.headers.authorization)}`;
        return json(res, 200, {
          jsonrpc: "2.0",
          id: message.id,
          result: { tools: [{ name: "search", description, inputSchema: { type: "object" } }] },
        });
      }
      return json(res, 200, { jsonrpc: "2.0", id: message.id, error: { code: -32601, message: "Method not found" } });
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    url: `${origin}/mcp`,
    tokens,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe("checkMcpServer over streamable HTTP", () => {
  it("sends resolved headers and keeps their values out of the result", async () => {
    const fixture = await startHttpFixture("header");
    try {
      const config = { url: fixture.url, headers: { "X-Api-Key": "${LEYLINE_FIXTURE_KEY}" } };
      const result = await checkMcpServer({ name: "docs", config }, recorder().ctx, options());
      expect(result.tools).toEqual([{ name: "search", description: "Searches docs with key [redacted]", exposure: "codemode" }]);
      expect(result.report).toContain("over streamable HTTP with a temporary connection: http-fixture 2.0.0 listed 1 tool.");
      expect(JSON.stringify(result)).not.toContain(HEADER_SECRET);
    } finally {
      await fixture.close();
    }
  });
});

describe("MCP sign-in and sign-out", () => {
  it("signs in through the loopback callback, stores pi's credential record, checks with it, and signs out", async () => {
    const fixture = await startHttpFixture("oauth");
    freshAgentDir();
    const entry = { name: "docs", config: { url: fixture.url } };
    try {
      await expect(checkMcpServer(entry, recorder().ctx, options())).rejects.toThrow('MCP server "docs" requires sign-in.');

      // The "browser": follows the authorization URL's redirect to the loopback callback.
      const browser = async (event: SettingsNotice): Promise<void> => {
        if (event.type !== "auth_url") return;
        const redirect = await fetch(event.url, { redirect: "manual" });
        await fetch(redirect.headers.get("location") ?? "");
      };
      const login = recorder(new AbortController().signal, (event) => void browser(event));
      const result = await loginMcpServer(entry, login.ctx, options());
      expect(login.events.map((event) => event.type)).toEqual(["auth_url"]);
      expect(login.prompts.map((prompt) => prompt.type)).toEqual(["manual_code"]);
      expect(result.report).toContain('Signed in to "docs".');
      expect(result.tools).toEqual([{ name: "search", description: "Searches docs with key Bearer [redacted]", exposure: "codemode" }]);
      expect(JSON.stringify(result)).not.toContain(fixture.tokens[0] ?? "no token");

      const { key } = McpCredentialFile.keys("docs", fixture.url);
      const stored = JSON.parse(fs.readFileSync(path.join(agentDir, "mcp-auth.json"), "utf8")) as Record<
        string,
        { tokens?: { access_token?: string } }
      >;
      expect(Object.keys(stored)).toEqual([key]);
      expect(stored[key]?.tokens?.access_token).toBe(fixture.tokens[0]);

      const checked = await checkMcpServer(entry, recorder().ctx, options());
      expect(checked.tools.map((tool) => tool.name)).toEqual(["search"]);

      const again = await loginMcpServer(entry, recorder().ctx, options());
      expect(again.report).toContain('"docs" needs no new sign-in');

      const logout = await logoutMcpServer(entry, recorder().ctx, options());
      expect(logout).toEqual({ report: expect.stringContaining('Signed out of "docs"'), tools: [] });
      expect(JSON.parse(fs.readFileSync(path.join(agentDir, "mcp-auth.json"), "utf8"))).toEqual({});
      expect((await logoutMcpServer(entry, recorder().ctx, options())).report).toBe('"docs" had no stored credentials.');
      await expect(checkMcpServer(entry, recorder().ctx, options())).rejects.toThrow("requires sign-in");
    } finally {
      await fixture.close();
    }
  });

  it("takes over a legacy record keyed by URL alone on logout, as pi does", async () => {
    freshAgentDir();
    const url = "https://mcp.example.com/mcp";
    fs.writeFileSync(path.join(agentDir, "mcp-auth.json"), JSON.stringify({ [url]: { serverUrl: url }, other: { serverUrl: "x" } }));
    const result = await logoutMcpServer({ name: "ex", config: { url } }, recorder().ctx, options());
    expect(result.report).toContain("Signed out");
    expect(JSON.parse(fs.readFileSync(path.join(agentDir, "mcp-auth.json"), "utf8"))).toEqual({ other: { serverUrl: "x" } });
  });

  it("refuses sign-in for stdio servers and servers with an Authorization header", async () => {
    const ctx = recorder().ctx;
    await expect(loginMcpServer({ name: "s", config: { command: "node" } }, ctx, options())).rejects.toThrow(
      "apply only to streamable HTTP servers",
    );
    const bearer = { url: "https://x.dev/mcp", headers: { Authorization: "Bearer x" } };
    await expect(logoutMcpServer({ name: "b", config: bearer }, ctx, options())).rejects.toThrow("Authorization header");
  });

  it("stops a sign-in waiting for the browser on cancellation", async () => {
    const fixture = await startHttpFixture("oauth");
    freshAgentDir();
    const controller = new AbortController();
    const login = recorder(controller.signal, (event) => {
      if (event.type === "auth_url") controller.abort(new Error("cancelled while waiting"));
    });
    try {
      await expect(loginMcpServer({ name: "docs", config: { url: fixture.url } }, login.ctx, options())).rejects.toThrow(
        "cancelled while waiting",
      );
      expect(fixture.tokens).toEqual([]);
    } finally {
      await fixture.close();
    }
  });
});

/**
 * The work behind POST /api/pi/settings/mcp/action (spec "MCP actions"): check, login and logout of one global
 * mcp.json server, run inside a settings operation (settings-operations.ts gives the context: signal, prompt,
 * notify).
 *
 * - check opens a temporary native connection (pi-mcp's McpClient; stdio: the configured command in its own
 *   process group; HTTP: streamable HTTP with the resolved headers and pi's stored OAuth tokens), lists the
 *   tools and closes, even for a disabled server. Two-minute deadline; cancellation closes the connection,
 *   which ends the server's whole process group.
 * - login runs pi's sign-in (pi-mcp's startMcpSignIn / waitForLoopbackSignIn / completeMcpSignIn with pi's
 *   client identity): an `auth_url` event, then the loopback callback or a pasted redirect URL (a manual_code
 *   prompt), then a temporary connection listing the tools. The ten-minute deadline is the registry's.
 * - logout removes the server's record from `<agentDir>/mcp-auth.json` without connecting or resolving anything.
 *
 * Credentials live where pi keeps them, in `mcp-auth.json` (mcp-credentials.ts), so pi and Leyline share one
 * sign-in. Values are resolved as pi resolves them (`${VAR}`, `$VAR`, `$$`, `!command`: mcp-config-values.ts).
 *
 * What leaves here is controlled: failures become short messages of our own, and every text (report, tool names
 * and descriptions, errors) has the known and resolved secrets and stored tokens replaced by "[redacted]".
 */
import { homedir } from "node:os";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import { oauthErrorHtml, oauthSuccessHtml } from "@earendil-works/pi-ai/utils/oauth-page";
import { VERSION } from "@earendil-works/pi-coding-agent";
import {
  type AuthProvider,
  McpAuthRequiredError,
  McpClient,
  McpConnectionClosedError,
  McpError,
  McpHttpError,
  McpTimeoutError,
  StdioTransport,
  StreamableHttpTransport,
  type Tool,
} from "@earendil-works/pi-mcp";
import {
  completeMcpSignIn,
  createMcpAuthProvider,
  listenForLoopbackSignIn,
  type McpClientMetadataDocuments,
  McpOAuthAuthorizationRequiredError,
  type McpOAuthSettings,
  McpSignInCancelledError,
  type OAuthChallenge,
  startMcpSignIn,
  waitForLoopbackSignIn,
} from "@earendil-works/pi-mcp/oauth";
import { type McpAction, type McpServerTarget, mcpServerTarget } from "../../domain/pi-settings/mcp-config.ts";
import { redactSecrets } from "../../domain/pi-settings/redaction.ts";
import { resolveConfigValue } from "./mcp-config-values.ts";
import { McpCredentialFile } from "./mcp-credentials.ts";
import type { OperationContext } from "./settings-operations.ts";

/** The server an action names, as the service reads it from mcp.json. */
export interface McpActionEntry {
  name: string;
  config: unknown;
}

export interface McpActionOptions {
  /** The backend's process directory: the probe's cwd (spec), and what a relative `cwd` resolves against. */
  cwd: string;
  agentDir: string;
  /** The environment `${VAR}` references and stdio servers see. Default: process.env. */
  env?: NodeJS.ProcessEnv;
  /** The check's deadline (ms). Default: two minutes (spec); tests shorten it. */
  deadlineMs?: number;
}

export interface McpToolView {
  name: string;
  description: string;
  exposure: string;
}

export interface McpActionResult {
  report: string;
  tools: McpToolView[];
}

export const MCP_CHECK_DEADLINE_MS = 120_000;
const DEFAULT_TIMEOUT_SECONDS = 60;
const MAX_TOOLS = 500;
const MAX_DESCRIPTION = 2_000;
const MIN_SECRET_LENGTH = 4;

/** pi's client identity, so a client pi registered (or its Client ID Metadata Document) serves Leyline too. */
const PI_CLIENT_NAME = "pi";
const PI_CLIENT_METADATA_DOCUMENTS: McpClientMetadataDocuments = {
  baseUrl: "https://pi.dev/oauth",
  listsRedirectUrl: (redirectUrl) => {
    const url = new URL(redirectUrl);
    return url.hostname !== "[::1]" && url.pathname === "/callback";
  },
};

// ---- Check, login, logout ----------------------------------------------------------------------------------

/** Opens a temporary connection, lists the tools and closes it (spec "MCP actions": check). */
export async function checkMcpServer(entry: McpActionEntry, ctx: OperationContext, options: McpActionOptions): Promise<McpActionResult> {
  const target = targetOf(entry, "check");
  const deadlineMs = options.deadlineMs ?? MCP_CHECK_DEADLINE_MS;
  const late = `The MCP check did not finish within ${Math.round(deadlineMs / 1000)} seconds.`;
  return withDeadline(ctx.signal, deadlineMs, late, async (signal) => {
    const secrets = new Secrets(target.secrets, target.name);
    const clientSecret = await clientSecretOf(target, options, secrets, signal).then(
      (value) => () => value,
      (error: unknown) => () => {
        throw error;
      },
    );
    const auth = httpAuth(target, options, clientSecret, () => undefined);
    const listed = await listServerTools(target, options, secrets, auth, signal);
    const disabled = target.enabled ? "" : " The server stays disabled in settings.";
    const report = `Checked "${target.name}" over ${transportLabel(target)} with a temporary connection: ${listed.summary}.${disabled} ${CLOSED_NOTE}`;
    return { report: secrets.hide(report), tools: listed.tools };
  });
}

/** Signs in to an OAuth-protected HTTP server with pi's sign-in, then lists its tools over a temporary connection. */
export async function loginMcpServer(entry: McpActionEntry, ctx: OperationContext, options: McpActionOptions): Promise<McpActionResult> {
  const target = targetOf(entry, "login");
  if (target.transport !== "http") throw new Error("Sign-in applies only to streamable HTTP servers.");
  const signal = ctx.signal;
  const secrets = new Secrets(target.secrets, target.name);
  const store = new McpCredentialFile(options.agentDir).forServer(target.name, target.url);
  const clientSecret = await clientSecretOf(target, options, secrets, signal);
  const settings = oauthSettingsWith(target, clientSecret);
  const authWith = (onChallenge: (challenge: OAuthChallenge) => void): AuthProvider | undefined =>
    httpAuth(target, options, () => clientSecret, onChallenge);
  // A first connection: it may need no sign-in at all, and otherwise its challenge names the resource metadata.
  let challenge: OAuthChallenge | undefined;
  const probe = await listServerTools(
    target,
    options,
    secrets,
    authWith((seen) => (challenge = seen)),
    signal,
  ).then(
    (listed) => ({ ok: true as const, listed }),
    (error: unknown) => ({ ok: false as const, error }),
  );
  if (probe.ok) {
    const report = `"${target.name}" needs no new sign-in: a temporary connection ${probe.listed.summary}. Sign out first to sign in again. ${CLOSED_NOTE}`;
    return { report: secrets.hide(report), tools: probe.listed.tools };
  }
  signal.throwIfAborted();
  const { callback, redirectUrl } = await listenForLoopbackSignIn({
    serverUrl: target.url,
    store,
    settings,
    clientMetadataDocuments: PI_CLIENT_METADATA_DOCUMENTS,
    renderPage: (page) =>
      page.ok ? oauthSuccessHtml("Signed in to the MCP server. You may now close this page.") : oauthErrorHtml(page.message, page.details),
  });
  let refreshed = false;
  try {
    const signIn = {
      serverUrl: target.url,
      store,
      settings,
      redirectUrl,
      signal,
      clientName: PI_CLIENT_NAME,
      clientMetadataDocuments: PI_CLIENT_METADATA_DOCUMENTS,
      ...(challenge === undefined ? {} : { challenge }),
    };
    const authorization = await startMcpSignIn(signIn);
    if (authorization.kind === "authorized") {
      refreshed = true;
    } else {
      ctx.notify({
        type: "auth_url",
        url: authorization.authorizationUrl,
        instructions: `Open this page to sign in to "${target.name}". If the browser cannot reach this machine, paste the address it was redirected to.`,
      });
      const response = await waitForLoopbackSignIn({
        callback,
        authorization,
        signal,
        promptForRedirectUrl: (promptSignal) =>
          ctx.prompt({
            type: "manual_code",
            message: "If the browser could not reach this machine, paste the full address it was redirected to.",
            placeholder: `${authorization.redirectUrl}?code=...`,
            signal: promptSignal,
          }),
      });
      await completeMcpSignIn({ ...signIn, authorization, response });
    }
  } catch (error) {
    if (error instanceof McpSignInCancelledError || signal.aborted) throw signal.reason ?? error;
    throw new Error(secrets.hide(`Sign-in to "${target.name}" failed: ${failureText(error)}`), { cause: error });
  } finally {
    await callback.close().catch(() => undefined);
  }
  const signedIn = refreshed ? `"${target.name}" was signed in again with its stored refresh token.` : `Signed in to "${target.name}".`;
  const stored = "pi's MCP credentials (mcp-auth.json) hold its tokens.";
  try {
    const listed = await listServerTools(
      target,
      options,
      secrets,
      authWith(() => undefined),
      signal,
    );
    return { report: secrets.hide(`${signedIn} ${stored} A temporary connection ${listed.summary}. ${CLOSED_NOTE}`), tools: listed.tools };
  } catch (error) {
    if (signal.aborted) throw signal.reason ?? error;
    return {
      report: secrets.hide(`${signedIn} ${stored} The connection after sign-in failed: ${describeFailure(error, target)}`),
      tools: [],
    };
  }
}

/** Removes the server's stored credentials; never connects or resolves a value (spec "MCP actions": logout). */
export async function logoutMcpServer(entry: McpActionEntry, ctx: OperationContext, options: McpActionOptions): Promise<McpActionResult> {
  const target = targetOf(entry, "logout");
  if (target.transport !== "http") throw new Error("Sign-out applies only to streamable HTTP servers.");
  ctx.signal.throwIfAborted();
  const removed = await new McpCredentialFile(options.agentDir).remove(target.name, target.url);
  const report = removed
    ? `Signed out of "${target.name}": its stored credentials were removed. Open conversations keep their connections until they reload.`
    : `"${target.name}" had no stored credentials.`;
  return { report, tools: [] };
}

const CLOSED_NOTE = "The temporary connection is closed; conversation connections are unchanged.";

function targetOf(entry: McpActionEntry, action: McpAction): McpServerTarget {
  const result = mcpServerTarget(entry.name, entry.config, action);
  if (!result.ok) throw new Error(result.message);
  return result.target;
}

function transportLabel(target: McpServerTarget): string {
  return target.transport === "stdio" ? "stdio" : "streamable HTTP";
}

// ---- Connections -------------------------------------------------------------------------------------------

interface Listed {
  summary: string;
  tools: McpToolView[];
}

/** Connects, lists every tool and closes; the connection is closed (its process group ended) before this settles. */
async function listServerTools(
  target: McpServerTarget,
  options: McpActionOptions,
  secrets: Secrets,
  auth: AuthProvider | undefined,
  signal: AbortSignal,
): Promise<Listed> {
  const transport = await createTransport(target, options, secrets, auth, signal);
  const client = new McpClient({
    name: PI_CLIENT_NAME,
    version: VERSION,
    requestTimeoutMs: (target.timeout ?? DEFAULT_TIMEOUT_SECONDS) * 1000,
    roots: [{ uri: pathToFileURL(options.cwd).href, name: path.basename(options.cwd) }],
  });
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> =>
    (closing ??= (async () => {
      await client.close().catch(() => undefined);
      await transport.close().catch(() => undefined);
    })());
  signal.addEventListener("abort", close, { once: true });
  try {
    signal.throwIfAborted();
    await untilAborted(client.connect(transport), signal);
    const tools = await untilAborted(client.listTools({ signal }), signal);
    await secrets.addStoredTokens(target, options);
    const info = client.serverInfo;
    const server = info ? `${info.name} ${info.version}`.replace(/\s+/g, " ").trim().slice(0, 120) : "the server";
    const shown = tools.slice(0, MAX_TOOLS).map((tool) => toolView(target, tool, secrets));
    const more = tools.length > MAX_TOOLS ? ` (the first ${MAX_TOOLS} are shown)` : "";
    return { summary: `${server} listed ${tools.length} tool${tools.length === 1 ? "" : "s"}${more}`, tools: shown };
  } catch (error) {
    if (signal.aborted) throw signal.reason ?? error;
    throw new Error(secrets.hide(describeFailure(error, target)), { cause: error });
  } finally {
    signal.removeEventListener("abort", close);
    await close();
  }
}

async function createTransport(
  target: McpServerTarget,
  options: McpActionOptions,
  secrets: Secrets,
  auth: AuthProvider | undefined,
  signal: AbortSignal,
): Promise<StdioTransport | StreamableHttpTransport> {
  const env = options.env ?? process.env;
  if (target.transport === "http") {
    if (target.authProvider !== undefined) {
      throw new Error(`"${target.name}" sends the "${target.authProvider}" provider's login token, which Pi Settings cannot check.`);
    }
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(target.headers)) {
      headers[name] = secrets.add(await resolveConfigValue(value, `MCP server "${target.name}" header "${name}"`, env, signal));
    }
    return new StreamableHttpTransport({
      url: target.url,
      headers,
      openGetStream: false,
      ...(auth === undefined ? {} : { authProvider: auth }),
    });
  }
  const resolvedEnv: Record<string, string> = {};
  for (const [name, value] of Object.entries(target.env)) {
    resolvedEnv[name] = secrets.add(await resolveConfigValue(value, `MCP server "${target.name}" env "${name}"`, env, signal));
  }
  return new StdioTransport({
    command: expandHome(target.command),
    args: target.args.map(expandHome),
    cwd: path.resolve(options.cwd, expandHome(target.cwd ?? ".")),
    // The server sees the backend's environment plus its own entries, as pi's servers see pi's.
    env: { ...definedValues(env), ...resolvedEnv },
    inheritEnv: false,
    stderr: "pipe",
  });
}

/**
 * pi's OAuth auth provider over the shared credential file, for the HTTP servers pi would sign in to (no
 * Authorization header, no provider token). `clientSecret` gives the resolved secret, or throws why it is not.
 */
function httpAuth(
  target: McpServerTarget,
  options: McpActionOptions,
  clientSecret: () => string | undefined,
  onChallenge: (challenge: OAuthChallenge) => void,
): AuthProvider | undefined {
  if (target.transport !== "http" || target.authProvider !== undefined) return undefined;
  if (Object.keys(target.headers).some((name) => name.toLowerCase() === "authorization")) return undefined;
  return createMcpAuthProvider({
    serverUrl: target.url,
    store: new McpCredentialFile(options.agentDir).forServer(target.name, target.url),
    // Called only when a refresh needs it, so a secret that failed to resolve fails the refresh, as in pi.
    settings: () => oauthSettingsWith(target, clientSecret()),
    onChallenge,
    clientName: PI_CLIENT_NAME,
    clientMetadataDocuments: PI_CLIENT_METADATA_DOCUMENTS,
  });
}

/** The configured OAuth client secret, resolved (undefined when none is configured). */
async function clientSecretOf(
  target: McpServerTarget,
  options: McpActionOptions,
  secrets: Secrets,
  signal: AbortSignal,
): Promise<string | undefined> {
  if (target.transport !== "http" || target.oauth.clientSecret === undefined) return undefined;
  const description = `MCP server "${target.name}" oauth.clientSecret`;
  return secrets.add(await resolveConfigValue(target.oauth.clientSecret, description, options.env ?? process.env, signal));
}

function oauthSettingsWith(target: McpServerTarget, clientSecret: string | undefined): McpOAuthSettings {
  if (target.transport !== "http") return {};
  const { clientId, scope, callbackPort, callbackUrl, clientName, clientRegistration, authServerMetadataUrl } = target.oauth;
  return {
    ...(clientId === undefined ? {} : { clientId }),
    ...(clientSecret === undefined ? {} : { clientSecret }),
    ...(scope === undefined ? {} : { scope }),
    ...(callbackPort === undefined ? {} : { callbackPort }),
    ...(callbackUrl === undefined ? {} : { callbackUrl }),
    ...(clientName === undefined ? {} : { clientName }),
    ...(clientRegistration === undefined ? {} : { clientRegistration }),
    ...(authServerMetadataUrl === undefined ? {} : { authServerMetadataUrl: new URL(authServerMetadataUrl) }),
  };
}

function toolView(target: McpServerTarget, tool: Tool, secrets: Secrets): McpToolView {
  const description = (tool.description ?? tool.title ?? "").trim();
  return {
    name: secrets.hide(tool.name),
    description: secrets.hide(description.length > MAX_DESCRIPTION ? `${description.slice(0, MAX_DESCRIPTION)}…` : description),
    exposure: toolExposure(target, tool.name),
  };
}

/** pi's `getMcpToolExposure`: an exact `toolExposure` entry, else the first matching `*` pattern, else the server's. */
function toolExposure(target: McpServerTarget, toolName: string): string {
  const overrides = target.toolExposure;
  if (Object.hasOwn(overrides, toolName)) return overrides[toolName] ?? target.exposure;
  for (const [pattern, exposure] of Object.entries(overrides)) {
    if (!pattern.includes("*")) continue;
    const source = pattern
      .split("*")
      .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
      .join(".*");
    if (new RegExp(`^${source}$`).test(toolName)) return exposure;
  }
  return target.exposure;
}

/** A controlled, one-line description of a failure: our words for the known kinds, a cut message otherwise. */
function describeFailure(error: unknown, target: McpServerTarget): string {
  const name = `MCP server "${target.name}"`;
  if (error instanceof McpOAuthAuthorizationRequiredError || error instanceof McpAuthRequiredError) return `${name} requires sign-in.`;
  if (error instanceof McpTimeoutError) return `${name} did not answer within ${target.timeout ?? DEFAULT_TIMEOUT_SECONDS} seconds.`;
  if (error instanceof McpHttpError) return `${name} answered HTTP ${error.status}.`;
  if (error instanceof McpConnectionClosedError) return `${name} closed the connection before answering.`;
  if (error instanceof McpError) return `${name} returned an error: ${failureText(error)}`;
  const code = error instanceof Error && "code" in error ? String(error.code) : "";
  if (code === "ENOENT") return `${name} could not start: its command or working directory was not found.`;
  if (code === "EACCES") return `${name} could not start: permission denied.`;
  if (error instanceof TypeError) return `${name} could not be reached.`;
  return `${name} failed: ${failureText(error)}`;
}

function failureText(error: unknown): string {
  const text = (error instanceof Error ? error.message : String(error)).replace(/\s+/g, " ").trim();
  return text.length > 300 ? `${text.slice(0, 300)}…` : text || "unknown error";
}

// ---- Deadline and cancellation -----------------------------------------------------------------------------

/** Runs `work` with a signal that aborts with the parent's reason or, after `ms`, with `message`. */
async function withDeadline<T>(parent: AbortSignal, ms: number, message: string, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new Error(message)), ms);
  const forward = (): void => controller.abort(parent.reason);
  if (parent.aborted) forward();
  else parent.addEventListener("abort", forward, { once: true });
  try {
    return await work(controller.signal);
  } finally {
    clearTimeout(timer);
    parent.removeEventListener("abort", forward);
  }
}

function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}

// ---- Secrets and stdio values ------------------------------------------------------------------------------

/**
 * Known and resolved secrets of one action; `hide` replaces them in any text that leaves. The server's name is
 * never one: it is shown anyway, and a value that happens to equal it would garble every message.
 */
class Secrets {
  private readonly values = new Set<string>();

  constructor(
    initial: readonly string[],
    private readonly name: string,
  ) {
    for (const value of initial) this.add(value);
  }

  add(value: string): string {
    for (const part of [value, ...value.split(/\s+/).filter((piece) => piece.length >= 8)]) {
      if (part.length >= MIN_SECRET_LENGTH && part !== this.name) this.values.add(part);
    }
    return value;
  }

  async addStoredTokens(target: McpServerTarget, options: McpActionOptions): Promise<void> {
    if (target.transport !== "http") return;
    const store = new McpCredentialFile(options.agentDir).forServer(target.name, target.url);
    const state = await Promise.resolve()
      .then(() => store.load())
      .catch(() => undefined);
    for (const token of [state?.tokens?.access_token, state?.tokens?.refresh_token, state?.tokens?.id_token]) if (token) this.add(token);
  }

  hide(text: string): string {
    return redactSecrets(text, [...this.values]);
  }
}

function definedValues(env: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((pair): pair is [string, string] => pair[1] !== undefined));
}

function expandHome(value: string): string {
  if (value === "~") return homedir();
  return value.startsWith("~/") ? path.join(homedir(), value.slice(2)) : value;
}

/**
 * The rules a global mcp.json server entry must pass, as pi 1.6 applies them when it loads the file
 * (pi-mcp's `validateMcpServerConfig` plus pi's exposure and `auth` checks, same messages), and the checks of
 * the values an edit supplies (spec "MCP configuration"). Kept here instead of calling pi's validator because
 * domain code may only import pi's types; mcp-config.test.ts pins the mirrored behaviour.
 *
 * Pure.
 */
import type { McpValues } from "../contract/http-pi-settings.ts";
import { containsRedaction } from "./redaction.ts";
import { isRecord } from "../transcript/message-content.ts";

/** Server names: letters, digits, `_` and `-` (pi builds tool names and namespaces from them). */
export const MCP_SERVER_NAME = /^[A-Za-z0-9_-]+$/;

/** pi's exposures; `codemode-deferred` is an accepted alias of `codemode`. */
export const MCP_EXPOSURES = ["codemode", "deferred", "direct", "hidden"] as const;

/** Exposures an edit may newly select (Leyline excludes Codemode). */
export const MCP_EDIT_EXPOSURES = ["deferred", "direct", "hidden"] as const;

const EXPOSURE_ALIASES: Readonly<Record<string, string>> = { "codemode-deferred": "codemode" };

export const LOOPBACK_HOSTS: readonly string[] = ["localhost", "127.0.0.1", "[::1]"];

/** Fields only a stdio server has, and only an HTTP server has (`auth` is pi's provider-token field). */
export const STDIO_FIELDS = ["command", "args", "cwd", "env"] as const;
export const HTTP_FIELDS = ["url", "headers", "oauth", "auth"] as const;

function isStringRecord(value: unknown): value is Record<string, string> {
  return isRecord(value) && Object.values(value).every((entry) => typeof entry === "string");
}

function canParseUrl(text: string): boolean {
  try {
    new URL(text);
    return true;
  } catch {
    return false;
  }
}

/** pi-mcp's `mcpNamespace`: names that differ only in `-` and `_` share one. */
export function mcpNamespace(name: string): string {
  return `mcp__${name.replace(/-/g, "_")}`;
}

/** The legacy SSE transport, named by pi's `type` or by the `transport` field other clients write. */
export function isLegacySse(entry: Record<string, unknown>): boolean {
  return entry.type === "sse" || entry.transport === "sse";
}

/**
 * The transport an entry is shown with: pi's choice for a valid entry (a `url` under type http /
 * streamable-http / none, else a `command` under stdio / none), and a best guess for an invalid one.
 */
export function mcpEntryTransport(entry: Record<string, unknown>): "http" | "stdio" {
  const { type, url, command } = entry;
  if (typeof url === "string" && (type === undefined || type === "http" || type === "streamable-http")) return "http";
  if (typeof command === "string" && (type === undefined || type === "stdio")) return "stdio";
  if (typeof url === "string" || type === "http" || type === "streamable-http" || type === "sse") return "http";
  return "stdio";
}

/** Whether HTTP headers carry an `Authorization` header (any case): pi then skips OAuth. */
export function hasAuthorizationHeader(headers: unknown): boolean {
  return isRecord(headers) && Object.keys(headers).some((name) => name.toLowerCase() === "authorization");
}

/** A loopback redirect URI pi can serve: http on localhost, 127.0.0.1 or [::1], without query or fragment. */
function isLoopbackRedirectUri(value: string): boolean {
  if (!canParseUrl(value)) return false;
  const url = new URL(value);
  return url.protocol === "http:" && LOOPBACK_HOSTS.includes(url.hostname) && url.search === "" && url.hash === "";
}

/** pi's Client ID Metadata Documents list `/callback` on localhost and 127.0.0.1 (any port). */
function isClientMetadataDocumentCallback(callbackUrl: string | undefined): boolean {
  if (callbackUrl === undefined) return true;
  const url = new URL(callbackUrl);
  return url.hostname !== "[::1]" && url.pathname === "/callback";
}

function baseFieldsError(entry: Record<string, unknown>): string | undefined {
  const { enabled, timeout, description } = entry;
  if (enabled !== undefined && typeof enabled !== "boolean") return "enabled must be a boolean";
  if (description !== undefined && typeof description !== "string") return "description must be a string";
  if (timeout !== undefined && (typeof timeout !== "number" || !(timeout > 0))) return "timeout must be a positive number of seconds";
  return undefined;
}

function oauthError(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (!isRecord(value)) return "oauth must be an object";
  if (value.clientId !== undefined && typeof value.clientId !== "string") return "oauth.clientId must be a string";
  if (value.clientSecret !== undefined && typeof value.clientSecret !== "string") return "oauth.clientSecret must be a string";
  const port = value.callbackPort;
  if (port !== undefined && (typeof port !== "number" || !Number.isInteger(port) || port < 1 || port > 65535)) {
    return "oauth.callbackPort must be a port number";
  }
  if (value.callbackUrl !== undefined) {
    if (typeof value.callbackUrl !== "string" || !isLoopbackRedirectUri(value.callbackUrl)) {
      return "oauth.callbackUrl must be an http URI on localhost, 127.0.0.1, or [::1] without query or fragment";
    }
    const urlPort = new URL(value.callbackUrl).port;
    if (urlPort && port !== undefined && Number(urlPort) !== port) return "oauth.callbackUrl and oauth.callbackPort name different ports";
  }
  if (value.scope !== undefined && typeof value.scope !== "string") return "oauth.scope must be a string";
  if (value.clientName !== undefined && (typeof value.clientName !== "string" || !value.clientName.trim())) {
    return "oauth.clientName must be a non-empty string";
  }
  const registration = value.clientRegistration;
  if (registration !== undefined && registration !== "auto" && registration !== "dcr") {
    if (registration !== "cimd") return 'oauth.clientRegistration must be "auto", "dcr", or "cimd"';
    if (value.clientId !== undefined || value.clientName !== undefined) {
      return 'oauth.clientRegistration "cimd" cannot be combined with oauth.clientId or oauth.clientName';
    }
    if (!isClientMetadataDocumentCallback(typeof value.callbackUrl === "string" ? value.callbackUrl : undefined)) {
      return 'oauth.clientRegistration "cimd" requires oauth.callbackUrl on localhost or 127.0.0.1 with path /callback';
    }
  }
  const metadataUrl = value.authServerMetadataUrl;
  if (metadataUrl !== undefined) {
    const url = typeof metadataUrl === "string" && canParseUrl(metadataUrl) ? new URL(metadataUrl) : undefined;
    if (!url || !(url.protocol === "https:" || (url.protocol === "http:" && LOOPBACK_HOSTS.includes(url.hostname)))) {
      return "oauth.authServerMetadataUrl must be an https URL, or http on localhost, 127.0.0.1, or [::1]";
    }
  }
  return undefined;
}

function httpFieldsError(entry: Record<string, unknown>, url: string): string | undefined {
  if (!canParseUrl(url) || !/^https?:$/.test(new URL(url).protocol)) return "url must be an http or https URL";
  if (entry.headers !== undefined && !isStringRecord(entry.headers)) return "headers must map names to strings";
  const error = oauthError(entry.oauth);
  if (error) return error;
  const auth = entry.auth;
  if (auth === undefined) return undefined;
  if (!isRecord(auth) || typeof auth.provider !== "string" || !auth.provider) return "auth.provider must be a provider name";
  const parsed = new URL(url);
  if (parsed.protocol !== "https:" && !LOOPBACK_HOSTS.includes(parsed.hostname)) {
    return "auth requires an https URL, or http on localhost, 127.0.0.1, or [::1]";
  }
  return undefined;
}

function stdioFieldsError(entry: Record<string, unknown>): string | undefined {
  const { args, env, cwd } = entry;
  if (args !== undefined && !(Array.isArray(args) && args.every((arg) => typeof arg === "string"))) {
    return "args must be an array of strings";
  }
  if (env !== undefined && !isStringRecord(env)) return "env must map names to strings";
  if (cwd !== undefined && typeof cwd !== "string") return "cwd must be a string";
  return undefined;
}

function exposuresError(entry: Record<string, unknown>): string | undefined {
  const isExposure = (value: unknown): boolean => {
    const resolved = typeof value === "string" ? (EXPOSURE_ALIASES[value] ?? value) : value;
    return typeof resolved === "string" && (MCP_EXPOSURES as readonly string[]).includes(resolved);
  };
  const exposures = MCP_EXPOSURES.map((value) => `"${value}"`).join(", ");
  if (entry.exposure !== undefined && !isExposure(entry.exposure)) return `exposure must be one of ${exposures}`;
  const toolExposure = entry.toolExposure;
  if (toolExposure === undefined) return undefined;
  if (!isRecord(toolExposure)) return "toolExposure must map tool names to exposures";
  for (const [tool, value] of Object.entries(toolExposure)) {
    if (!isExposure(value)) return `toolExposure "${tool}" must be one of ${exposures}`;
  }
  return undefined;
}

/**
 * Why pi would refuse a global mcp.json entry, or undefined when it loads it. The legacy `transport: "sse"`
 * of other clients, which pi ignores and then fails to connect with, is refused as well.
 */
export function mcpEntryError(name: string, raw: unknown): string | undefined {
  if (!MCP_SERVER_NAME.test(name)) return `invalid server name "${name}" (use letters, digits, "_" and "-")`;
  if (!isRecord(raw)) return `server "${name}" must be an object`;
  const fieldsError = baseFieldsError(raw);
  if (fieldsError) return `server "${name}": ${fieldsError}`;
  if (isLegacySse(raw)) return `server "${name}": legacy SSE transport is not supported; use the streamable HTTP URL`;
  const { type, url, command } = raw;
  let error: string | undefined;
  if (typeof url === "string" && (type === undefined || type === "http" || type === "streamable-http")) {
    error = httpFieldsError(raw, url);
  } else if (typeof command === "string" && (type === undefined || type === "stdio")) {
    error = stdioFieldsError(raw);
  } else {
    return `server "${name}" needs either "command" (stdio) or "url" (streamable HTTP)`;
  }
  error ??= exposuresError(raw);
  return error ? `server "${name}": ${error}` : undefined;
}

// ---- Checks of the values an edit supplies ----------------------------------------------------------------

/** HTTP header names: RFC 9110 tokens. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** Why a supplied URL is not a complete HTTP(S) URL, or undefined. */
export function urlValueError(url: string): string | undefined {
  if (url === "" || url !== url.trim() || !canParseUrl(url)) return "url must be a complete http or https URL.";
  const parsed = new URL(url);
  if (!/^https?:$/.test(parsed.protocol) || parsed.hostname === "") return "url must be a complete http or https URL.";
  return undefined;
}

/** Why a supplied OAuth callback URL is refused, or undefined (spec: loopback HTTP, no credentials, query or fragment). */
export function callbackUrlError(value: string): string | undefined {
  const message = "oauth.callbackUrl must be an http URL on localhost, 127.0.0.1 or [::1] without credentials, query or fragment.";
  if (value !== value.trim() || !canParseUrl(value)) return message;
  const url = new URL(value);
  if (url.protocol !== "http:" || !LOOPBACK_HOSTS.includes(url.hostname)) return message;
  if (url.username !== "" || url.password !== "" || value.includes("@") || value.includes("?") || value.includes("#")) return message;
  return undefined;
}

export function isCallbackPort(value: unknown): value is number {
  return typeof value === "number" && Number.isInteger(value) && value >= 1 && value <= 65535;
}

export function headerNameError(name: string): string | undefined {
  return HEADER_NAME.test(name) ? undefined : `Header name "${name}" is not a valid HTTP header name.`;
}

export function headerValueError(name: string, value: string): string | undefined {
  return /[\r\n\0]/.test(value) ? `Header "${name}" cannot contain line breaks or NUL characters.` : undefined;
}

export function envNameError(name: string): string | undefined {
  return name !== "" && !/[=\0]/.test(name) ? undefined : `Environment variable name "${name}" is invalid.`;
}

/** A redacted display value sent back as a replacement (spec: "Do not send redacted display values"). */
export function redactedValueError(field: string, value: string): string | undefined {
  return containsRedaction(value) ? `${field} contains a redacted display value; enter the real value or omit the field.` : undefined;
}

/**
 * What an edit may supply: the contract's values, with `exposure` widened to a string so an unchanged legacy
 * exposure (`codemode`, `codemode-deferred`) can be sent back as it was shown.
 */
export type McpEditValues = Omit<McpValues, "exposure"> & { exposure?: string };

const VALUE_KEYS: ReadonlySet<string> = new Set([
  "url",
  "command",
  "args",
  "cwd",
  "enabled",
  "exposure",
  "timeout",
  "headers",
  "env",
  "removeHeaders",
  "removeEnv",
  "oauth",
]);
const OAUTH_KEYS: ReadonlySet<string> = new Set(["clientId", "clientSecret", "scope", "callbackPort", "callbackUrl"]);
const NOT_EDITABLE: ReadonlySet<string> = new Set(["type", "toolExposure", "autoEnableCodemode", "transport"]);

function stringListError(field: string, value: unknown): string | undefined {
  return Array.isArray(value) && value.every((item) => typeof item === "string") ? undefined : `${field} must be a list of strings.`;
}

function mapError(field: "headers" | "env", value: unknown): string | undefined {
  if (!isStringRecord(value)) return `${field} must map names to strings.`;
  for (const [name, entry] of Object.entries(value)) {
    const error =
      field === "headers"
        ? (headerNameError(name) ?? headerValueError(name, entry))
        : (envNameError(name) ?? (entry.includes("\0") ? `Environment variable "${name}" cannot contain NUL characters.` : undefined));
    if (error) return error;
    const redacted = redactedValueError(`${field === "headers" ? "Header" : "Environment variable"} "${name}"`, entry);
    if (redacted) return redacted;
  }
  return undefined;
}

/** The set+remove clash of one map: header names compare without case, environment names exactly. */
function setAndRemoveError(
  field: "headers" | "env",
  set: Record<string, string> | undefined,
  remove: string[] | undefined,
): string | undefined {
  if (set === undefined || remove === undefined) return undefined;
  const fold = (name: string): string => (field === "headers" ? name.toLowerCase() : name);
  const removed = new Set(remove.map(fold));
  const both = Object.keys(set).find((name) => removed.has(fold(name)));
  if (both === undefined) return undefined;
  return `${field === "headers" ? "Header" : "Environment variable"} "${both}" cannot be set and removed in the same request.`;
}

function oauthValuesError(value: unknown): string | undefined {
  if (!isRecord(value)) return "oauth must be an object.";
  for (const [key, entry] of Object.entries(value)) {
    if (!OAUTH_KEYS.has(key)) return `oauth.${key} is not editable here.`;
    if (entry === null || entry === undefined) continue;
    if (key === "callbackPort") {
      if (!isCallbackPort(entry)) return "oauth.callbackPort must be an integer from 1 to 65535.";
      continue;
    }
    if (typeof entry !== "string" || entry.trim() === "") return `oauth.${key} must be a nonempty string or null.`;
    const error = redactedValueError(`oauth.${key}`, entry) ?? (key === "callbackUrl" ? callbackUrlError(entry) : undefined);
    if (error) return error;
  }
  return undefined;
}

/**
 * Why the supplied values are refused on their own (types, names, redacted display values, url XOR command,
 * set and remove of one entry), or undefined. Rules that depend on the existing entry are mcp-config.ts's.
 */
export function mcpValuesError(values: unknown): string | undefined {
  if (!isRecord(values)) return "values must be an object.";
  for (const key of Object.keys(values)) {
    if (NOT_EDITABLE.has(key)) return `${key} is not editable through Pi Settings.`;
    if (!VALUE_KEYS.has(key)) return `values.${key} is not a supported field.`;
  }
  const v = values as McpEditValues & Record<string, unknown>;
  if (v.url !== undefined && v.command !== undefined) return "Supply url for streamable HTTP or command for stdio, not both.";
  if (v.url !== undefined) {
    if (typeof v.url !== "string") return "url must be a complete http or https URL.";
    const error = redactedValueError("url", v.url) ?? urlValueError(v.url);
    if (error) return error;
  }
  if (v.command !== undefined) {
    if (typeof v.command !== "string" || v.command.trim() === "" || v.command !== v.command.trim() || v.command.includes("\0")) {
      return "command must be a nonempty executable name or path.";
    }
    const error = redactedValueError("command", v.command);
    if (error) return error;
  }
  if (v.args !== undefined && v.args !== null) {
    const error = stringListError("args", v.args);
    if (error) return error;
    if (v.args.some((arg) => arg.includes("\0"))) return "args cannot contain NUL characters.";
    if (v.args.some((arg) => containsRedaction(arg))) {
      return "args contain a redacted display value; enter the real arguments or omit args.";
    }
  }
  if (v.cwd !== undefined && v.cwd !== null) {
    if (typeof v.cwd !== "string" || v.cwd.trim() === "" || v.cwd.includes("\0")) return "cwd must be a nonempty path or null.";
    const error = redactedValueError("cwd", v.cwd);
    if (error) return error;
  }
  if (v.enabled !== undefined && typeof v.enabled !== "boolean") return "enabled must be a boolean.";
  if (v.exposure !== undefined && typeof v.exposure !== "string") return "exposure must be deferred, direct or hidden.";
  if (v.timeout !== undefined && v.timeout !== null && (typeof v.timeout !== "number" || !Number.isFinite(v.timeout) || v.timeout <= 0)) {
    return "timeout must be a finite positive number of seconds or null.";
  }
  for (const field of ["headers", "env"] as const) {
    const error = v[field] === undefined ? undefined : mapError(field, v[field]);
    if (error) return error;
  }
  for (const field of ["removeHeaders", "removeEnv"] as const) {
    const error = v[field] === undefined ? undefined : stringListError(field, v[field]);
    if (error) return error;
  }
  const clash = setAndRemoveError("headers", v.headers, v.removeHeaders) ?? setAndRemoveError("env", v.env, v.removeEnv);
  if (clash) return clash;
  return v.oauth === undefined ? undefined : oauthValuesError(v.oauth);
}

/**
 * The global mcp.json as Pi Settings shows and edits it (spec "MCP inventory", "MCP configuration", "MCP
 * actions"): the redacted inventory, server creation, edits and deletion as text edits of the strict-JSON file
 * (bytes outside the edited spans kept), and the resolved target of an action.
 *
 * Decisions the spec leaves open:
 * - PUT or DELETE of a server the file does not have is the spec's "unavailable MCP edit target": 409
 *   `conflict`. Only an action on a missing server is the 404 `settings_not_found` ("missing MCP action target").
 * - An invalid file (syntax, duplicate keys, `mcpServers` not an object) is "invalid stored configuration": 409
 *   for writes and actions; the inventory stays readable with `servers: []` and a warning.
 * - Creating a name that differs from an existing one only in `-` and `_` is a duplicate (409): pi would
 *   reject the second entry, since both share one tool namespace.
 * - `enabled: true` removes the key (pi's default) rather than writing it; a new entry gets `exposure:
 *   "deferred"` explicitly, since pi's default is codemode.
 * - Header names merge and remove without regard to case (an existing spelling is kept); environment names
 *   are exact. Empty maps, empty removal lists and nulls for the other transport's fields are no-ops.
 * - Known secrets (header and environment values, the OAuth client secret, URL credentials, query values and
 *   fragments, of every entry in the file) are redacted from all display text when at least 4 characters
 *   long; whitespace-separated parts of at least 8 characters count too (the token of "Bearer <token>").
 *
 * Pure.
 */
import type { McpInventory, McpServerSettings, McpValues } from "../contract/http-pi-settings.ts";
import { parseJsoncDocument } from "./jsonc-document.ts";
import { editJsoncDocument } from "./jsonc-edit.ts";
import {
  HTTP_FIELDS,
  hasAuthorizationHeader,
  isLegacySse,
  MCP_EDIT_EXPOSURES,
  MCP_SERVER_NAME,
  mcpEntryError,
  mcpEntryTransport,
  mcpNamespace,
  mcpValuesError,
  type McpEditValues,
  STDIO_FIELDS,
} from "./mcp-config-validation.ts";
import { displayUrl, redactSecrets } from "./redaction.ts";
import { isRecord } from "../transcript/message-content.ts";

export type { McpEditValues, McpInventory, McpServerSettings, McpValues };

export interface McpEditRequest {
  name: string;
  create: boolean;
  values: McpEditValues;
}

export type McpConfigErrorCode = "invalid_request" | "settings_not_found" | "conflict";
export interface McpConfigFailure {
  ok: false;
  code: McpConfigErrorCode;
  message: string;
}
export type McpEditResult = { ok: true; text: string } | McpConfigFailure;

export type McpAction = "check" | "login" | "logout";

/** OAuth settings of an HTTP server as configured (`clientSecret` unresolved). */
export interface McpOAuthTarget {
  clientId?: string;
  clientSecret?: string;
  scope?: string;
  callbackPort?: number;
  callbackUrl?: string;
  clientName?: string;
  clientRegistration?: "auto" | "dcr" | "cimd";
  authServerMetadataUrl?: string;
}

/** What every action target has. */
interface McpTargetBase {
  name: string;
  /** The server's exposure, aliases resolved (default codemode), and per-tool overrides. */
  exposure: string;
  toolExposure: Record<string, string>;
  timeout?: number;
  enabled: boolean;
  /** Known secrets of the file, for redacting what the action reports. */
  secrets: string[];
}

/** A valid server entry as an action uses it. Values are as configured: `${VAR}` and `!command` unresolved. */
export type McpServerTarget =
  | (McpTargetBase & { transport: "stdio"; command: string; args: string[]; env: Record<string, string>; cwd?: string })
  | (McpTargetBase & {
      transport: "http";
      url: string;
      headers: Record<string, string>;
      oauth: McpOAuthTarget;
      /** pi's `auth.provider`: the token of a pi provider login is sent instead of OAuth. */
      authProvider?: string;
    });

export type McpActionTargetResult = { ok: true; target: McpServerTarget } | McpConfigFailure;

const MIN_SECRET_LENGTH = 4;
const MIN_SECRET_PART_LENGTH = 8;

const fail = (code: McpConfigErrorCode, message: string): McpConfigFailure => ({ ok: false, code, message });

type ServersFile = { ok: true; root: Record<string, unknown>; servers: Record<string, unknown> } | { ok: false; message: string };

/** The file's `mcpServers` (empty for a missing or empty file), or why the file is invalid. */
function readServers(text: string | null): ServersFile {
  if (text === null) return { ok: true, root: {}, servers: {} };
  const parsed = parseJsoncDocument(text, "json", "mcp.json");
  if (!parsed.ok) return { ok: false, message: parsed.message };
  if (!isRecord(parsed.value)) return { ok: false, message: "mcp.json must contain a JSON object." };
  const servers = parsed.value.mcpServers;
  if (servers !== undefined && !isRecord(servers)) return { ok: false, message: 'mcp.json: "mcpServers" must be an object.' };
  return { ok: true, root: parsed.value, servers: servers ?? {} };
}

function invalidFile(message: string): McpConfigFailure {
  return fail("conflict", `The global mcp.json is invalid: ${message} Fix the file before editing MCP servers.`);
}

// ---- Known secrets and the inventory -----------------------------------------------------------------------

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function urlSecrets(url: string): string[] {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return [];
  }
  const query = parsed.search
    .slice(1)
    .split("&")
    .map((part) => (part.includes("=") ? part.slice(part.indexOf("=") + 1) : part));
  return [parsed.username, parsed.password, ...query, parsed.hash.slice(1)].flatMap((part) => [part, safeDecode(part)]);
}

/** The secrets a server entry knows: header and environment values, OAuth client secret, URL credentials, query and fragment. */
export function mcpEntrySecrets(entry: unknown): string[] {
  if (!isRecord(entry)) return [];
  const values: string[] = [];
  for (const field of ["headers", "env"] as const) {
    const map = entry[field];
    if (isRecord(map)) for (const value of Object.values(map)) if (typeof value === "string") values.push(value);
  }
  if (isRecord(entry.oauth) && typeof entry.oauth.clientSecret === "string") values.push(entry.oauth.clientSecret);
  if (typeof entry.url === "string") values.push(...urlSecrets(entry.url));
  const parts = values.flatMap((value) => value.split(/\s+/).filter((part) => part.length >= MIN_SECRET_PART_LENGTH));
  return [...new Set([...values.filter((value) => value.length >= MIN_SECRET_LENGTH), ...parts])];
}

/** Every entry's known secrets, minus the server names (shown anyway; a value equal to one would garble every message). */
function fileSecrets(servers: Record<string, unknown>): string[] {
  const names = new Set(Object.keys(servers));
  return [...new Set(Object.values(servers).flatMap(mcpEntrySecrets))].filter((secret) => !names.has(secret));
}

function configuredNames(map: unknown, hide: (text: string) => string): Array<{ name: string; configured: true }> {
  return isRecord(map) ? Object.keys(map).map((name) => ({ name: hide(name), configured: true as const })) : [];
}

function oauthView(oauth: unknown, hide: (text: string) => string): McpServerSettings["oauth"] {
  if (!isRecord(oauth)) return {};
  const view: McpServerSettings["oauth"] = {};
  if (typeof oauth.clientId === "string") view.clientId = hide(oauth.clientId);
  if (typeof oauth.scope === "string") view.scope = hide(oauth.scope);
  if (typeof oauth.callbackUrl === "string") view.callbackUrl = hide(displayUrl(hide(oauth.callbackUrl)));
  if (typeof oauth.callbackPort === "number") view.callbackPort = oauth.callbackPort;
  view.clientSecretConfigured = typeof oauth.clientSecret === "string" && oauth.clientSecret !== "";
  return view;
}

function serverView(name: string, raw: unknown, error: string | undefined, hide: (text: string) => string): McpServerSettings {
  if (!isRecord(raw)) {
    return { name, transport: "stdio", enabled: true, exposure: "codemode", headers: [], env: [], oauth: {}, error: hide(error ?? "") };
  }
  const view: McpServerSettings = {
    name,
    transport: mcpEntryTransport(raw),
    enabled: raw.enabled !== false,
    exposure: typeof raw.exposure === "string" ? hide(raw.exposure) : "codemode",
    headers: configuredNames(raw.headers, hide),
    env: configuredNames(raw.env, hide),
    oauth: oauthView(raw.oauth, hide),
  };
  if (typeof raw.url === "string") view.url = hide(displayUrl(hide(raw.url)));
  if (typeof raw.command === "string") view.command = hide(raw.command);
  if (typeof raw.cwd === "string") view.cwd = hide(raw.cwd);
  if (raw.args !== undefined) {
    view.argsConfigured = true;
    if (Array.isArray(raw.args)) view.argsCount = raw.args.length;
  }
  if (typeof raw.timeout === "number" && Number.isFinite(raw.timeout)) view.timeout = raw.timeout;
  if (error !== undefined) view.error = hide(error);
  return view;
}

/** pi's load errors per entry: its validation, then a clash with an earlier valid entry's namespace. */
function entryErrors(servers: Record<string, unknown>): Map<string, string> {
  const errors = new Map<string, string>();
  const namespaces = new Map<string, string>();
  for (const [name, raw] of Object.entries(servers)) {
    const error = mcpEntryError(name, raw);
    const clash = namespaces.get(mcpNamespace(name));
    if (error !== undefined) errors.set(name, error);
    else if (clash !== undefined) errors.set(name, `server "${name}" conflicts with "${clash}"`);
    else namespaces.set(mcpNamespace(name), name);
  }
  return errors;
}

/**
 * The inventory of the global mcp.json (`text` null or "" when missing). It never fails: an invalid file lists
 * no servers and says why in `warning`; an invalid entry is listed with its `error`.
 */
export function mcpInventory(text: string | null, revision: string): McpInventory {
  const file = readServers(text);
  if (!file.ok) return { revision, servers: [], warning: `The global mcp.json is invalid: ${file.message}` };
  const secrets = fileSecrets(file.servers);
  const hide = (value: string): string => redactSecrets(value, secrets);
  const errors = entryErrors(file.servers);
  const servers = Object.entries(file.servers).map(([name, raw]) => serverView(name, raw, errors.get(name), hide));
  const auto = file.root.autoEnableCodemode;
  return auto !== undefined && typeof auto !== "boolean"
    ? { revision, servers, warning: "mcp.json: autoEnableCodemode must be a boolean." }
    : { revision, servers };
}

// ---- Edits -----------------------------------------------------------------------------------------------

type Edit = { path: Array<string | number>; value: unknown };

/** Edits turning `before` into `after`, key by key inside objects, so untouched bytes stay. */
function diffEdits(path: Array<string | number>, before: unknown, after: unknown, out: Edit[]): void {
  if (isRecord(before) && isRecord(after)) {
    for (const key of Object.keys(before)) if (!Object.hasOwn(after, key)) out.push({ path: [...path, key], value: undefined });
    for (const [key, value] of Object.entries(after)) {
      if (Object.hasOwn(before, key)) diffEdits([...path, key], before[key], value, out);
      else out.push({ path: [...path, key], value });
    }
  } else if (JSON.stringify(before) !== JSON.stringify(after)) {
    out.push({ path, value: after });
  }
}

function applyEdits(text: string, edits: Edit[]): string {
  return edits.length === 0 ? text : editJsoncDocument(text, edits, "json");
}

function nameError(name: unknown): McpConfigFailure | undefined {
  if (typeof name !== "string" || !MCP_SERVER_NAME.test(name)) {
    return fail("invalid_request", "Server names may contain only letters, digits, underscores and hyphens.");
  }
  return undefined;
}

/** Sets or removes entries of a header or environment map (header names match without case); an emptied map goes. */
function mergeMap(current: unknown, set: Record<string, string> | undefined, remove: string[] | undefined, foldCase: boolean): unknown {
  if (set === undefined && remove === undefined) return current;
  const next: Record<string, unknown> = isRecord(current) ? { ...current } : {};
  const fold = (name: string): string => (foldCase ? name.toLowerCase() : name);
  const removed = new Set((remove ?? []).map(fold));
  for (const key of Object.keys(next)) if (removed.has(fold(key))) delete next[key];
  for (const [name, value] of Object.entries(set ?? {})) {
    const existing = Object.keys(next).find((key) => fold(key) === fold(name));
    // defineProperty: a name such as "__proto__" stays an ordinary key, as JSON.parse makes it.
    Object.defineProperty(next, existing ?? name, { value, enumerable: true, writable: true, configurable: true });
  }
  return Object.keys(next).length === 0 ? undefined : next;
}

function setOrDelete(entry: Record<string, unknown>, key: string, value: unknown): void {
  if (value === undefined || value === null) delete entry[key];
  else entry[key] = value;
}

/** The edited entry, or why the request cannot apply to it (spec "MCP configuration"). */
function editedEntry(
  name: string,
  existing: Record<string, unknown> | undefined,
  values: McpEditValues,
): { ok: true; entry: Record<string, unknown> } | McpConfigFailure {
  const entry: Record<string, unknown> = existing === undefined ? {} : structuredClone(existing);
  const from = existing === undefined ? undefined : mcpEntryTransport(existing);
  const target = values.url !== undefined ? "http" : values.command !== undefined ? "stdio" : from;
  if (target === undefined) return fail("invalid_request", "A new MCP server needs url (streamable HTTP) or command (stdio).");
  if (values.url === undefined && values.command === undefined) {
    if (isLegacySse(entry)) return fail("invalid_request", "Legacy SSE transport is unsupported. Supply the server's streamable HTTP url.");
    if (typeof entry.url !== "string" && typeof entry.command !== "string") {
      return fail("invalid_request", `MCP server "${name}" has neither url nor command; supply one.`);
    }
  }
  const isEmpty = (value: unknown): boolean =>
    value === undefined ||
    value === null ||
    (Array.isArray(value) ? value.length === 0 : isRecord(value) && Object.keys(value).length === 0);
  const foreign = target === "http" ? (["args", "cwd", "env", "removeEnv"] as const) : (["headers", "removeHeaders", "oauth"] as const);
  const misplaced = foreign.find((field) => !isEmpty(values[field]));
  if (misplaced !== undefined) {
    return fail("invalid_request", `${misplaced} applies only to ${target === "http" ? "stdio" : "streamable HTTP"} servers.`);
  }
  // Transport conversion: the other transport's fields go, and a `type` or legacy `transport` naming it.
  for (const field of target === "http" ? STDIO_FIELDS : HTTP_FIELDS) delete entry[field];
  const compatibleTypes = target === "http" ? [undefined, "http", "streamable-http"] : [undefined, "stdio"];
  if (!compatibleTypes.includes(entry.type as string | undefined)) delete entry.type;
  if (entry.transport === "sse") delete entry.transport;

  if (values.url !== undefined) entry.url = values.url;
  if (values.command !== undefined) entry.command = values.command;
  if (target === "stdio") {
    if (values.args !== undefined) setOrDelete(entry, "args", values.args === null ? null : [...values.args]);
    if (values.cwd !== undefined) setOrDelete(entry, "cwd", values.cwd);
    setOrDelete(entry, "env", mergeMap(entry.env, values.env, values.removeEnv, false));
  } else {
    setOrDelete(entry, "headers", mergeMap(entry.headers, values.headers, values.removeHeaders, true));
    const oauthError = applyOAuth(entry, values.oauth);
    if (oauthError) return oauthError;
  }
  if (values.enabled === false) entry.enabled = false;
  else if (values.enabled === true && entry.enabled !== undefined && entry.enabled !== true) delete entry.enabled;
  const shown = typeof existing?.exposure === "string" ? existing.exposure : existing === undefined ? undefined : "codemode";
  if (values.exposure !== undefined && values.exposure !== shown) {
    const selectable: readonly string[] = MCP_EDIT_EXPOSURES;
    if (!selectable.includes(values.exposure)) return fail("invalid_request", "exposure must be deferred, direct or hidden.");
    entry.exposure = values.exposure;
  }
  if (existing === undefined && entry.exposure === undefined) entry.exposure = "deferred";
  if (values.timeout !== undefined) setOrDelete(entry, "timeout", values.timeout);
  return { ok: true, entry };
}

function applyOAuth(entry: Record<string, unknown>, oauth: McpEditValues["oauth"]): McpConfigFailure | undefined {
  if (oauth === undefined || Object.keys(oauth).length === 0) return undefined;
  const next: Record<string, unknown> = isRecord(entry.oauth) ? { ...entry.oauth } : {};
  for (const [key, value] of Object.entries(oauth)) if (value !== undefined) setOrDelete(next, key, value);
  const port = next.callbackPort;
  if (typeof next.callbackUrl === "string" && typeof port === "number") {
    let urlPort: string;
    try {
      urlPort = new URL(next.callbackUrl).port;
    } catch {
      urlPort = "";
    }
    if (urlPort !== "" && Number(urlPort) !== port) return fail("invalid_request", "The callback URL's port must match callbackPort.");
  }
  setOrDelete(entry, "oauth", Object.keys(next).length === 0 ? undefined : next);
  return undefined;
}

/** Creates (`create`) or edits one server of the global mcp.json text ("" when missing); the new text or why not. */
export function editMcpServer(text: string, request: McpEditRequest): McpEditResult {
  const badName = nameError(request.name);
  if (badName) return badName;
  const { name, create, values } = request;
  const valuesError = mcpValuesError(values);
  if (valuesError) return fail("invalid_request", valuesError);
  const file = readServers(text);
  if (!file.ok) return invalidFile(file.message);
  const existing = Object.hasOwn(file.servers, name) ? file.servers[name] : undefined;
  if (create) {
    if (existing !== undefined) return fail("conflict", `MCP server "${name}" already exists.`);
    const clash = Object.keys(file.servers).find((other) => mcpNamespace(other) === mcpNamespace(name));
    if (clash !== undefined) {
      return fail("conflict", `MCP server "${name}" would clash with "${clash}": names that differ only in "-" and "_" are one server.`);
    }
  } else {
    if (existing === undefined) return fail("conflict", `MCP server "${name}" is not in the global mcp.json. Refresh settings.`);
    if (!isRecord(existing)) return fail("conflict", `MCP server "${name}" is not an object in mcp.json; fix the file first.`);
  }
  const edited = editedEntry(name, isRecord(existing) ? existing : undefined, values);
  if (!edited.ok) return edited;
  const entry = edited.entry;
  const invalid = mcpEntryError(name, entry);
  if (invalid !== undefined) {
    const hide = (value: string): string => redactSecrets(value, [...fileSecrets(file.servers), ...mcpEntrySecrets(entry)]);
    return fail("invalid_request", `The edited MCP server would be invalid: ${hide(invalid)}`);
  }
  const edits: Edit[] = [];
  if (Object.hasOwn(file.root, "mcpServers")) diffEdits(["mcpServers", name], existing, entry, edits);
  else edits.push({ path: ["mcpServers"], value: { [name]: entry } });
  return { ok: true, text: applyEdits(text, edits) };
}

/** Removes one server entry, unknown fields included; the new text or why not. */
export function deleteMcpServer(text: string, name: string): McpEditResult {
  const badName = nameError(name);
  if (badName) return badName;
  const file = readServers(text);
  if (!file.ok) return invalidFile(file.message);
  if (!Object.hasOwn(file.servers, name)) return fail("conflict", `MCP server "${name}" is not in the global mcp.json. Refresh settings.`);
  return { ok: true, text: applyEdits(text, [{ path: ["mcpServers", name], value: undefined }]) };
}

// ---- Actions ---------------------------------------------------------------------------------------------

function stringMap(value: unknown): Record<string, string> {
  return isRecord(value)
    ? Object.fromEntries(Object.entries(value).filter((pair): pair is [string, string] => typeof pair[1] === "string"))
    : {};
}

function oauthTarget(value: unknown): McpOAuthTarget {
  if (!isRecord(value)) return {};
  const target: McpOAuthTarget = {};
  for (const key of ["clientId", "clientSecret", "scope", "callbackUrl", "clientName", "authServerMetadataUrl"] as const) {
    const field = value[key];
    if (typeof field === "string") target[key] = field;
  }
  if (typeof value.callbackPort === "number") target.callbackPort = value.callbackPort;
  const registration = value.clientRegistration;
  if (registration === "auto" || registration === "dcr" || registration === "cimd") target.clientRegistration = registration;
  return target;
}

/**
 * The server an action names, checked: 404 when the file lacks it, 409 when the file or the entry is invalid,
 * 400 when login or logout names a stdio server, one with an Authorization header or a pi provider login.
 */
export function mcpActionTarget(text: string | null, name: string, action: McpAction): McpActionTargetResult {
  const file = readServers(text);
  if (!file.ok) return invalidFile(file.message);
  if (!Object.hasOwn(file.servers, name)) {
    return fail("settings_not_found", `MCP server "${name}" is not configured in the global mcp.json.`);
  }
  const clash = entryErrors(file.servers).get(name);
  const secrets = fileSecrets(file.servers);
  if (clash !== undefined) return fail("conflict", `MCP server "${name}" has an invalid configuration: ${redactSecrets(clash, secrets)}`);
  return mcpServerTarget(name, file.servers[name], action, secrets);
}

/** One entry as an action target (see mcpActionTarget); `secrets` adds known secrets beyond the entry's own. */
export function mcpServerTarget(name: string, raw: unknown, action: McpAction, secrets: readonly string[] = []): McpActionTargetResult {
  const known = [...new Set([...secrets, ...mcpEntrySecrets(raw)])].filter((secret) => secret !== name);
  const error = mcpEntryError(name, raw);
  if (error !== undefined || !isRecord(raw)) {
    return fail("conflict", `MCP server "${name}" has an invalid configuration: ${redactSecrets(error ?? "not an object", known)}`);
  }
  const alias = (value: unknown): string => (value === "codemode-deferred" ? "codemode" : typeof value === "string" ? value : "codemode");
  const base = {
    name,
    exposure: alias(raw.exposure),
    toolExposure: Object.fromEntries(Object.entries(stringMap(raw.toolExposure)).map(([tool, value]) => [tool, alias(value)])),
    enabled: raw.enabled !== false,
    ...(typeof raw.timeout === "number" ? { timeout: raw.timeout } : {}),
    secrets: known,
  };
  if (mcpEntryTransport(raw) === "stdio") {
    if (action !== "check") return fail("invalid_request", "Sign-in and sign-out apply only to streamable HTTP servers.");
    const args = Array.isArray(raw.args) ? raw.args.filter((arg): arg is string => typeof arg === "string") : [];
    const cwd = typeof raw.cwd === "string" ? { cwd: raw.cwd } : {};
    const command = String(raw.command);
    return { ok: true, target: { ...base, transport: "stdio", command, args, env: stringMap(raw.env), ...cwd } };
  }
  const authProvider = isRecord(raw.auth) && typeof raw.auth.provider === "string" ? raw.auth.provider : undefined;
  if (action !== "check" && hasAuthorizationHeader(raw.headers)) {
    return fail("invalid_request", "This server sends an Authorization header; sign-in applies only to HTTP servers without one.");
  }
  if (action !== "check" && authProvider !== undefined) {
    return fail("invalid_request", `This server uses the "${authProvider}" provider login; sign in to that provider instead.`);
  }
  const provider = authProvider === undefined ? {} : { authProvider };
  const url = String(raw.url);
  return {
    ok: true,
    target: { ...base, transport: "http", url, headers: stringMap(raw.headers), oauth: oauthTarget(raw.oauth), ...provider },
  };
}

/**
 * The operation lock key of an action (spec "MCP actions"): HTTP servers by normalized URL, so aliases of one
 * credential record exclude each other; stdio servers by configuration path and name.
 */
export function mcpOperationKey(target: McpServerTarget, configPath: string): string {
  if (target.transport === "stdio") return `mcp-stdio:${configPath}#${target.name}`;
  try {
    return `mcp-url:${new URL(target.url).href}`;
  } catch {
    return `mcp-url:${target.url}`;
  }
}

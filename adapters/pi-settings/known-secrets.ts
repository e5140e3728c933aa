/**
 * Every secret value Pi Settings can know of, for the last line of defence: each response, operation snapshot
 * and log line of the settings routes has these replaced by "[redacted]" (domain/pi-settings/redaction.ts)
 * after it is built, whatever built it. The first line is that nothing copies a secret field into a response.
 *
 * Sources: auth.json (keys, tokens, provider env values), models.json (literal apiKey values and `!command`s,
 * header values), mcp.json (header and env values, OAuth client secrets), mcp-auth.json (tokens), and the
 * server's environment variables whose names say they hold a secret. Short values (< 6 characters) are left
 * out: replacing "true" or "1" everywhere would garble responses without protecting anything.
 */
import * as fs from "node:fs";
import { parseJsoncDocument } from "../../domain/pi-settings/jsonc-document.ts";
import { agentFiles } from "./settings-runtime.ts";

const MIN_SECRET_LENGTH = 6;
const SECRET_ENV_NAME = /(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL)/i;
/** pi 1.6's environment references in a value: `$NAME` or `${NAME}` (a bare NAME is a literal). */
const ENV_REFERENCE = /^\$(\{[A-Za-z_][A-Za-z0-9_]*\}|[A-Za-z_][A-Za-z0-9_]*)$/;
const MIN_ENV_SECRET_LENGTH = 8;
/** Numbers, booleans: never credentials. */
const PLAIN_VALUE = /^(\d+(\.\d+)?|true|false|yes|no|on|off)$/i;

function readJson(file: string, dialect: "jsonc" | "json"): unknown {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
  const parsed = parseJsoncDocument(text, dialect, file);
  if (parsed.ok) return parsed.value;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * The credential fields of auth.json (pi: `key`, OAuth `access`/`refresh`, provider `env` values) and
 * mcp-auth.json (OAuth tokens, client secret, PKCE verifier). Other fields there (server URLs, client ids,
 * scopes, token types, account ids) are not secret, and redacting them would break what the person sees (an
 * MCP sign-in link carries the server URL and client id).
 */
const CREDENTIAL_FIELDS = new Set([
  "key",
  "access",
  "refresh",
  "access_token",
  "refresh_token",
  "id_token",
  "client_secret",
  "codeVerifier",
  "code_verifier",
]);

function credentialLeaves(value: unknown, out: string[], underEnv = false): void {
  if (Array.isArray(value)) {
    for (const item of value) credentialLeaves(item, out, underEnv);
    return;
  }
  if (typeof value !== "object" || value === null) return;
  for (const [field, item] of Object.entries(value)) {
    if (typeof item === "string") {
      if (underEnv || CREDENTIAL_FIELDS.has(field)) out.push(item);
    } else {
      credentialLeaves(item, out, underEnv || field === "env");
    }
  }
}

function record(value: unknown): Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/** A configured key value: a literal or a `!command` is secret; an environment reference (`$NAME`) is not. */
function keyValue(value: unknown, out: string[]): void {
  if (typeof value !== "string") return;
  if (ENV_REFERENCE.test(value)) return;
  out.push(value);
  if (value.startsWith("!")) out.push(value.slice(1).trim());
}

export function knownSecrets(agentDir: string, env: NodeJS.ProcessEnv = process.env): string[] {
  const files = agentFiles(agentDir);
  const found: string[] = [];
  credentialLeaves(readJson(files.auth, "json"), found);
  credentialLeaves(readJson(files.mcpAuth, "json"), found);
  for (const provider of Object.values(record(record(readJson(files.models, "jsonc"))["providers"]))) {
    const entry = record(provider);
    keyValue(entry["apiKey"], found);
    for (const header of Object.values(record(entry["headers"]))) keyValue(header, found);
    for (const model of Array.isArray(entry["models"]) ? entry["models"] : []) {
      for (const header of Object.values(record(record(model)["headers"]))) keyValue(header, found);
    }
    for (const override of Object.values(record(entry["modelOverrides"]))) {
      for (const header of Object.values(record(record(override)["headers"]))) keyValue(header, found);
    }
  }
  for (const server of Object.values(record(record(readJson(files.mcp, "json"))["mcpServers"]))) {
    const entry = record(server);
    for (const header of Object.values(record(entry["headers"]))) keyValue(header, found);
    for (const value of Object.values(record(entry["env"]))) keyValue(value, found);
    keyValue(record(entry["oauth"])["clientSecret"], found);
  }
  // Environment values by their names' look: only ones that can be a credential (not a number, a flag or a short word).
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && SECRET_ENV_NAME.test(name) && value.length >= MIN_ENV_SECRET_LENGTH && !PLAIN_VALUE.test(value))
      found.push(value);
  }
  return [...new Set(found.filter((secret) => secret.length >= MIN_SECRET_LENGTH))];
}

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
const ENV_REFERENCE = /^[A-Z_][A-Z0-9_]*$/;

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

/** Every string leaf under `value` (keys excluded). */
function stringLeaves(value: unknown, out: string[]): void {
  if (typeof value === "string") out.push(value);
  else if (Array.isArray(value)) for (const item of value) stringLeaves(item, out);
  else if (typeof value === "object" && value !== null) for (const item of Object.values(value)) stringLeaves(item, out);
}

function record(value: unknown): Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/** A configured key value: a literal or a `!command` is secret; an environment variable's name is not. */
function keyValue(value: unknown, out: string[]): void {
  if (typeof value !== "string") return;
  if (ENV_REFERENCE.test(value)) return;
  out.push(value);
  if (value.startsWith("!")) out.push(value.slice(1).trim());
}

export function knownSecrets(agentDir: string, env: NodeJS.ProcessEnv = process.env): string[] {
  const files = agentFiles(agentDir);
  const found: string[] = [];
  // auth.json and mcp-auth.json hold nothing but credentials (provider ids are keys, not leaves).
  for (const [name, entry] of Object.entries(record(readJson(files.auth, "json")))) {
    const leaves: string[] = [];
    stringLeaves(entry, leaves);
    found.push(...leaves.filter((leaf) => leaf !== "api_key" && leaf !== "oauth" && leaf !== name));
  }
  stringLeaves(readJson(files.mcpAuth, "json"), found);
  for (const provider of Object.values(record(record(readJson(files.models, "jsonc"))["providers"]))) {
    const entry = record(provider);
    keyValue(entry["apiKey"], found);
    for (const header of Object.values(record(entry["headers"]))) keyValue(header, found);
    for (const model of Array.isArray(entry["models"]) ? entry["models"] : []) {
      for (const header of Object.values(record(record(model)["headers"]))) keyValue(header, found);
    }
  }
  for (const server of Object.values(record(record(readJson(files.mcp, "json"))["mcpServers"]))) {
    const entry = record(server);
    for (const header of Object.values(record(entry["headers"]))) keyValue(header, found);
    for (const value of Object.values(record(entry["env"]))) keyValue(value, found);
    keyValue(record(entry["oauth"])["clientSecret"], found);
  }
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && SECRET_ENV_NAME.test(name)) found.push(value);
  }
  return [...new Set(found.filter((secret) => secret.length >= MIN_SECRET_LENGTH))];
}

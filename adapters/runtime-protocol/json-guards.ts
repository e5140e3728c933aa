/**
 * Small hand-written guards for plain JSON values, shared by the runtime IPC validators and the faux script
 * loader. Each `check*` helper returns an error string (naming the field path) or null.
 */

export type JsonRecord = Record<string, unknown>;

export function isRecord(value: unknown): value is JsonRecord {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function describe(value: unknown): string {
  if (value === null) return "null";
  if (value === undefined) return "undefined";
  if (Array.isArray(value)) return "an array";
  return typeof value === "string" ? "a string" : `${typeof value === "object" ? "an" : "a"} ${typeof value}`;
}

/** A validation outcome: the typed value or a human-readable reason. */
export type Checked<T> = { ok: true; value: T } | { ok: false; error: string };

export function fail<T>(error: string): Checked<T> {
  return { ok: false, error };
}

export function checkString(record: JsonRecord, key: string, path: string, options: { nonEmpty?: boolean } = {}): string | null {
  const value = record[key];
  if (typeof value !== "string") return `${path}.${key} must be a string (got ${describe(value)})`;
  if (options.nonEmpty && value.trim() === "") return `${path}.${key} must not be empty`;
  return null;
}

export function checkOptionalString(record: JsonRecord, key: string, path: string): string | null {
  return record[key] === undefined ? null : checkString(record, key, path);
}

export function checkOptionalBoolean(record: JsonRecord, key: string, path: string): string | null {
  const value = record[key];
  if (value === undefined || typeof value === "boolean") return null;
  return `${path}.${key} must be a boolean (got ${describe(value)})`;
}

export function checkBoolean(record: JsonRecord, key: string, path: string): string | null {
  return typeof record[key] === "boolean" ? null : `${path}.${key} must be a boolean (got ${describe(record[key])})`;
}

export function checkNumber(record: JsonRecord, key: string, path: string): string | null {
  const value = record[key];
  return typeof value === "number" && Number.isFinite(value) ? null : `${path}.${key} must be a finite number (got ${describe(value)})`;
}

export function checkOptionalNumber(record: JsonRecord, key: string, path: string): string | null {
  return record[key] === undefined ? null : checkNumber(record, key, path);
}

export function checkOneOf(record: JsonRecord, key: string, path: string, allowed: readonly string[], optional = false): string | null {
  const value = record[key];
  if (optional && value === undefined) return null;
  if (typeof value === "string" && allowed.includes(value)) return null;
  return `${path}.${key} must be one of ${allowed.join(", ")} (got ${typeof value === "string" ? JSON.stringify(value) : describe(value)})`;
}

export function checkStringArray(record: JsonRecord, key: string, path: string, optional = false): string | null {
  const value = record[key];
  if (optional && value === undefined) return null;
  if (!Array.isArray(value)) return `${path}.${key} must be an array of strings (got ${describe(value)})`;
  const bad = value.findIndex((item) => typeof item !== "string");
  return bad === -1 ? null : `${path}.${key}[${bad}] must be a string`;
}

/** The first non-null error of a list of checks. */
export function firstError(...errors: Array<string | null>): string | null {
  for (const error of errors) if (error !== null) return error;
  return null;
}

/** Keys present on `record` that `allowed` does not list (unknown fields are rejected, not ignored). */
export function checkNoExtraKeys(record: JsonRecord, path: string, allowed: readonly string[]): string | null {
  const extra = Object.keys(record).filter((key) => !allowed.includes(key));
  return extra.length === 0 ? null : `${path} has unknown field(s): ${extra.join(", ")}`;
}

/**
 * Paths the client names (a `path` query or body field, a folder): `~` expanded, relative paths resolved from
 * the server process's directory.
 */
import path from "node:path";
import { expandHome } from "../sqlite/data-dir.ts";

/** A session file named by the client. */
export function resolveSessionPath(value: string): string {
  return path.resolve(expandHome(value.trim()));
}

/** A folder named by the client (the same rule as a session file). */
export function resolveFolder(value: string): string {
  return path.resolve(expandHome(value.trim()));
}

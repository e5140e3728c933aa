/**
 * A path the client names (a `path` query or body field, a session file, a folder): `~` expanded, relative
 * paths resolved from the server process's directory.
 */
import path from "node:path";
import { expandHome } from "../sqlite/data-dir.ts";

export function resolveClientPath(value: string): string {
  return path.resolve(expandHome(value.trim()));
}

/**
 * Where Leyline keeps its own data (`leyline.sqlite`): `LEYLINE_DATA_DIR`, else `~/.local/share/leyline`.
 * The environment is read here and only here; everything else takes the folder as a parameter.
 */
import os from "node:os";
import path from "node:path";

export const LEYLINE_DATABASE_FILE = "leyline.sqlite";

/** Expands a leading `~` (alone or followed by a separator) to the home directory. */
export function expandHome(p: string, home: string = os.homedir()): string {
  if (p === "~") return home;
  if (p.startsWith("~/") || p.startsWith("~\\")) return path.join(home, p.slice(2));
  return p;
}

export function resolveDataDir(env: NodeJS.ProcessEnv = process.env, home: string = os.homedir()): string {
  const fromEnv = env["LEYLINE_DATA_DIR"]?.trim();
  if (fromEnv) return path.resolve(expandHome(fromEnv, home));
  return path.join(home, ".local", "share", "leyline");
}

/**
 * pi's agent dir (`PI_CODING_AGENT_DIR` with `~` expanded, else `~/.pi/agent`) and its `sessions/` folder,
 * resolved the way pi's `getAgentDir()` does. The environment is read here and only here.
 */
import os from "node:os";
import path from "node:path";
import { expandHome } from "../sqlite/data-dir.ts";

export function resolveAgentDir(env: NodeJS.ProcessEnv = process.env, home: string = os.homedir()): string {
  const fromEnv = env["PI_CODING_AGENT_DIR"]?.trim();
  if (fromEnv) return path.resolve(expandHome(fromEnv, home));
  return path.join(home, ".pi", "agent");
}

export function sessionsDirOf(agentDir: string): string {
  return path.join(agentDir, "sessions");
}

/**
 * `<agentDir>/leyline-trash`: where every copy Leyline keeps before it rewrites, deletes or upgrades a session
 * file goes (beside pi's `sessions` folder; never inside a user's project, wherever the session file lies).
 */
export function leylineTrashDirOf(agentDir: string): string {
  return path.join(agentDir, "leyline-trash");
}

/**
 * Existing sessions for browser tests: a small pi version-3 session file (header, model change, then
 * alternating user and assistant messages) written where pi would write it,
 * `<agentDir>/sessions/--<cwd>--/<time>_<id>.jsonl`. The assistant messages name the faux model, so the
 * session can be resumed with the scripted provider.
 */
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import path from "node:path";

export interface SeedSession {
  cwd: string;
  /** User and assistant texts, alternating, user first. */
  messages: string[];
  /** Session start, ms since the epoch. */
  startMs: number;
  /** A session name (pi's session_info entry). */
  name?: string;
}

/** pi's session folder name for a working directory. */
export function sessionFolderName(cwd: string): string {
  return `--${cwd.replace(/^[/\\]/, "").replace(/[/\\:]/g, "-")}--`;
}

const ZERO_USAGE = {
  input: 120,
  output: 40,
  cacheRead: 0,
  cacheWrite: 0,
  totalTokens: 160,
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
};

/** Writes the session file; returns its id and path. */
export function writeSeedSession(sessionsDir: string, seed: SeedSession): { id: string; file: string } {
  const id = randomUUID();
  const folder = path.join(sessionsDir, sessionFolderName(seed.cwd));
  fs.mkdirSync(folder, { recursive: true });
  const iso = (ms: number): string => new Date(ms).toISOString();
  const file = path.join(folder, `${iso(seed.startMs).replace(/[:.]/g, "-")}_${id}.jsonl`);
  const lines: unknown[] = [{ type: "session", version: 3, id, timestamp: iso(seed.startMs), cwd: seed.cwd }];
  let parentId: string | null = null;
  let clock = seed.startMs;
  let n = 0;
  const entry = (body: Record<string, unknown>): void => {
    clock += 1000;
    const entryId = `e${(++n).toString(16).padStart(7, "0")}`;
    lines.push({ ...body, id: entryId, parentId, timestamp: iso(clock) });
    parentId = entryId;
  };
  entry({ type: "model_change", provider: "faux", modelId: "faux-1" });
  if (seed.name !== undefined) entry({ type: "session_info", name: seed.name });
  seed.messages.forEach((text, index) => {
    const message =
      index % 2 === 0
        ? { role: "user", content: [{ type: "text", text }], timestamp: clock + 1000 }
        : {
            role: "assistant",
            content: [{ type: "text", text }],
            api: "faux",
            provider: "faux",
            model: "faux-1",
            usage: ZERO_USAGE,
            stopReason: "stop",
            timestamp: clock + 1000,
          };
    entry({ type: "message", message });
  });
  fs.writeFileSync(file, `${lines.map((line) => JSON.stringify(line)).join("\n")}\n`);
  return { id, file };
}

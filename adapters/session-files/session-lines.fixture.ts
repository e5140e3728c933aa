/**
 * Test-only builders of pi session lines (version 3) and temp folders. Used by the integration tests of the
 * read side; not imported by production code.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

export function tempDir(prefix: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), `leyline-${prefix}-`));
}

export function headerLine(id: string, cwd = "/work/project"): string {
  return JSON.stringify({ type: "session", version: 3, id, timestamp: "2025-01-02T03:04:05.000Z", cwd }) + "\n";
}

let counter = 0;

/** A user message entry; `parentId` chains entries. */
export function userLine(text: string, parentId: string | null, id = `e${(++counter).toString(16).padStart(7, "0")}`): string {
  return (
    JSON.stringify({
      type: "message",
      id,
      parentId,
      timestamp: "2025-01-02T03:05:00.000Z",
      message: { role: "user", content: [{ type: "text", text }], timestamp: 1735787100000 + counter },
    }) + "\n"
  );
}

export function entryLine(type: string, id: string, parentId: string | null, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ type, id, parentId, timestamp: "2025-01-02T03:06:00.000Z", ...extra }) + "\n";
}

/** A complete small session: header and `messages` user messages in a chain. */
export function sessionText(id: string, messages: number, text = "hello"): string {
  let out = headerLine(id);
  let parent: string | null = null;
  for (let i = 0; i < messages; i++) {
    const entryId = `${id.slice(0, 4)}${i.toString(16).padStart(4, "0")}`;
    out += userLine(`${text} ${i}`, parent, entryId);
    parent = entryId;
  }
  return out;
}

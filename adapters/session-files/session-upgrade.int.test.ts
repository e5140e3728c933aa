/**
 * The file-level v1/v2 → v3 upgrade on pi's own v1 fixtures and a hand-written v2 file: the trash copy is
 * byte-identical, the ids after the upgrade are the ids the read side showed before it, and pi's own
 * `SessionManager.open` then reads the same ids and writes nothing (bytes and mtime unchanged).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { SessionManager } from "@earendil-works/pi-coding-agent";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeSessionText, decoderStats } from "../../domain/session-decoder.ts";
import type { LogRecord } from "../../domain/session-log.ts";
import { PI_SESSION_FIXTURES_DIR } from "../../test/support/fixtures.ts";
import { upgradedSessionText, upgradeSessionFile } from "./session-upgrade.ts";

let tmp = "";
let previousAgentDir: string | undefined;

beforeAll(() => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "leyline-upgrade-")));
  previousAgentDir = process.env["PI_CODING_AGENT_DIR"];
  process.env["PI_CODING_AGENT_DIR"] = path.join(tmp, "agent");
});

afterAll(() => {
  if (previousAgentDir === undefined) delete process.env["PI_CODING_AGENT_DIR"];
  else process.env["PI_CODING_AGENT_DIR"] = previousAgentDir;
  fs.rmSync(tmp, { recursive: true, force: true });
});

/** The entries as the read side shows them (id, parentId, type), in file order. */
function shownEntries(text: string): Array<{ id: string; parentId: string | null; type: string }> {
  return decodeSessionText(text).records.flatMap((record: LogRecord) =>
    record.kind === "entry" ? [{ id: record.entry.id, parentId: record.entry.parentId, type: record.entry.type }] : [],
  );
}

function copyInto(dir: string, name: string, text: string | Buffer): string {
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, name);
  fs.writeFileSync(file, text);
  // An old mtime, so that a rewrite by pi within the same millisecond would still show.
  fs.utimesSync(file, new Date("2024-01-01T00:00:00Z"), new Date("2024-01-01T00:00:00Z"));
  return file;
}

/** Opens the file with pi's SessionManager and reports its entry ids and whether the file changed. */
function openWithPi(file: string): { ids: string[]; unchanged: boolean } {
  const before = { bytes: fs.readFileSync(file), mtimeMs: fs.statSync(file).mtimeMs };
  const manager = SessionManager.open(file, path.dirname(file));
  const ids = manager.getEntries().map((entry) => entry.id);
  const after = { bytes: fs.readFileSync(file), mtimeMs: fs.statSync(file).mtimeMs };
  return { ids, unchanged: before.bytes.equals(after.bytes) && before.mtimeMs === after.mtimeMs };
}

const V2_TEXT = [
  JSON.stringify({ type: "session", version: 2, id: "v2-session", timestamp: "2025-06-01T10:00:00.000Z", cwd: "/tmp/project" }),
  JSON.stringify({
    type: "message",
    id: "aaaa0001",
    parentId: null,
    timestamp: "2025-06-01T10:00:01.000Z",
    message: { role: "user", content: "hi", timestamp: 1 },
  }),
  "this line is not JSON",
  "",
  JSON.stringify({
    type: "message",
    id: "aaaa0002",
    parentId: "aaaa0001",
    timestamp: "2025-06-01T10:00:02.000Z",
    message: { role: "hookMessage", customType: "x", content: "hook", display: true, timestamp: 2 },
  }),
  "[1,2,3]",
  JSON.stringify({
    type: "message",
    id: "aaaa0003",
    parentId: "aaaa0002",
    timestamp: "2025-06-01T10:00:03.000Z",
    message: {
      role: "assistant",
      content: [{ type: "text", text: "ok" }],
      provider: "anthropic",
      model: "claude-x",
      api: "anthropic-messages",
      usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 2 },
      stopReason: "stop",
      timestamp: 3,
    },
  }),
  "",
].join("\n");

describe("upgradeSessionFile", () => {
  for (const fixture of ["v1-before-compaction.jsonl", "v1-large-session.jsonl"]) {
    it(`upgrades pi's ${fixture} with the read side's ids, a byte-identical copy, and nothing left for pi to rewrite`, () => {
      const original = fs.readFileSync(path.join(PI_SESSION_FIXTURES_DIR, fixture));
      const dir = path.join(tmp, "agent", "sessions", `--${fixture}--`);
      const file = copyInto(dir, fixture, original);
      const shownBefore = shownEntries(original.toString("utf8"));
      expect(shownBefore.length).toBeGreaterThan(100);

      const trashDir = path.join(tmp, "agent", "leyline-trash");
      const now = new Date("2026-01-02T03:04:05.678Z");
      const upgrade = upgradeSessionFile(file, { trashDir, now });
      expect(upgrade).toEqual({
        fromVersion: 1,
        backupPath: path.join(trashDir, `${path.basename(fixture, ".jsonl")}.v1-2026-01-02T03-04-05-678Z.jsonl`),
      });
      expect(fs.readFileSync(upgrade?.backupPath ?? "").equals(original)).toBe(true);

      const text = fs.readFileSync(file, "utf8");
      expect(decoderStats(decodeSessionText(text).state).version).toBe(3);
      expect(JSON.parse(text.split("\n", 1)[0] ?? "")).toMatchObject({ type: "session", version: 3 });
      expect(shownEntries(text)).toEqual(shownBefore);
      // Compactions point at entries by id now (firstKeptEntryIndex is gone), as pi's own migration does.
      const compactions = text
        .split("\n")
        .filter((line) => line.includes('"type":"compaction"'))
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      if (fixture === "v1-before-compaction.jsonl")
        expect(compactions.map((c) => typeof c["firstKeptEntryId"])).toEqual(["string", "string"]);
      for (const compaction of compactions) expect(Object.keys(compaction)).not.toContain("firstKeptEntryIndex");

      const pi = openWithPi(file);
      expect(pi.unchanged).toBe(true);
      expect(pi.ids).toEqual(shownBefore.map((entry) => entry.id));
      // Already current: a second call changes nothing.
      expect(upgradeSessionFile(file, { trashDir, now })).toBeNull();
    });
  }

  it("upgrades a v2 file: hookMessage becomes custom, ids stay, non-JSON lines stay, non-object values go", () => {
    const dir = path.join(tmp, "agent", "sessions", "--v2--");
    const file = copyInto(dir, "v2.jsonl", V2_TEXT);
    const shownBefore = shownEntries(V2_TEXT);
    const trashDir = path.join(tmp, "agent", "leyline-trash");
    // A copy of that name exists already: the upgrade never overwrites it.
    const now = new Date("2026-01-02T03:04:05.678Z");
    const taken = path.join(trashDir, "v2.v2-2026-01-02T03-04-05-678Z.jsonl");
    fs.mkdirSync(trashDir, { recursive: true });
    fs.writeFileSync(taken, "someone else's copy\n");

    const upgrade = upgradeSessionFile(file, { trashDir, now });
    expect(upgrade?.fromVersion).toBe(2);
    expect(upgrade?.backupPath).toBe(path.join(trashDir, "v2.v2-2026-01-02T03-04-05-678Z-2.jsonl"));
    expect(fs.readFileSync(taken, "utf8")).toBe("someone else's copy\n");
    expect(fs.readFileSync(upgrade?.backupPath ?? "", "utf8")).toBe(V2_TEXT);

    const lines = fs.readFileSync(file, "utf8").split("\n").slice(0, -1);
    expect(JSON.parse(lines[0] ?? "")).toEqual({
      type: "session",
      version: 3,
      id: "v2-session",
      timestamp: "2025-06-01T10:00:00.000Z",
      cwd: "/tmp/project",
    });
    expect(lines).toContain("this line is not JSON");
    expect(lines).not.toContain("[1,2,3]");
    expect(lines).not.toContain("");
    expect(JSON.parse(lines[3] ?? "")).toMatchObject({ id: "aaaa0002", message: { role: "custom" } });
    expect(shownEntries(lines.join("\n") + "\n")).toEqual(shownBefore);
    const pi = openWithPi(file);
    expect(pi).toEqual({ ids: ["aaaa0001", "aaaa0002", "aaaa0003"], unchanged: true });
  });

  it("leaves current files and non-session files alone", () => {
    const dir = path.join(tmp, "agent", "sessions", "--v3--");
    const v3 = `${JSON.stringify({ type: "session", version: 3, id: "s3", timestamp: "2025-06-01T10:00:00.000Z", cwd: "/tmp" })}\n`;
    const file = copyInto(dir, "v3.jsonl", v3);
    const trashDir = path.join(tmp, "agent", "trash-unused");
    expect(upgradeSessionFile(file, { trashDir })).toBeNull();
    expect(fs.readFileSync(file, "utf8")).toBe(v3);
    expect(fs.existsSync(trashDir)).toBe(false);
    expect(upgradedSessionText("not a session\n")).toBeNull();
    expect(upgradedSessionText(`${JSON.stringify({ type: "message", id: "x" })}\n`)).toBeNull();
  });

  it("keeps a torn last line that is a complete object as the last entry (pi parses it too)", () => {
    const header = JSON.stringify({ type: "session", id: "torn", timestamp: "2025-06-01T10:00:00.000Z", cwd: "/tmp" });
    const entry = JSON.stringify({
      type: "message",
      timestamp: "2025-06-01T10:00:01.000Z",
      message: { role: "user", content: "hi", timestamp: 1 },
    });
    const upgraded = upgradedSessionText(`${header}\n${entry}`);
    expect(upgraded?.fromVersion).toBe(1);
    const lines = (upgraded?.text ?? "").split("\n");
    expect(lines).toHaveLength(3);
    expect(JSON.parse(lines[1] ?? "")).toMatchObject({ type: "message", parentId: null });
    expect(upgradedSessionText(`${header}\n${entry.slice(0, 20)}`)?.text).toBe(
      `${JSON.stringify({ ...JSON.parse(header), version: 3 })}\n`,
    );
  });
});

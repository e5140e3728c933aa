import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { readTail, type TailPosition, type TailRead } from "./file-tail.ts";
import { readSessionFile, type SessionFilePosition } from "./session-file-reader.ts";
import { headerLine, sessionText, tempDir, userLine } from "./session-lines.fixture.ts";

function positionOf(read: TailRead): TailPosition {
  if (read.kind !== "appended" && read.kind !== "restarted") throw new Error(`no position: ${read.kind}`);
  return read.position;
}

function linesOf(read: TailRead): string[] {
  if (read.kind !== "appended" && read.kind !== "restarted") throw new Error(`no lines: ${read.kind}`);
  return read.lines;
}

describe("readTail", () => {
  it("returns only the complete lines appended since the last read, in several steps", async () => {
    const file = path.join(tempDir("tail"), "a.jsonl");
    fs.writeFileSync(file, "one\ntwo\n");
    const first = await readTail(file, null);
    expect(first).toMatchObject({ kind: "restarted", reason: "new", lines: ["one", "two"] });
    let position = positionOf(first);
    expect(position.cursor.offset).toBe(8);

    const collected = [...linesOf(first)];
    for (const chunk of ["three\n", "four\nfive\n", "six\n"]) {
      fs.appendFileSync(file, chunk);
      const read = await readTail(file, position);
      expect(read.kind).toBe("appended");
      collected.push(...linesOf(read));
      position = positionOf(read);
    }
    expect(collected).toEqual(["one", "two", "three", "four", "five", "six"]);
    expect(position.cursor.offset).toBe(fs.statSync(file).size);
    expect(await readTail(file, position)).toMatchObject({ kind: "unchanged" });
  });

  it("holds back a torn last line, even one cut inside a UTF-8 sequence, until it is completed", async () => {
    const file = path.join(tempDir("tail"), "torn.jsonl");
    const line = JSON.stringify({ text: "héllo ✓ 🚀" });
    const bytes = Buffer.from(line + "\n", "utf8");
    const rocket = bytes.indexOf(Buffer.from("🚀", "utf8"));
    fs.writeFileSync(file, Buffer.concat([Buffer.from("first\n"), bytes.subarray(0, rocket + 2)]));
    const first = await readTail(file, null);
    expect(linesOf(first)).toEqual(["first"]);
    expect(positionOf(first).cursor.offset).toBe(6);

    fs.appendFileSync(file, bytes.subarray(rocket + 2, bytes.length - 1)); // still no newline
    const second = await readTail(file, positionOf(first));
    expect(second).toMatchObject({ kind: "appended", lines: [] });
    expect(positionOf(second).cursor.offset).toBe(6);

    fs.appendFileSync(file, "\n");
    const third = await readTail(file, positionOf(second));
    expect(third).toMatchObject({ kind: "appended", lines: [line] });
    expect(JSON.parse(linesOf(third)[0] as string)).toEqual({ text: "héllo ✓ 🚀" });
  });

  it("reads again from byte 0 when the file shrank", async () => {
    const file = path.join(tempDir("tail"), "shrink.jsonl");
    fs.writeFileSync(file, "a\nb\nc\n");
    const first = await readTail(file, null);
    fs.writeFileSync(file, "x\n");
    const second = await readTail(file, positionOf(first));
    expect(second).toMatchObject({ kind: "restarted", reason: "shrunk", lines: ["x"] });
  });

  it("reads again from byte 0 when the file was replaced by another of the same size", async () => {
    const dir = tempDir("tail");
    const file = path.join(dir, "replaced.jsonl");
    fs.writeFileSync(file, "aaaa\nbbbb\n");
    const first = await readTail(file, null);
    const next = path.join(dir, "next.tmp");
    fs.writeFileSync(next, "cccc\ndddd\n");
    fs.renameSync(next, file);
    const stat = fs.statSync(file);
    expect(stat.size).toBe(positionOf(first).stamp.size);
    const second = await readTail(file, positionOf(first));
    expect(second).toMatchObject({ kind: "restarted", reason: "replaced", lines: ["cccc", "dddd"] });
  });

  it("reads again from byte 0 when the file was rewritten in place (same inode) and then grew", async () => {
    const file = path.join(tempDir("tail"), "rewritten.jsonl");
    fs.writeFileSync(file, "header-1\nentry\n");
    const first = await readTail(file, null);
    const fd = fs.openSync(file, "r+");
    fs.writeSync(fd, Buffer.from("header-2\nentry\nmore\n"), 0, undefined, 0);
    fs.closeSync(fd);
    expect(String(fs.statSync(file).ino)).toBe(positionOf(first).stamp.ino);
    const second = await readTail(file, positionOf(first));
    expect(second).toMatchObject({ kind: "restarted", reason: "rewritten", lines: ["header-2", "entry", "more"] });
  });

  it("detects a rewrite of the bytes just before the offset in a long file", async () => {
    const file = path.join(tempDir("tail"), "long.jsonl");
    const body = Array.from({ length: 200 }, (_, i) => `line-${i}`).join("\n") + "\n";
    fs.writeFileSync(file, body);
    const first = await readTail(file, null);
    const changed = body.slice(0, body.length - 9) + "LINE-199\n";
    fs.writeFileSync(file, changed + "extra\n");
    const second = await readTail(file, positionOf(first));
    expect(second).toMatchObject({ kind: "restarted", reason: "rewritten" });
    expect(linesOf(second).slice(-2)).toEqual(["LINE-199", "extra"]);
  });

  it("reports a missing file", async () => {
    expect(await readTail(path.join(tempDir("tail"), "none.jsonl"), null)).toEqual({ kind: "missing" });
  });
});

describe("readSessionFile", () => {
  it("decodes appended lines with the carried decoder state, equal to decoding the whole file", async () => {
    const file = path.join(tempDir("session"), "s.jsonl");
    const text = sessionText("11111111-aaaa", 6);
    const cut = text.indexOf("\n", text.length / 2) + 5; // mid-line
    fs.writeFileSync(file, text.slice(0, cut));
    const first = await readSessionFile(file, null);
    if (first.kind !== "restarted") throw new Error(first.kind);
    fs.appendFileSync(file, text.slice(cut));
    const second = await readSessionFile(file, first.position);
    if (second.kind !== "appended") throw new Error(second.kind);
    const whole = await readSessionFile(path.join(file), null);
    if (whole.kind !== "restarted") throw new Error(whole.kind);
    expect([...first.records, ...second.records]).toEqual(whole.records);
    expect(second.position.decoder).toEqual(whole.position.decoder);
    expect(whole.records.map((r) => r.kind)).toEqual(["header", ...Array<string>(6).fill("entry")]);
  });

  it("starts decoding over after a restart", async () => {
    const file = path.join(tempDir("session"), "s.jsonl");
    fs.writeFileSync(file, headerLine("aaaa") + userLine("one", null, "a0000001") + userLine("two", "a0000001", "a0000002"));
    const first = await readSessionFile(file, null);
    fs.writeFileSync(file, headerLine("bbbb"));
    const second = await readSessionFile(file, (first as { position: SessionFilePosition }).position);
    expect(second.kind).toBe("restarted");
    if (second.kind !== "restarted") return;
    expect(second.records).toHaveLength(1);
    expect(second.position.decoder.sessionId).toBe("bbbb");
    expect(second.position.decoder.lines).toBe(1);
  });
});

describe("readTail with maxBytes (slices of a large file)", () => {
  /** Reads the whole file in slices of at most about `maxBytes`, from `start`; the lines and the final position. */
  function readInSlices(
    file: string,
    start: TailPosition | null,
    maxBytes: number,
  ): { lines: string[]; position: TailPosition; reads: number } {
    const lines: string[] = [];
    let position = start;
    let reads = 0;
    for (;;) {
      const read = readTail(file, position, { maxBytes });
      reads++;
      if (read.kind === "unchanged") break;
      lines.push(...linesOf(read));
      position = positionOf(read);
      if (read.kind !== "missing" && read.more !== true) break;
      if (reads > 10_000) throw new Error("no progress");
    }
    if (position === null) throw new Error("nothing read");
    return { lines, position, reads };
  }

  it("reads the same lines as one read, for any slice size, and ends at the same position", async () => {
    const file = path.join(tempDir("slices"), "a.jsonl");
    const lines = Array.from({ length: 60 }, (_, i) => `${"é".repeat(i % 7)}line ${i} ${"x".repeat((i * 37) % 301)}`);
    fs.writeFileSync(file, lines.join("\n") + "\n" + "torn");
    const whole = readTail(file, null);
    for (const maxBytes of [1, 7, 64, 300, 1000, 100_000]) {
      const sliced = readInSlices(file, null, maxBytes);
      expect(sliced.lines).toEqual(lines);
      expect(sliced.position).toEqual(positionOf(whole));
      if (maxBytes < 1000) expect(sliced.reads).toBeGreaterThan(1);
    }
  });

  it("goes on from a sliced position with appended lines, and still notices a rewrite", async () => {
    const file = path.join(tempDir("slices"), "b.jsonl");
    fs.writeFileSync(file, "one\ntwo\nthree\nfour\n");
    const first = readTail(file, null, { maxBytes: 5 });
    expect(first).toMatchObject({ kind: "restarted", lines: ["one"], more: true });
    fs.appendFileSync(file, "five\n");
    const rest = readInSlices(file, positionOf(first), 6);
    expect(rest.lines).toEqual(["two", "three", "four", "five"]);
    expect(readTail(file, rest.position)).toMatchObject({ kind: "unchanged" });

    const partial = readTail(file, null, { maxBytes: 5 });
    fs.writeFileSync(file, "ONE\ntwo\nthree\nfour\nfive\nsix\n");
    expect(readTail(file, positionOf(partial))).toMatchObject({ kind: "restarted", reason: "rewritten" });
  });

  it("reads a line longer than the limit whole", async () => {
    const file = path.join(tempDir("slices"), "c.jsonl");
    const long = "y".repeat(5000);
    fs.writeFileSync(file, `a\n${long}\nb\n`);
    const first = readTail(file, null, { maxBytes: 3 });
    expect(linesOf(first)).toEqual(["a"]);
    const second = readTail(file, positionOf(first), { maxBytes: 3 });
    expect(linesOf(second)).toEqual([long]);
    expect(second).toMatchObject({ more: true });
    const third = readTail(file, positionOf(second), { maxBytes: 3 });
    expect(linesOf(third)).toEqual(["b"]);
    expect(third).not.toHaveProperty("more");
  });
});

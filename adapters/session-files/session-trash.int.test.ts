import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { moveToTrash } from "./session-trash.ts";

const roots: string[] = [];
function tempRoot(): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "leyline-session-trash-"));
  roots.push(root);
  return root;
}
afterEach(() => {
  for (const root of roots.splice(0)) fs.rmSync(root, { recursive: true, force: true });
});

describe("moveToTrash", () => {
  it("moves the file into the trash (created if needed) under its own name, bytes unchanged", () => {
    const root = tempRoot();
    const file = path.join(root, "sessions", "s.jsonl");
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, '{"type":"session"}\n');
    const trashDir = path.join(root, "leyline-trash");
    const target = moveToTrash(file, trashDir);
    expect(target).toBe(path.join(trashDir, "s.jsonl"));
    expect(fs.existsSync(file)).toBe(false);
    expect(fs.readFileSync(target, "utf8")).toBe('{"type":"session"}\n');
  });

  it("never overwrites: a taken name gets .deleted-<time>, then -1, -2 …", () => {
    const root = tempRoot();
    const trashDir = path.join(root, "leyline-trash");
    const targets: string[] = [];
    for (let i = 0; i < 3; i++) {
      const file = path.join(root, "s.jsonl");
      fs.writeFileSync(file, `copy ${i}\n`);
      targets.push(moveToTrash(file, trashDir));
    }
    expect(path.basename(targets[0] ?? "")).toBe("s.jsonl");
    expect(path.basename(targets[1] ?? "")).toMatch(/^s\.deleted-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3}Z\.jsonl$/);
    expect(new Set(targets).size).toBe(3);
    expect(targets.map((target) => fs.readFileSync(target, "utf8"))).toEqual(["copy 0\n", "copy 1\n", "copy 2\n"]);
  });
});

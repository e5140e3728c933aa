import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { parsePorcelainStatus } from "./porcelain-status.ts";

const OID = "0ff3bbb9c8bba2291654cd64067fa417ff54c508";
const ZERO = "0000000000000000000000000000000000000000";

function ordinary(xy: string, path: string): string {
  return `1 ${xy} N... 100644 100644 100644 ${OID} ${OID} ${path}`;
}
function renamed(xy: string, score: string, path: string, oldPath: string): string[] {
  return [`2 ${xy} N... 100644 100644 100644 ${OID} ${OID} ${score} ${path}`, oldPath];
}
function unmerged(xy: string, path: string): string {
  return `u ${xy} N... 100644 100644 100644 100644 ${OID} ${OID} ${OID} ${path}`;
}
function output(records: string[]): string {
  return records.map((record) => `${record}\0`).join("");
}

describe("parsePorcelainStatus", () => {
  it("reads the branch and every kind of record, in git's order", () => {
    const text = output([
      `# branch.oid ${OID}`,
      "# branch.head main",
      "# branch.upstream origin/main",
      "# branch.ab +1 -0",
      ordinary("M.", "staged.txt"),
      ordinary(".M", "dir with space/working.txt"),
      ordinary("MM", "both.txt"),
      ordinary("A.", "new.txt"),
      ordinary(".A", "intent.txt"),
      ordinary("D.", "gone.txt"),
      ordinary(".D", "removed.txt"),
      ordinary("AD", "added-then-removed.txt"),
      ordinary("T.", "now-a-link"),
      ...renamed("R.", "R100", "after.txt", "before.txt"),
      ...renamed("C.", "C75", "copy.txt", "source.txt"),
      unmerged("UU", "conflict.txt"),
      unmerged("AA", "both-added.txt"),
      "? untracked.txt",
      "? nested/",
      "! ignored.log",
    ]);
    const status = parsePorcelainStatus(text);
    expect(status.branch).toBe("main");
    expect(status.ignored).toEqual(["ignored.log"]);
    const byPath = Object.fromEntries(status.files.map((file) => [file.path, file]));
    expect(status.files.map((file) => file.path)).toEqual([
      "staged.txt",
      "dir with space/working.txt",
      "both.txt",
      "new.txt",
      "intent.txt",
      "gone.txt",
      "removed.txt",
      "added-then-removed.txt",
      "now-a-link",
      "after.txt",
      "copy.txt",
      "conflict.txt",
      "both-added.txt",
      "untracked.txt",
      "nested/",
    ]);
    expect(byPath["staged.txt"]).toEqual({
      conflicted: false,
      indexStatus: "M",
      kind: "modified",
      oldPath: "",
      path: "staged.txt",
      staged: true,
      unstaged: false,
      untracked: false,
      worktreeStatus: " ",
    });
    expect(byPath["dir with space/working.txt"]).toMatchObject({
      kind: "modified",
      staged: false,
      unstaged: true,
      indexStatus: " ",
      worktreeStatus: "M",
    });
    expect(byPath["both.txt"]).toMatchObject({ kind: "modified", staged: true, unstaged: true });
    expect(byPath["new.txt"]).toMatchObject({ kind: "added", staged: true, unstaged: false });
    expect(byPath["intent.txt"]).toMatchObject({ kind: "added", staged: false, unstaged: true });
    expect(byPath["gone.txt"]?.kind).toBe("deleted");
    expect(byPath["removed.txt"]?.kind).toBe("deleted");
    expect(byPath["added-then-removed.txt"]?.kind).toBe("added");
    expect(byPath["now-a-link"]?.kind).toBe("replaced");
    expect(byPath["after.txt"]).toMatchObject({ kind: "renamed", oldPath: "before.txt", indexStatus: "R", staged: true });
    expect(byPath["copy.txt"]).toMatchObject({ kind: "copied", oldPath: "source.txt" });
    expect(byPath["conflict.txt"]).toEqual({
      conflicted: true,
      indexStatus: "U",
      kind: "conflicted",
      oldPath: "",
      path: "conflict.txt",
      staged: false,
      unstaged: true,
      untracked: false,
      worktreeStatus: "U",
    });
    expect(byPath["both-added.txt"]).toMatchObject({ kind: "conflicted", indexStatus: "A", worktreeStatus: "A" });
    expect(byPath["untracked.txt"]).toEqual({
      conflicted: false,
      indexStatus: "?",
      kind: "untracked",
      oldPath: "",
      path: "untracked.txt",
      staged: false,
      unstaged: true,
      untracked: true,
      worktreeStatus: "?",
    });
    expect(byPath["nested/"]?.kind).toBe("untracked");
  });

  it("calls a detached HEAD `HEAD` and an unborn branch by its name", () => {
    expect(parsePorcelainStatus(output(["# branch.oid (initial)", "# branch.head (detached)"])).branch).toBe("HEAD");
    expect(
      parsePorcelainStatus(output(["# branch.oid (initial)", "# branch.head trunk", `1 A. N... 000000 100644 100644 ${ZERO} ${OID} a`])),
    ).toMatchObject({ branch: "trunk", files: [{ path: "a", kind: "added" }] });
  });

  it("skips malformed and unknown records", () => {
    const status = parsePorcelainStatus(
      output(["1 M. short", "u UU too few fields", "x something", "?", "7 future record", ordinary(".M", "ok.txt")]),
    );
    expect(status.files.map((file) => file.path)).toEqual(["ok.txt"]);
    expect(parsePorcelainStatus("").files).toEqual([]);
  });

  // Paths as git prints them with -z: anything but NUL (spaces, tabs, newlines, quotes, non-ASCII).
  const pathArb = fc.string({
    minLength: 1,
    maxLength: 20,
    unit: fc.constantFrom("a", "b", " ", "\t", "\n", '"', "/", "é", "字", "-", "."),
  });
  const letterArb = fc.constantFrom(".", "M", "A", "D", "T");
  const recordArb = fc.oneof(
    fc.record({ type: fc.constant("1" as const), x: letterArb, y: letterArb, path: pathArb }),
    fc.record({ type: fc.constant("2" as const), x: fc.constantFrom("R", "C"), y: letterArb, path: pathArb, oldPath: pathArb }),
    fc.record({ type: fc.constant("u" as const), x: fc.constantFrom("U", "A", "D"), y: fc.constantFrom("U", "A", "D"), path: pathArb }),
    fc.record({ type: fc.constant("?" as const), path: pathArb }),
  );

  test.prop([fc.array(recordArb, { maxLength: 30 })])("reads back every path, old path and kind it is given", (records) => {
    const fields = records.flatMap((record) => {
      switch (record.type) {
        case "1":
          return [ordinary(`${record.x}${record.y}`, record.path)];
        case "2":
          return renamed(`${record.x}${record.y}`, `${record.x}100`, record.path, record.oldPath);
        case "u":
          return [unmerged(`${record.x}${record.y}`, record.path)];
        case "?":
          return [`? ${record.path}`];
      }
    });
    const files = parsePorcelainStatus(output(["# branch.head main", ...fields])).files;
    expect(files.map((file) => file.path)).toEqual(records.map((record) => record.path));
    records.forEach((record, index) => {
      const file = files[index];
      expect(file?.oldPath).toBe(record.type === "2" ? record.oldPath : "");
      expect(file?.conflicted).toBe(record.type === "u");
      expect(file?.untracked).toBe(record.type === "?");
      if (record.type === "2") expect(file?.kind).toBe(record.x === "C" ? "copied" : "renamed");
      if (record.type === "1") expect(file?.staged).toBe(record.x !== ".");
    });
  });

  test.prop([fc.string({ maxLength: 200 })])("never throws on any input", (text) => {
    expect(() => parsePorcelainStatus(text)).not.toThrow();
  });
});

import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { DIFF_MAX_BYTES, DIFF_MAX_LINES, diffSection, directorySection, isBinaryPatch, untrackedSymlinkPatch } from "./diff-bounds.ts";

const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);

const header = "diff --git a/f.txt b/f.txt\nindex 1111111..2222222 100644\n--- a/f.txt\n+++ b/f.txt\n";

function patchOfLines(total: number): string {
  const body = total - 5;
  return `${header}@@ -0,0 +1,${body} @@\n${"+x\n".repeat(body)}`;
}

describe("diffSection", () => {
  it("sends a text patch with its size", () => {
    const patch = `${header}@@ -1 +1 @@\n-a\n+b\n`;
    expect(diffSection("working", bytes(patch))).toEqual({
      binary: false,
      bytes: bytes(patch).length,
      lines: 7,
      patch,
      scope: "working",
      tooLarge: false,
    });
  });

  it("is too large over 5,000 lines (empty patch, the real size)", () => {
    expect(diffSection("staged", bytes(patchOfLines(DIFF_MAX_LINES))).tooLarge).toBe(false);
    const over = diffSection("staged", bytes(patchOfLines(DIFF_MAX_LINES + 1)));
    expect(over).toMatchObject({ tooLarge: true, patch: "", lines: DIFF_MAX_LINES + 1, binary: false });
    expect(over.bytes).toBe(bytes(patchOfLines(DIFF_MAX_LINES + 1)).length);
  });

  it("is too large over 1 MiB", () => {
    const line = `+${"y".repeat(1000)}\n`;
    const fits = header + line.repeat(Math.floor((DIFF_MAX_BYTES - header.length) / line.length));
    expect(diffSection("working", bytes(fits))).toMatchObject({ tooLarge: false });
    const exact = bytes(fits + "+".repeat(DIFF_MAX_BYTES - bytes(fits).length));
    expect(exact.length).toBe(DIFF_MAX_BYTES);
    expect(diffSection("working", exact).tooLarge).toBe(false);
    const over = bytes(fits + "+".repeat(DIFF_MAX_BYTES - bytes(fits).length + 1));
    expect(diffSection("working", over)).toMatchObject({ tooLarge: true, patch: "", bytes: DIFF_MAX_BYTES + 1 });
  });

  it("is too large when git's output was cut, whatever its size", () => {
    expect(diffSection("working", bytes("diff --git a/x b/x\n"), false)).toMatchObject({ tooLarge: true, patch: "" });
  });

  it("marks binary changes", () => {
    const binary = "diff --git a/b.dat b/b.dat\nnew file mode 100644\nindex 0000000..20b5be9\nBinary files /dev/null and b/b.dat differ\n";
    expect(diffSection("working", bytes(binary))).toMatchObject({ binary: true, tooLarge: false, patch: binary });
    expect(isBinaryPatch("diff --git a/x b/x\nGIT binary patch\nliteral 3\n")).toBe(true);
    // A content line that says so is not the marker.
    expect(isBinaryPatch(`${header}@@ -1 +1 @@\n+Binary files a and b differ\n`)).toBe(false);
  });

  it("describes an untracked nested repository as one directory section", () => {
    expect(directorySection()).toEqual({
      binary: false,
      bytes: 0,
      directory: true,
      lines: 0,
      patch: "",
      scope: "working",
      tooLarge: false,
    });
  });

  it("writes a new symbolic link's patch: one line without a newline, the target", () => {
    const patch = untrackedSymlinkPatch("link", "../target");
    expect(patch).toBe(
      "diff --git a/link b/link\nnew file mode 120000\n--- /dev/null\n+++ b/link\n@@ -0,0 +1 @@\n+../target\n\\ No newline at end of file\n",
    );
    expect(diffSection("working", bytes(patch))).toMatchObject({ binary: false, lines: 7, patch });
  });

  test.prop([fc.string({ maxLength: 2000 }), fc.constantFrom("staged" as const, "working" as const, "conflict" as const)])(
    "keeps a small patch exactly, and measures it",
    (text, scope) => {
      const section = diffSection(scope, bytes(text));
      expect(section.tooLarge).toBe(false);
      expect(section.patch).toBe(text);
      expect(section.bytes).toBe(bytes(text).length);
      expect(section.scope).toBe(scope);
    },
  );
});

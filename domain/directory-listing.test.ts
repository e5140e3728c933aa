import { describe, expect, it } from "vitest";
import { compareDirectoryEntries, isCwdRelative, type DirectoryEntry } from "./directory-listing.ts";

function entry(name: string): DirectoryEntry {
  return { name, fullPath: `/r/${name}`, path: `/r/${name}`, hidden: name.startsWith(".") };
}

describe("isCwdRelative", () => {
  it("is true for . and .. and paths under them, false otherwise", () => {
    expect([".", "..", "./a", "../a", "./"].map(isCwdRelative)).toEqual([true, true, true, true, true]);
    expect(["a", ".a", "..a", "~/a", "/a", ""].map(isCwdRelative)).toEqual([false, false, false, false, false, false]);
  });
});

describe("compareDirectoryEntries", () => {
  it("sorts case-insensitively, then by code unit", () => {
    const names = ["b", "B", "a", ".hidden", "A", "c"]
      .map(entry)
      .sort(compareDirectoryEntries)
      .map((e) => e.name);
    expect(names).toEqual([".hidden", "A", "a", "B", "b", "c"]);
  });
});

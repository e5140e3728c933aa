import { describe, expect, it } from "vitest";
import { fileSize } from "./file-size.ts";

describe("fileSize", () => {
  it.each([
    [0, "0 B"],
    [812, "812 B"],
    [1023, "1023 B"],
    [1024, "1.0 KB"],
    [1280, "1.3 KB"],
    [34 * 1024, "34 KB"],
    [2.5 * 1024 * 1024, "2.5 MB"],
    [3 * 1024 ** 4, "3.0 TB"],
    [-1, ""],
    [Number.NaN, ""],
  ])("%d bytes read %j", (bytes, text) => {
    expect(fileSize(bytes)).toBe(text);
  });
});

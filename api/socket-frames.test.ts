import { describe, expect, it } from "vitest";
import { frameByteLength, frameText } from "./socket-frames.ts";

describe("client frames", () => {
  const text = "héllo";
  const bytes = Buffer.from(text, "utf8");

  it("sizes and decodes a Buffer, an ArrayBuffer and Buffer fragments alike", () => {
    const arrayBuffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length);
    const fragments = [bytes.subarray(0, 2), bytes.subarray(2)];
    for (const frame of [bytes, arrayBuffer, fragments]) {
      expect(frameByteLength(frame)).toBe(6);
      expect(frameText(frame)).toBe(text);
    }
  });

  it("counts bytes, not characters, and nothing for what is not a frame", () => {
    expect(frameByteLength(Buffer.from("€"))).toBe(3);
    expect(frameByteLength("a string")).toBe(0);
    expect(frameText("a string")).toBeNull();
    expect(frameText(undefined)).toBeNull();
  });
});

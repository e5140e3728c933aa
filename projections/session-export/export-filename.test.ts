import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { exportContentDisposition, exportDispositionType, exportFileNames } from "./export-filename.ts";

const ID = "0192f3a4-b5c6-7d8e-9f00-112233445566";

describe("exportFileNames", () => {
  it("uses the name, else the first message, else 'session', and the first 8 id characters", () => {
    expect(exportFileNames({ id: ID, name: "My Research: Café ☕", firstMessage: "x" })).toEqual({
      fileName: "leyline-my-research-café-0192f3a4.html",
      asciiFileName: "leyline-my-research-cafe-0192f3a4.html",
    });
    expect(exportFileNames({ id: ID, firstMessage: "Why is the sky blue?" }).asciiFileName).toBe(
      "leyline-why-is-the-sky-blue-0192f3a4.html",
    );
    expect(exportFileNames({ id: ID, name: "  ", firstMessage: "(no messages)" }).asciiFileName).toBe("leyline-session-0192f3a4.html");
    expect(exportFileNames({ id: ID, firstMessage: "日本語の質問" })).toEqual({
      fileName: "leyline-日本語の質問-0192f3a4.html",
      asciiFileName: "leyline-session-0192f3a4.html",
    });
  });

  it("never yields quotes, slashes, backslashes, control characters or extra dots, and stays short", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), fc.string({ maxLength: 40 }), (text, id) => {
        const { fileName, asciiFileName } = exportFileNames({ id, name: text, firstMessage: text });
        for (const name of [fileName, asciiFileName]) {
          expect(name).toMatch(/^leyline-[^"'\\/.;]+\.html$/);
          expect(Array.from(name).some((char) => char.charCodeAt(0) < 0x20 || char.charCodeAt(0) === 0x7f)).toBe(false);
          expect(Array.from(name).length).toBeLessThanOrEqual(8 + 60 + 1 + 8 + 5);
        }
        expect(asciiFileName).toMatch(/^[a-z0-9.-]+$/);
      }),
    );
  });
});

describe("exportContentDisposition", () => {
  it("is inline only for disposition=inline and carries both file name forms", () => {
    expect(exportDispositionType("inline")).toBe("inline");
    expect(exportDispositionType("attachment")).toBe("attachment");
    expect(exportDispositionType("INLINE")).toBe("attachment");
    expect(exportDispositionType(undefined)).toBe("attachment");
    const names = exportFileNames({ id: ID, name: "Café (draft)", firstMessage: "" });
    expect(exportContentDisposition("attachment", names)).toBe(
      `attachment; filename="leyline-cafe-draft-0192f3a4.html"; filename*=UTF-8''leyline-caf%C3%A9-draft-0192f3a4.html`,
    );
  });
});

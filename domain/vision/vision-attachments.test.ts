import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  attachmentFileName,
  attachmentNote,
  replaceUserImages,
  sessionFolderName,
  sniffImageMimeType,
  VISION_AGENT_TOOL,
  visionModelProblem,
} from "./vision-attachments.ts";

const PNG = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0]);

describe("vision attachments", () => {
  it("recognizes PNG, JPEG, GIF and WebP by their first bytes and nothing else", () => {
    expect(sniffImageMimeType(PNG)).toBe("image/png");
    expect(sniffImageMimeType(Uint8Array.from([0xff, 0xd8, 0xff, 0xe0]))).toBe("image/jpeg");
    expect(sniffImageMimeType(new TextEncoder().encode("GIF89a..."))).toBe("image/gif");
    expect(sniffImageMimeType(new TextEncoder().encode("RIFF\u0000\u0000\u0000\u0000WEBPVP8 "))).toBe("image/webp");
    expect(sniffImageMimeType(new TextEncoder().encode("hello"))).toBeNull();
    expect(sniffImageMimeType(new Uint8Array())).toBeNull();
  });

  it("names files by hash and type, and session folders safely", () => {
    expect(attachmentFileName("ab".repeat(32), "image/jpeg")).toBe(`${"ab".repeat(16)}.jpg`);
    expect(attachmentFileName("ab".repeat(32), "image/bmp")).toBeNull();
    expect(sessionFolderName("0190-abc_D")).toBe("0190-abc_D");
    fc.assert(
      fc.property(fc.string(), (id) => {
        expect(sessionFolderName(id)).toMatch(/^[A-Za-z0-9_-]+$/);
      }),
    );
  });

  it("checks the vision model against the available models", () => {
    const models = [
      { provider: "p", id: "eyes", supportsImages: true },
      { provider: "p", id: "blind", supportsImages: false },
    ];
    expect(visionModelProblem("p/eyes", models)).toBeNull();
    expect(visionModelProblem("", models)).toMatch(/No vision model is configured/);
    expect(visionModelProblem("eyes", models)).toMatch(/expected provider\/id/);
    expect(visionModelProblem("p/missing", models)).toMatch(/not available/);
    expect(visionModelProblem("p/blind", models)).toMatch(/does not support image input/);
  });

  it("replaces the images of user messages with the note, leaving everything else untouched", () => {
    const image = { type: "image", data: "AAA", mimeType: "image/png" };
    const messages = [
      { role: "user", content: [{ type: "text", text: "look" }, image] },
      { role: "toolResult", content: [image] },
      { role: "user", content: "plain" },
    ];
    const copy = structuredClone(messages);
    const { messages: out, changed } = replaceUserImages(messages, (block) => `/att/${block.data}.png`);
    expect(changed).toBe(true);
    expect(out[0]?.content).toEqual([
      { type: "text", text: "look" },
      { type: "text", text: attachmentNote("/att/AAA.png", "image/png") },
    ]);
    expect(out[1]).toBe(messages[1]);
    expect(out[2]).toBe(messages[2]);
    expect(messages).toEqual(copy);
    expect(attachmentNote("/att/AAA.png", "image/png")).toContain(VISION_AGENT_TOOL);
    expect(replaceUserImages(messages, () => null).changed).toBe(false);
  });
});

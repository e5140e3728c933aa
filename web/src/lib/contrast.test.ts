import { describe, expect, it } from "vitest";
import fs from "node:fs";
import path from "node:path";
import { contrastRatio, hexTokens } from "./contrast.ts";

const css = fs.readFileSync(path.join(__dirname, "..", "style.css"), "utf8");
const dark = hexTokens(css, ":root");
const light = { ...dark, ...hexTokens(css, ':root[data-theme="light"]') };

describe("contrast", () => {
  it("computes WCAG ratios", () => {
    expect(contrastRatio("#000000", "#ffffff")).toBeCloseTo(21, 5);
    expect(contrastRatio("#777", "#777")).toBeCloseTo(1, 5);
    expect(contrastRatio("#767676", "#ffffff")).toBeGreaterThan(4.5);
  });

  for (const [name, tokens] of [
    ["dark", dark],
    ["light", light],
  ] as const) {
    it(`keeps AA contrast (4.5:1) for text on every surface of the ${name} theme`, () => {
      const surfaces = ["--bg", "--sunken", "--panel", "--raised", "--hover", "--selected"];
      const texts = ["--text", "--muted", "--faint", "--accent", "--danger", "--warn", "--ok", "--info"];
      const failures: string[] = [];
      for (const surface of surfaces) {
        for (const text of texts) {
          const fg = tokens[text];
          const bg = tokens[surface];
          if (fg === undefined || bg === undefined) {
            failures.push(`${text} on ${surface}: missing token`);
            continue;
          }
          const ratio = contrastRatio(fg, bg);
          if (ratio < 4.5) failures.push(`${text} on ${surface}: ${ratio.toFixed(2)}`);
        }
      }
      const onAccent = contrastRatio(tokens["--on-accent"] ?? "#000", tokens["--accent"] ?? "#000");
      if (onAccent < 4.5) failures.push(`--on-accent on --accent: ${onAccent.toFixed(2)}`);
      expect(failures).toEqual([]);
    });
  }
});

/**
 * The terminal's theme from the app's tokens: which token feeds which colour, the built-in values when a token
 * is missing, and that the ANSI palettes read on their theme's background (WCAG contrast).
 */
import { describe, expect, it } from "vitest";
import { ANSI_PALETTES, FALLBACK_MONO, terminalFont, terminalTheme, withAlpha, type CssVariableReader } from "./terminal-theme.ts";

const reader =
  (tokens: Record<string, string>): CssVariableReader =>
  (name) =>
    tokens[name] ?? "";

function luminance(hex: string): number {
  const channels = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255);
  const [r, g, b] = channels.map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4)) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

function contrast(a: string, b: string): number {
  const [high, low] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (high + 0.05) / (low + 0.05);
}

describe("terminalTheme", () => {
  it("takes background, text, cursor and selection from the tokens", () => {
    const theme = terminalTheme(reader({ "--code-bg": "#101820", "--bg": "#000000", "--text": "#eeeeee", "--accent": "#7fb8a4" }), "dark");
    expect(theme).toMatchObject({
      background: "#101820",
      foreground: "#eeeeee",
      cursor: "#7fb8a4",
      cursorAccent: "#101820",
      selectionBackground: "#7fb8a459",
      selectionInactiveBackground: "#7fb8a433",
      black: ANSI_PALETTES.dark.black,
    });
  });

  it("falls back to --bg, then to built-in colours; a non-hex accent selects with --selected", () => {
    expect(terminalTheme(reader({ "--bg": "#222222" }), "light").background).toBe("#222222");
    const bare = terminalTheme(reader({}), "light");
    expect(bare).toMatchObject({ background: "#f0f2f5", foreground: "#1c232c", white: ANSI_PALETTES.light.white });
    const named = terminalTheme(reader({ "--accent": "teal", "--selected": "#e3eef0" }), "light");
    expect(named).toMatchObject({ cursor: "teal", selectionBackground: "#e3eef0" });
  });

  it("uses the app's monospace stack", () => {
    expect(terminalFont(reader({ "--mono": "Iosevka, monospace" }))).toBe("Iosevka, monospace");
    expect(terminalFont(reader({}))).toBe(FALLBACK_MONO);
  });

  it("adds alpha only to #rrggbb colours", () => {
    expect(withAlpha("#102030", 1)).toBe("#102030ff");
    expect(withAlpha("#123", 0.5)).toBeNull();
    expect(withAlpha("rgb(1, 2, 3)", 0.5)).toBeNull();
  });

  it("every ANSI colour reads at 4.5:1 on its theme's code background (dark black excepted: it is meant dim)", () => {
    const backgrounds = { dark: "#11161c", light: "#f0f2f5" } as const;
    for (const theme of ["dark", "light"] as const) {
      for (const [name, colour] of Object.entries(ANSI_PALETTES[theme])) {
        if (theme === "dark" && name === "black") continue;
        expect(contrast(colour, backgrounds[theme]), `${theme} ${name}`).toBeGreaterThanOrEqual(4.5);
      }
    }
  });
});

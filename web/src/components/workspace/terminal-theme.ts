/**
 * The terminal's colours and font from the app's design tokens (web/src/style.css), for xterm.js: background
 * --code-bg (else --bg), text --text, cursor --accent, font --mono. The selection is the accent at 35 % (20 %
 * while the terminal is not focused): --selected is a row highlight too close to --code-bg to show a selection
 * (about 1.05:1 in the light theme), so it serves only when --accent is not a #rrggbb colour. The 16 ANSI colours are
 * a palette per theme, picked to keep contrast on that theme's background (the light palette has dark "white"s,
 * since programs print white assuming a dark screen); xterm's minimum contrast ratio guards the rest.
 *
 * Pure: the caller passes how to read a custom property (getComputedStyle of the terminal's element).
 */
import type { ITheme } from "@xterm/xterm";
import type { Theme } from "../../composables/use-theme.ts";

/** xterm raises foreground colours that read worse than this against their background (WCAG AA for text). */
export const TERMINAL_MINIMUM_CONTRAST = 4.5;
export const TERMINAL_FONT_SIZE = 13;

type AnsiPalette = Required<
  Pick<
    ITheme,
    | "black"
    | "red"
    | "green"
    | "yellow"
    | "blue"
    | "magenta"
    | "cyan"
    | "white"
    | "brightBlack"
    | "brightRed"
    | "brightGreen"
    | "brightYellow"
    | "brightBlue"
    | "brightMagenta"
    | "brightCyan"
    | "brightWhite"
  >
>;

export const ANSI_PALETTES: Record<Theme, AnsiPalette> = {
  dark: {
    black: "#4b5563",
    red: "#e5737a",
    green: "#86c39b",
    yellow: "#d9a95f",
    blue: "#82aaff",
    magenta: "#c792ea",
    cyan: "#89ddff",
    white: "#d7dce3",
    brightBlack: "#7a8594",
    brightRed: "#f49aa0",
    brightGreen: "#a5d6a7",
    brightYellow: "#ffcb6b",
    brightBlue: "#a6c4ff",
    brightMagenta: "#dcb4f2",
    brightCyan: "#b2ebff",
    brightWhite: "#ffffff",
  },
  light: {
    black: "#1c232c",
    red: "#b3323c",
    green: "#2f7a34",
    yellow: "#8a6100",
    blue: "#2453b0",
    magenta: "#8e3fb0",
    cyan: "#0b6e8c",
    white: "#56606d",
    brightBlack: "#626b77",
    brightRed: "#bb3a44",
    brightGreen: "#286e40",
    brightYellow: "#a35a00",
    brightBlue: "#1a63c0",
    brightMagenta: "#9344b8",
    brightCyan: "#0c7491",
    brightWhite: "#3b4450",
  },
};

const FALLBACK: Record<Theme, { background: string; foreground: string; cursor: string; selection: string; scrollbar: string }> = {
  dark: { background: "#11161c", foreground: "#d7dce3", cursor: "#7fb8a4", selection: "#1f2b33", scrollbar: "#36404c" },
  light: { background: "#f0f2f5", foreground: "#1c232c", cursor: "#2b735d", selection: "#e3eef0", scrollbar: "#c5cbd4" },
};

export const FALLBACK_MONO = 'ui-monospace, "SFMono-Regular", "JetBrains Mono", Menlo, Consolas, monospace';

/** Reads a custom property ("--text") as written, or "" when it is not set. */
export type CssVariableReader = (name: string) => string;

/** A reader over an element's computed style. */
export function cssVariables(element: Element): CssVariableReader {
  const style = getComputedStyle(element);
  return (name) => style.getPropertyValue(name).trim();
}

/** `#rrggbb` with an alpha channel (`#rrggbbaa`), or null for any other colour syntax. */
export function withAlpha(color: string, alpha: number): string | null {
  if (!/^#[0-9a-f]{6}$/i.test(color)) return null;
  const byte = Math.round(Math.min(Math.max(alpha, 0), 1) * 255);
  return `${color}${byte.toString(16).padStart(2, "0")}`;
}

/** The xterm theme for the app theme `theme`, from the tokens `read` returns (built-in values where unset). */
export function terminalTheme(read: CssVariableReader, theme: Theme): ITheme {
  const fallback = FALLBACK[theme];
  const background = read("--code-bg") || read("--bg") || fallback.background;
  const foreground = read("--text") || fallback.foreground;
  const selected = read("--selected") || fallback.selection;
  const cursor = read("--accent") || fallback.cursor;
  return {
    ...ANSI_PALETTES[theme],
    background,
    foreground,
    cursor,
    cursorAccent: background,
    selectionBackground: withAlpha(cursor, 0.35) ?? selected,
    selectionInactiveBackground: withAlpha(cursor, 0.2) ?? selected,
    scrollbarSliderBackground: read("--line-strong") || fallback.scrollbar,
    scrollbarSliderHoverBackground: read("--faint") || fallback.scrollbar,
    scrollbarSliderActiveBackground: read("--muted") || fallback.scrollbar,
  };
}

/** The terminal font: the app's monospace stack. */
export function terminalFont(read: CssVariableReader): string {
  return read("--mono") || FALLBACK_MONO;
}

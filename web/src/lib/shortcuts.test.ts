import { describe, expect, it } from "vitest";
import { isTypingTarget, matchShortcut, SHORTCUTS, type KeyLike } from "./shortcuts.ts";

const key = (k: string, code: string, mods: Partial<KeyLike> = {}): KeyLike => ({
  key: k,
  code,
  ctrlKey: false,
  metaKey: false,
  altKey: false,
  shiftKey: false,
  ...mods,
});

describe("matchShortcut", () => {
  it("matches the documented combinations", () => {
    expect(matchShortcut(key("n", "KeyN", { altKey: true }), { typing: true })).toBe("new-session");
    expect(matchShortcut(key("˜", "KeyN", { altKey: true }), { typing: false })).toBe("new-session"); // macOS Option
    expect(matchShortcut(key("k", "KeyK", { ctrlKey: true }), { typing: true })).toBe("search");
    expect(matchShortcut(key("k", "KeyK", { metaKey: true }), { typing: false })).toBe("search");
    expect(matchShortcut(key("i", "KeyI", { altKey: true }), { typing: true })).toBe("focus-composer");
    expect(matchShortcut(key("Enter", "Enter", { ctrlKey: true }), { typing: true })).toBe("send");
    expect(matchShortcut(key("Escape", "Escape"), { typing: true })).toBe("interrupt");
    expect(matchShortcut(key("b", "KeyB", { altKey: true }), { typing: false })).toBe("toggle-sidebar");
    expect(matchShortcut(key(",", "Comma", { altKey: true }), { typing: true })).toBe("settings");
    expect(matchShortcut(key("≤", "Comma", { altKey: true }), { typing: false })).toBe("settings"); // macOS Option
  });

  it("single keys work only outside text fields", () => {
    expect(matchShortcut(key("/", "Slash"), { typing: false })).toBe("search");
    expect(matchShortcut(key("?", "Slash", { shiftKey: true }), { typing: false })).toBe("help");
    expect(matchShortcut(key("i", "KeyI"), { typing: false })).toBe("focus-composer");
    expect(matchShortcut(key("/", "Slash"), { typing: true })).toBeNull();
    expect(matchShortcut(key("?", "Slash", { shiftKey: true }), { typing: true })).toBeNull();
    expect(matchShortcut(key("i", "KeyI"), { typing: true })).toBeNull();
  });

  it("leaves plain typing, Enter and browser combinations alone", () => {
    expect(matchShortcut(key("a", "KeyA"), { typing: false })).toBeNull();
    expect(matchShortcut(key("Enter", "Enter"), { typing: true })).toBeNull();
    expect(matchShortcut(key("Enter", "Enter", { shiftKey: true }), { typing: true })).toBeNull();
    expect(matchShortcut(key("n", "KeyN", { ctrlKey: true }), { typing: false })).toBeNull();
    expect(matchShortcut(key("Escape", "Escape", { shiftKey: true }), { typing: false })).toBeNull();
  });

  it("documents every shortcut it matches", () => {
    const ids = new Set(SHORTCUTS.map((s) => s.id));
    for (const id of ["new-session", "search", "focus-composer", "send", "interrupt", "help", "toggle-sidebar"] as const)
      expect(ids.has(id)).toBe(true);
  });
});

describe("isTypingTarget", () => {
  it("is true for text inputs, textareas, selects and contenteditable; false for buttons and checkboxes", () => {
    expect(isTypingTarget({ tagName: "TEXTAREA" })).toBe(true);
    expect(isTypingTarget({ tagName: "INPUT", type: "search" })).toBe(true);
    expect(isTypingTarget({ tagName: "SELECT" })).toBe(true);
    expect(isTypingTarget({ tagName: "DIV", isContentEditable: true })).toBe(true);
    expect(isTypingTarget({ tagName: "INPUT", type: "checkbox" })).toBe(false);
    expect(isTypingTarget({ tagName: "BUTTON" })).toBe(false);
    expect(isTypingTarget(null)).toBe(false);
  });
});

/**
 * What the composer's completion menus share (CompletionMenu.vue shows both the slash-command menu and the
 * `@file` mention menu): the shape of an option, how the highlight moves, and what a key does while a menu is
 * open. The input keeps the focus and owns the keys: ArrowUp/Down move the highlight (wrapping), Tab completes,
 * Enter chooses, Escape closes; Shift+Enter stays a newline, an IME's Enter stays the IME's, and keys with Alt,
 * Ctrl or Meta are left alone. No Vue, no DOM.
 */

/** One option of a completion menu. */
export interface CompletionItem {
  /** Unique within the list (the option's element key). */
  key: string;
  /** The main text, in the code font ("/model", "App.vue"). */
  label: string;
  /** Beside the label, muted ("[provider/model]", a file's folder); "" for none. */
  hint: string;
  /** A line of explanation, muted; "" for none. */
  description: string;
  /** A small badge ("extension", "current"); "" for none. */
  badge: string;
  /** A file option's path (the option's data-path); absent for other options. */
  path?: string;
}

/** The highlighted option after moving by `delta` (wrapping); 0 for an empty list. */
export function moveHighlight(index: number, count: number, delta: number): number {
  if (count <= 0) return 0;
  return (((index + delta) % count) + count) % count;
}

export type MenuKey = "next" | "previous" | "complete" | "choose" | "close" | "none";

/** What a key does while a menu is open (Shift+Enter stays a newline, an IME's Enter stays the IME's). */
export function menuKeyOf(event: {
  key: string;
  shiftKey: boolean;
  isComposing: boolean;
  keyCode: number;
  altKey?: boolean;
  ctrlKey?: boolean;
  metaKey?: boolean;
}): MenuKey {
  if (event.isComposing || event.keyCode === 229) return "none";
  if (event.altKey === true || event.ctrlKey === true || event.metaKey === true) return "none";
  switch (event.key) {
    case "ArrowDown":
      return "next";
    case "ArrowUp":
      return "previous";
    case "Tab":
      return event.shiftKey ? "none" : "complete";
    case "Enter":
      return event.shiftKey ? "none" : "choose";
    case "Escape":
      return "close";
    default:
      return "none";
  }
}

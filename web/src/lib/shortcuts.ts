/**
 * Keyboard shortcuts: one table (shown in the `?` help popover) and a pure matcher. Single-key shortcuts
 * ("/", "?", "i") only work outside text fields; modified ones work everywhere. Keys are matched on
 * `event.code` for letters, so Alt+letter works on layouts where Alt changes the character (macOS Option).
 */

export type ShortcutId = "new-session" | "search" | "focus-composer" | "send" | "interrupt" | "help" | "toggle-sidebar" | "settings";

export interface ShortcutSpec {
  id: ShortcutId;
  /** Key combinations as shown to people, each a list of key caps. */
  keys: string[][];
  description: string;
}

export const SHORTCUTS: readonly ShortcutSpec[] = [
  { id: "new-session", keys: [["Alt", "N"]], description: "New session (start screen)" },
  { id: "search", keys: [["Ctrl", "K"], ["/"]], description: "Search sessions in all projects" },
  { id: "focus-composer", keys: [["Alt", "I"], ["i"]], description: "Focus the composer" },
  {
    id: "send",
    keys: [["Enter"], ["Ctrl", "Enter"]],
    description: "Send (Enter in the composer; Ctrl+Enter anywhere). Shift+Enter: new line",
  },
  { id: "interrupt", keys: [["Esc"]], description: "Interrupt the running turn" },
  { id: "toggle-sidebar", keys: [["Alt", "B"]], description: "Show or hide the session list" },
  {
    id: "settings",
    keys: [["Alt", ","]],
    description: "Settings: models, providers, MCP servers, appearance, network access and connections",
  },
  { id: "help", keys: [["?"]], description: "Show these shortcuts" },
];

export interface KeyLike {
  key: string;
  code: string;
  ctrlKey: boolean;
  metaKey: boolean;
  altKey: boolean;
  shiftKey: boolean;
}

export interface ShortcutContext {
  /** Focus is in a text field (input, textarea, select, contenteditable). */
  typing: boolean;
}

/** The shortcut a key press means, or null. Enter alone is the composer's own (not matched here). */
export function matchShortcut(event: KeyLike, context: ShortcutContext): ShortcutId | null {
  const mod = event.ctrlKey || event.metaKey;
  const plainAlt = event.altKey && !mod;
  if (plainAlt && !event.shiftKey) {
    if (event.code === "KeyN") return "new-session";
    if (event.code === "KeyI") return "focus-composer";
    if (event.code === "KeyB") return "toggle-sidebar";
    if (event.code === "Comma") return "settings";
  }
  if (mod && !event.altKey && !event.shiftKey) {
    if (event.code === "KeyK" || event.key.toLowerCase() === "k") return "search";
    if (event.key === "Enter") return "send";
  }
  if (event.key === "Escape" && !mod && !event.altKey && !event.shiftKey) return "interrupt";
  if (context.typing || mod || event.altKey) return null;
  if (event.key === "/") return "search";
  if (event.key === "?") return "help";
  if (event.key === "i" && !event.shiftKey) return "focus-composer";
  return null;
}

/** Whether an element takes typed text (shortcuts without modifiers stay out of its way). */
export function isTypingTarget(target: unknown): boolean {
  if (typeof target !== "object" || target === null) return false;
  const element = target as { tagName?: unknown; isContentEditable?: unknown; type?: unknown };
  if (element.isContentEditable === true) return true;
  const tag = typeof element.tagName === "string" ? element.tagName.toUpperCase() : "";
  if (tag === "TEXTAREA" || tag === "SELECT") return true;
  if (tag !== "INPUT") return false;
  const type = typeof element.type === "string" ? element.type.toLowerCase() : "text";
  return !["button", "checkbox", "radio", "submit", "reset", "range", "color", "file", "image"].includes(type);
}

import { getCurrentScope, onScopeDispose } from "vue";
import { isTypingTarget, matchShortcut, type ShortcutId } from "../lib/shortcuts.ts";

/** A handler returns false when it did not act (the key then keeps its default behaviour). */
export type ShortcutHandler = (event: KeyboardEvent) => boolean | void;

const handlers: Partial<Record<ShortcutId, ShortcutHandler[]>> = {};
let installed: ((event: KeyboardEvent) => void) | null = null;

function onKeydown(event: KeyboardEvent): void {
  if (event.defaultPrevented || event.isComposing) return;
  const id = matchShortcut(event, { typing: isTypingTarget(event.target) });
  if (id === null) return;
  // The most recently registered handler wins (a view overrides the app's default).
  const list = handlers[id] ?? [];
  for (let i = list.length - 1; i >= 0; i--) {
    const handler = list[i];
    if (handler !== undefined && handler(event) !== false) {
      event.preventDefault();
      return;
    }
  }
}

/** Installs the one window keydown listener (App does this once). Returns the uninstall function. */
export function installShortcuts(target: Pick<Window, "addEventListener" | "removeEventListener"> = window): () => void {
  if (installed === null) {
    installed = onKeydown;
    target.addEventListener("keydown", installed);
  }
  return () => {
    if (installed !== null) target.removeEventListener("keydown", installed);
    installed = null;
  };
}

/**
 * Registers shortcut handlers for the calling component's lifetime (lib/shortcuts.ts has the key table).
 * The most recent registration of an id is asked first; returning false passes the key on.
 */
export function useShortcuts(map: Partial<Record<ShortcutId, ShortcutHandler>>): () => void {
  const entries = Object.entries(map) as [ShortcutId, ShortcutHandler][];
  for (const [id, handler] of entries) (handlers[id] ??= []).push(handler);
  const dispose = () => {
    for (const [id, handler] of entries) handlers[id] = (handlers[id] ?? []).filter((h) => h !== handler);
  };
  if (getCurrentScope()) onScopeDispose(dispose);
  return dispose;
}

/** Focuses the first visible element matching a selector; true when it found one. */
export function focusFirst(selector: string, root: ParentNode = document): boolean {
  const element = root.querySelector<HTMLElement>(selector);
  if (element === null) return false;
  element.focus();
  return document.activeElement === element;
}

/** Clicks an enabled element matching a selector; true when it did. */
export function clickFirst(selector: string, root: ParentNode = document): boolean {
  const element = root.querySelector<HTMLElement>(selector);
  if (element === null || (element as HTMLButtonElement).disabled) return false;
  element.click();
  return true;
}

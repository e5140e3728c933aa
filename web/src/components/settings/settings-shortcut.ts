/**
 * The Settings shortcut, Alt+, (the app's Alt+key convention, matched on `event.code` so macOS Option, which
 * changes the character, still works). Not in lib/shortcuts.ts's table: SettingsButton listens for it itself.
 */
import type { KeyLike } from "../../lib/shortcuts.ts";

export const SETTINGS_SHORTCUT_LABEL = "Alt+,";

export function isSettingsShortcut(event: KeyLike): boolean {
  return event.altKey && !event.ctrlKey && !event.metaKey && !event.shiftKey && (event.code === "Comma" || event.key === ",");
}

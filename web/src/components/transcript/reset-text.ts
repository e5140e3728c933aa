/**
 * The words of the reset confirmation, from the server's preview (GET .../reset-preview): exactly what the
 * rewrite removes — every entry after the chosen one in file order, entries of other branches included.
 */
import type { ResetPreview } from "../../../../domain/reset-preview.ts";

function plural(count: number, one: string, many: string): string {
  return `${count} ${count === 1 ? one : many}`;
}

export const RESET_COPY_NOTE = "A copy of the whole file is kept in leyline-trash.";

/** "Remove 12 entries after this one (5 messages, including 4 entries on other branches). A copy …" */
export function resetConfirmationText(preview: ResetPreview): string {
  if (preview.removedEntryCount === 0) return `Nothing comes after this entry: the reset removes nothing. ${RESET_COPY_NOTE}`;
  const details = [plural(preview.removedMessageCount, "message", "messages")];
  if (preview.removedOtherBranchEntryCount > 0) {
    details.push(`including ${plural(preview.removedOtherBranchEntryCount, "entry", "entries")} on other branches`);
  }
  return `Remove ${plural(preview.removedEntryCount, "entry", "entries")} after this one (${details.join(", ")}). ${RESET_COPY_NOTE}`;
}

/** The notice after a reset that offers Undo. */
export function resetDoneText(preview: ResetPreview | null): string {
  if (preview === null) return "Reset done.";
  return `Reset done: ${plural(preview.removedEntryCount, "entry", "entries")} removed.`;
}

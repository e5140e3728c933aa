import { describe, expect, it } from "vitest";
import { resetConfirmationText, resetDoneText } from "./reset-text.ts";

const preview = (removed: number, messages: number, otherBranches: number) => ({
  entryId: "e1",
  removedEntryCount: removed,
  removedMessageCount: messages,
  removedOtherBranchEntryCount: otherBranches,
  keptEntryCount: 4,
});

describe("reset confirmation text", () => {
  it("says what is removed, with other branches only when there are some", () => {
    expect(resetConfirmationText(preview(12, 5, 4))).toBe(
      "Remove 12 entries after this one (5 messages, including 4 entries on other branches). A copy of the whole file is kept in leyline-trash.",
    );
    expect(resetConfirmationText(preview(1, 1, 0))).toBe(
      "Remove 1 entry after this one (1 message). A copy of the whole file is kept in leyline-trash.",
    );
    expect(resetConfirmationText(preview(2, 0, 1))).toBe(
      "Remove 2 entries after this one (0 messages, including 1 entry on other branches). A copy of the whole file is kept in leyline-trash.",
    );
    expect(resetConfirmationText(preview(0, 0, 0))).toBe(
      "Nothing comes after this entry: the reset removes nothing. A copy of the whole file is kept in leyline-trash.",
    );
    expect(resetDoneText(preview(3, 2, 0))).toBe("Reset done: 3 entries removed.");
    expect(resetDoneText(null)).toBe("Reset done.");
  });
});

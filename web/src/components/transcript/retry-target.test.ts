import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { AssistantMessageTranscriptEntry, TranscriptEntry } from "../../../../domain/transcript/transcript-types.ts";
import { PROVISIONAL_PREFIX } from "../../lib/provisional-entries.ts";
import { retryConfirmation, retryRequestOf, retryTargetOf, retryTitle } from "./retry-target.ts";
import { assistantEntry, bashEntry, toolEntry, userEntry } from "./transcript.fixture.ts";

function failed(id: string, index = 0): AssistantMessageTranscriptEntry {
  return { ...assistantEntry(id, "", null, index), blocks: [], stopReason: "error", errorMessage: "429 Too Many Requests" };
}

const modelChange = (id: string): TranscriptEntry => ({
  id,
  timestamp: "2026-12-01T10:00:00.000Z",
  rolloutFeedback: "",
  rolloutFeedbackText: "",
  type: "model_change",
  provider: "openai",
  modelId: "gpt-6-astra",
  copyText: "",
});

describe("retryTargetOf", () => {
  it("offers Retry on the branch's last answer when it failed, re-sending the prompt before it", () => {
    const entries = [userEntry("u1", "first"), assistantEntry("a1", "ok", null), userEntry("u2", "second"), failed("e1")];
    expect(retryTargetOf(entries)).toMatchObject({ error: { id: "e1" }, prompt: { id: "u2" } });
  });

  it("reaches back over the turn's tool calls, and ignores model changes made after the failure", () => {
    const entries = [userEntry("u1", "fix it"), assistantEntry("a1", "", null), toolEntry("a1", "c1"), failed("e1"), modelChange("m1")];
    expect(retryTargetOf(entries)).toMatchObject({ error: { id: "e1" }, prompt: { id: "u1" } });
  });

  it("offers nothing when the conversation went on, the answer did not fail, or no saved prompt led to it", () => {
    expect(retryTargetOf([])).toBeNull();
    expect(retryTargetOf([userEntry("u1", "a"), failed("e1"), userEntry("u2", "b")])).toBeNull();
    expect(retryTargetOf([userEntry("u1", "a"), failed("e1"), bashEntry("b1", "ls", "", 0)])).toBeNull();
    expect(retryTargetOf([userEntry("u1", "a"), assistantEntry("a1", "fine", null)])).toBeNull();
    expect(retryTargetOf([{ ...failed("x"), stopReason: "aborted" }])).toBeNull();
    expect(retryTargetOf([failed("e1")])).toBeNull();
    expect(retryTargetOf([userEntry(`${PROVISIONAL_PREFIX}1`, "unsaved"), failed("e1")])).toBeNull();
  });

  it("only ever offers the last failure, and only when nothing but asides follows it (property)", () => {
    const kinds = fc.array(fc.constantFrom("user", "ok", "error", "tool", "model"), { maxLength: 12 });
    fc.assert(
      fc.property(kinds, (list) => {
        const entries: TranscriptEntry[] = list.map((kind, i) => {
          const id = `e${i}`;
          if (kind === "user") return userEntry(id, `prompt ${i}`);
          if (kind === "ok") return assistantEntry(id, "fine", null);
          if (kind === "error") return failed(id);
          if (kind === "tool") return toolEntry(id, "c");
          return modelChange(id);
        });
        const target = retryTargetOf(entries);
        const lastWord = [...entries].reverse().find((e) => e.type !== "model_change");
        if (target === null) {
          const hasPromptBefore = entries.some(
            (e, i) => e.type === "message" && e.role === "user" && i < entries.indexOf(lastWord as TranscriptEntry),
          );
          expect(lastWord?.type === "message" && lastWord.role === "assistant" && lastWord.stopReason === "error" && hasPromptBefore).toBe(
            false,
          );
        } else {
          expect(target.error).toBe(lastWord);
          const promptIndex = entries.indexOf(target.prompt);
          const errorIndex = entries.indexOf(target.error);
          expect(promptIndex).toBeLessThan(errorIndex);
          expect(entries.slice(promptIndex + 1, errorIndex).some((e) => e.type === "message" && e.role === "user")).toBe(false);
          // The tools Retry runs again: exactly the ones called in between, in order.
          expect(target.toolsRun).toEqual(entries.slice(promptIndex + 1, errorIndex).flatMap((e) => (e.type === "tool" ? [e.name] : [])));
        }
      }),
    );
  });
});

describe("retryRequestOf", () => {
  it("re-sends the prompt's words and images", () => {
    const prompt = {
      ...userEntry("u1", "what is in this picture?"),
      blocks: [
        { type: "text" as const, text: "what is in this picture?" },
        { type: "image" as const, mimeType: "image/png", data: "iVBORw0KGgo=" },
      ],
    };
    expect(retryRequestOf({ prompt, error: failed("e1"), toolsRun: [] })).toEqual({
      entryId: "u1",
      text: "what is in this picture?",
      images: [{ type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" }],
    });
  });

  it("re-sends what the person wrote when a context edit replaced it for the model", () => {
    const prompt = {
      ...userEntry("u1", "[omitted]"),
      contextEdit: {
        editId: "c1",
        kind: "replaced" as const,
        original: { text: "the original words", blocks: [{ type: "text" as const, text: "the original words" }] },
      },
    };
    expect(retryRequestOf({ prompt, error: failed("e1"), toolsRun: [] })).toEqual({
      entryId: "u1",
      text: "the original words",
      images: [],
    });
  });
});

describe("a retry that runs tools again", () => {
  it("says so in the title and asks first when the turn called tools, and neither when it did not", () => {
    const withTools = retryTargetOf([
      userEntry("u1", "fix the tests"),
      assistantEntry("a1", "", null),
      toolEntry("a1", "c1", { name: "edit" }),
      toolEntry("a1", "c2", { name: "bash" }),
      toolEntry("a1", "c3", { name: "edit" }),
      failed("e1"),
    ]);
    expect(withTools?.toolsRun).toEqual(["edit", "bash", "edit"]);
    expect(withTools === null ? "" : retryTitle(withTools)).toContain("the whole turn runs again, with its 3 tool calls (edit ×2, bash)");
    expect(withTools === null ? null : retryConfirmation(withTools)).toMatchObject({
      title: "Retry the whole turn?",
      message: expect.stringContaining("3 tool calls (edit ×2, bash)"),
      confirmLabel: "Retry",
    });

    const plain = retryTargetOf([userEntry("u1", "hi"), failed("e1")]);
    expect(plain?.toolsRun).toEqual([]);
    expect(plain === null ? "" : retryTitle(plain)).not.toContain("tool");
    expect(plain === null ? undefined : retryConfirmation(plain)).toBeNull();
  });
});

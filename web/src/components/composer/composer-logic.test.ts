import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { activeOf, queueOf } from "./composer.fixture.ts";
import {
  canSteer,
  contextMeterView,
  enterKeyAction,
  isPromptImageType,
  modelKey,
  newerSnapshot,
  parseModelKey,
  runStateOf,
  secondsLeft,
  shellCommandOf,
  ultrafastView,
  withOffer,
} from "./composer-logic.ts";

const key = (init: Partial<{ key: string; shiftKey: boolean; isComposing: boolean; keyCode: number }>) =>
  enterKeyAction({ key: "Enter", shiftKey: false, isComposing: false, keyCode: 13, ...init });

describe("composer rules", () => {
  it("maps Enter to send, Shift+Enter to a newline and leaves IME composition alone", () => {
    expect(key({})).toBe("send");
    expect(key({ shiftKey: true })).toBe("newline");
    expect(key({ isComposing: true })).toBe("ime");
    expect(key({ keyCode: 229 })).toBe("ime");
    expect(key({ key: "a" })).toBe("other");
  });

  it("derives the run state", () => {
    expect(runStateOf(null, false)).toBe("idle");
    expect(runStateOf(activeOf(), false)).toBe("idle");
    expect(runStateOf(activeOf(), true)).toBe("finished");
    expect(runStateOf(activeOf({ isStreaming: true }), false)).toBe("working");
    expect(runStateOf(activeOf({ isCompacting: true }), false)).toBe("working");
    expect(runStateOf(activeOf({ isStreaming: true, pendingConfirmationCount: 1 }), true)).toBe("waiting");
  });

  it("keeps the newer snapshot of a session", () => {
    const a = activeOf({}, 5);
    expect(newerSnapshot(a, activeOf({}, 6))?.snapshotRevision).toBe(6);
    expect(newerSnapshot(a, activeOf({}, 4))).toBe(a);
    expect(newerSnapshot(a, activeOf({}, 5))).toBe(a);
    expect(newerSnapshot(a, activeOf({}, 1, "other"))?.id).toBe("other");
    expect(newerSnapshot(null, a)).toBe(a);
  });

  it("shows Ultrafast for eligible models or when it is on", () => {
    expect(ultrafastView(activeOf())).toEqual({ visible: false, on: false, canEnable: false });
    const on = activeOf({ extensionUi: { statuses: { "leyline-ultrafast": "on" }, widgets: {}, notifications: [], confirmations: [] } });
    expect(ultrafastView(on)).toEqual({ visible: true, on: true, canEnable: false });
  });

  it("describes context usage", () => {
    expect(contextMeterView(undefined).level).toBe("unknown");
    expect(contextMeterView({ tokens: null, contextWindow: 200_000, percent: null })).toEqual({
      percent: null,
      level: "unknown",
      label: "Context: unknown of 200k tokens",
    });
    expect(contextMeterView({ tokens: 150_000, contextWindow: 200_000, percent: 75 }).level).toBe("warn");
    expect(contextMeterView({ tokens: 1_000, contextWindow: 1_000_000, percent: 0.1 })).toMatchObject({
      level: "ok",
      label: "Context: 1.0k of 1.0M tokens (0%)",
    });
  });

  it("counts down confirmations", () => {
    expect(secondsLeft(null, 0)).toBeNull();
    expect(secondsLeft(10_500, 0)).toBe(11);
    expect(secondsLeft(10_000, 20_000)).toBe(0);
  });

  it("refuses steering while the queue is held", () => {
    expect(canSteer(undefined)).toBe(true);
    expect(canSteer(queueOf(1, []))).toBe(true);
    expect(canSteer(queueOf(1, [["q", "x"]], true))).toBe(false);
  });

  it("accepts PNG, JPEG, GIF and WebP only", () => {
    expect(["image/png", "image/JPEG", "image/gif", "image/webp"].map(isPromptImageType)).toEqual([true, true, true, true]);
    expect(["image/svg+xml", "image/bmp", "text/plain"].map(isPromptImageType)).toEqual([false, false, false]);
  });

  it("round-trips model keys whose ids contain slashes", () => {
    expect(parseModelKey(modelKey({ provider: "openrouter", id: "anthropic/claude" }))).toEqual({
      provider: "openrouter",
      id: "anthropic/claude",
    });
    expect(parseModelKey("nope")).toBeNull();
  });

  it("recognizes shell commands", () => {
    expect(shellCommandOf("!ls")).toEqual({ command: "ls", excludeFromContext: false });
    expect(shellCommandOf("  !! git log -1 ")).toEqual({ command: "git log -1", excludeFromContext: true });
    expect(shellCommandOf("!")).toBeNull();
    expect(shellCommandOf("hello!")).toBeNull();
  });
});

describe("an offered draft", () => {
  it("fills an empty input, and goes after what is typed, separated by a blank line", () => {
    expect(withOffer("", "Use OAuth instead")).toBe("Use OAuth instead");
    expect(withOffer("  \n", "Use OAuth instead")).toBe("Use OAuth instead");
    expect(withOffer("half a thought\n", "Use OAuth instead")).toBe("half a thought\n\nUse OAuth instead");
    // The same text again is not doubled.
    expect(withOffer("Use OAuth instead", "Use OAuth instead")).toBe("Use OAuth instead");
  });

  it("replaces the previous offer while it is untouched, as pi replaces its editor's text", () => {
    expect(withOffer("Use OAuth instead", "Use passwords", "Use OAuth instead")).toBe("Use passwords");
    expect(withOffer("Use OAuth instead\n", "Use passwords", "Use OAuth instead")).toBe("Use passwords");
    expect(withOffer("Use OAuth instead, but", "Use passwords", "Use OAuth instead")).toBe("Use OAuth instead, but\n\nUse passwords");
  });

  it("never loses what was typed: the result ends with the offer and keeps a written draft (property)", () => {
    fc.assert(
      fc.property(fc.string(), fc.string({ minLength: 1 }), fc.option(fc.string(), { nil: null }), (draft, offered, previous) => {
        const next = withOffer(draft, offered, previous);
        expect(next.endsWith(offered)).toBe(true);
        const written = draft.trim() !== "" && draft.trim() !== offered.trim() && draft.trim() !== previous?.trim();
        if (written) expect(next.startsWith(draft.trimEnd())).toBe(true);
        else expect(next).toBe(offered);
      }),
    );
  });
});

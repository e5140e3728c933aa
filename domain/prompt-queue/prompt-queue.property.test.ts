/**
 * Laws of the prompt queue decider over generated command sequences (positions and ids are chosen as
 * `pick % (size + 1)` at run time, so shrunk sequences stay meaningful; `size` selects a missing id):
 * - an accepted command raises the revision by exactly its number of events; a rejected one changes nothing
 *   and decide never mutates its input;
 * - item ids stay unique; an empty queue is unheld without error; a held queue has no sending task;
 * - held ⇒ dispatchNext yields nothing; the DTO never carries image data;
 * - a simple model of the item order (ids) agrees with the decider.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { PromptImage } from "../runtime/runtime-types.ts";
import { decide, evolveAll, initialState } from "./prompt-queue.decider.ts";
import type { PromptQueueCommand, PromptQueueState } from "./prompt-queue-types.ts";
import { selectPromptQueue } from "./prompt-queue.selectors.ts";

const IMAGE_MARKER = "IMAGEDATA";

type Revision = "current" | "stale" | "missing";

type Step =
  | { t: "enqueue"; text: string; images: number; behavior: "steer" | "followUp" | null; busy: boolean; ext: boolean }
  | { t: "hold" | "resume"; revision: Revision; stopping: boolean }
  | { t: "edit"; revision: Revision; pick: number; text: string }
  | { t: "remove" | "steer"; revision: Revision; pick: number }
  | { t: "move"; revision: Revision; pick: number; direction: "up" | "down" }
  | { t: "dispatchNext"; busy: boolean }
  | { t: "dispatchAccepted"; pick: number }
  | { t: "dispatchFailed"; pick: number; error: string }
  | { t: "interrupt" | "reload" };

const revision = fc.constantFrom<Revision>("current", "current", "current", "current", "stale", "missing");
const text = fc.constantFrom("", " ", "a", "fix the bug", "second");

const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      t: fc.constant("enqueue" as const),
      text,
      images: fc.nat(2),
      behavior: fc.constantFrom("steer" as const, "followUp" as const, null),
      busy: fc.boolean(),
      ext: fc.boolean(),
    }),
  },
  fc.record({ t: fc.constantFrom("hold" as const, "resume" as const), revision, stopping: fc.boolean() }),
  fc.record({ t: fc.constant("edit" as const), revision, pick: fc.nat(), text }),
  fc.record({ t: fc.constantFrom("remove" as const, "steer" as const), revision, pick: fc.nat() }),
  fc.record({ t: fc.constant("move" as const), revision, pick: fc.nat(), direction: fc.constantFrom("up" as const, "down" as const) }),
  { weight: 2, arbitrary: fc.record({ t: fc.constant("dispatchNext" as const), busy: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant("dispatchAccepted" as const), pick: fc.nat() }) },
  fc.record({ t: fc.constant("dispatchFailed" as const), pick: fc.nat(), error: fc.constantFrom("", "no vision model") }),
  fc.record({ t: fc.constantFrom("interrupt" as const, "reload" as const) }),
);

function toCommand(s: Step, state: PromptQueueState, index: number): PromptQueueCommand {
  const rev = (r: Revision): number | undefined => (r === "current" ? state.revision : r === "stale" ? state.revision - 1 : undefined);
  const id = (pick: number): string => state.items[pick % (state.items.length + 1)]?.id ?? "missing";
  switch (s.t) {
    case "enqueue": {
      const images: PromptImage[] = Array.from({ length: s.images }, (_, i) => ({
        type: "image",
        data: `${IMAGE_MARKER}-${index}-${i}`,
        mimeType: "image/png",
      }));
      return {
        type: "enqueue",
        id: `t${index}`,
        now: index,
        text: s.text,
        images,
        streamingBehavior: s.behavior,
        kind: "session",
        handoffId: null,
        busy: s.busy,
        extensionCommand: s.ext,
      };
    }
    case "hold":
      return { type: "hold", revision: rev(s.revision) };
    case "resume":
      return { type: "resume", revision: rev(s.revision), stopping: s.stopping };
    case "edit":
      return { type: "edit", revision: rev(s.revision), id: id(s.pick), text: s.text };
    case "remove":
      return { type: "remove", revision: rev(s.revision), id: id(s.pick) };
    case "steer":
      return { type: "steer", revision: rev(s.revision), id: id(s.pick) };
    case "move":
      return { type: "move", revision: rev(s.revision), id: id(s.pick), direction: s.direction };
    case "dispatchNext":
      return { type: "dispatchNext", busy: s.busy };
    case "dispatchAccepted":
      return { type: "dispatchAccepted", id: id(s.pick) };
    case "dispatchFailed":
      return { type: "dispatchFailed", id: id(s.pick), error: s.error };
    case "interrupt":
    case "reload":
      return { type: s.t };
  }
}

/** The model: item ids in order, updated only by what an accepted command means for the order. */
function modelOrder(order: string[], command: PromptQueueCommand, queuedNewTask: boolean): string[] {
  switch (command.type) {
    case "enqueue":
      return queuedNewTask ? [...order, command.id] : order;
    case "remove":
    case "dispatchAccepted":
      return order.filter((id) => id !== command.id);
    case "move": {
      const i = order.indexOf(command.id);
      const j = command.direction === "up" ? i - 1 : i + 1;
      const next = [...order];
      [next[i], next[j]] = [order[j] ?? "", order[i] ?? ""];
      return next;
    }
    default:
      return order;
  }
}

function checkInvariants(state: PromptQueueState): void {
  const ids = state.items.map((item) => item.id);
  expect(new Set(ids).size).toBe(ids.length);
  if (state.items.length === 0) expect([state.held, state.error]).toEqual([false, ""]);
  if (state.held) expect(state.items.every((item) => item.status === "pending")).toBe(true);
  expect(JSON.stringify(selectPromptQueue(state))).not.toContain(IMAGE_MARKER);
}

describe("prompt queue laws", () => {
  it("hold on every generated command sequence", () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 40 }), (steps) => {
        let state = initialState();
        let order: string[] = [];
        steps.forEach((s, index) => {
          const command = toCommand(s, state, index);
          const before = JSON.stringify(state);
          const decision = decide(command, state);
          expect(JSON.stringify(state)).toBe(before);
          if (!decision.ok) return; // rejected: state is untouched (checked above), revision stays
          const next = evolveAll(state, decision.events);
          expect(next.revision).toBe(state.revision + decision.events.length);
          if (decision.events.length === 0) expect(next).toEqual(state);
          else expect(next).not.toEqual(state);
          if (command.type === "dispatchNext" && state.held) {
            expect(decision.events).toEqual([]);
            expect(decision.submission).toBeNull();
          }
          if (command.type === "enqueue" && (decision.submission === null) !== decision.events.length > 0) {
            throw new Error("an enqueue either queues a task or submits it, never both or neither");
          }
          order = modelOrder(
            order,
            command,
            decision.events.some((e) => e.type === "taskQueued"),
          );
          state = next;
          expect(state.items.map((item) => item.id)).toEqual(order);
          checkInvariants(state);
        });
      }),
      { numRuns: 300 },
    );
  });

  it("a command with a stale or missing revision is always rejected as stale", () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 20 }), fc.constantFrom<Revision>("stale", "missing"), (steps, bad) => {
        let state = initialState();
        steps.forEach((s, index) => {
          const decision = decide(toCommand(s, state, index), state);
          if (decision.ok) state = evolveAll(state, decision.events);
        });
        const decision = decide(toCommand({ t: "hold", revision: bad, stopping: false }, state, 999), state);
        expect(decision.ok ? "accepted" : decision.error.code).toBe("stale-revision");
      }),
    );
  });
});

/**
 * Laws of the open-runtime snapshot projection over generated input sequences:
 * - incremental fold = full rebuild at every split point;
 * - snapshotRevision rises by exactly one when an input changes the published snapshot, and never otherwise;
 * - unknown inputs (and unknown pi events) change nothing;
 * - pendingConfirmationCount === extensionUi.confirmations.length in the full form, and the compact form
 *   keeps the count while carrying neither confirmation records nor queue item content.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ActiveRuntimeInput } from "../domain/runtime/runtime-inputs.ts";
import type { Model, PromptQueue } from "../domain/runtime/runtime-types.ts";
import { fold, rebuild } from "./projection.ts";
import { activeRuntimeProjection, selectActive, selectCompactActive, type ActiveRuntimeState } from "./active-runtime.projection.ts";

const SECRET = "SECRET-ITEM";

const model = (id: string): Model => ({
  id,
  name: id,
  provider: "faux",
  supportsImages: id === "b",
  supportsUltrafast: false,
  availableThinkingLevels: ["off", "high"],
});
const key = fc.constantFrom("k1", "k2", "leyline-ultrafast");
const smallStrings = fc.array(fc.constantFrom("a", "b", "c"), { maxLength: 3 });
const id = fc.constantFrom("x1", "x2", "x3");

const queue: fc.Arbitrary<PromptQueue | null> = fc.option(
  fc.record({
    revision: fc.nat(5),
    held: fc.boolean(),
    error: fc.constantFrom("", "failed"),
    items: fc.array(
      fc.record({
        id,
        text: fc.constantFrom(`${SECRET}-1`, `${SECRET}-2`),
        imageCount: fc.nat(2),
        status: fc.constantFrom("pending" as const, "sending" as const),
      }),
      { maxLength: 3 },
    ),
  }),
);

const snapshot = fc.record(
  {
    model: fc.option(fc.constantFrom("a", "b").map(model)),
    availableModels: fc.array(fc.constantFrom("a", "b").map(model), { maxLength: 2 }),
    thinkingLevel: fc.constantFrom("off", "high"),
    isStreaming: fc.boolean(),
    isCompacting: fc.boolean(),
    pendingToolCalls: smallStrings,
    steeringMode: fc.constantFrom("all", "one-at-a-time"),
    activeToolNames: smallStrings,
    contextUsage: fc.option(
      fc.record({ tokens: fc.option(fc.nat(100)), contextWindow: fc.constant(100), percent: fc.option(fc.nat(100)) }),
    ),
    slashCommands: fc.array(
      fc.record({ name: fc.constantFrom("plan", "review"), source: fc.constantFrom("extension" as const, "skill" as const) }),
      { maxLength: 2 },
    ),
    queuedMessages: fc.record({ steering: smallStrings, followUp: smallStrings }),
  },
  { requiredKeys: [] },
);

const sessionEvent = fc.oneof(
  fc.constantFrom(
    { type: "agent_start" },
    { type: "agent_end", messages: [] },
    { type: "compaction_start", reason: "manual" },
    { type: "compaction_end", reason: "manual" },
  ),
  id.map((toolCallId) => ({ type: "tool_execution_start", toolCallId, toolName: "bash", args: {} })),
  id.map((toolCallId) => ({ type: "tool_execution_end", toolCallId, toolName: "bash", result: {}, isError: false })),
  fc.record({ type: fc.constant("queue_update"), steering: smallStrings, followUp: smallStrings }),
  fc.record({ type: fc.constant("thinking_level_changed"), level: fc.constantFrom("off", "low", "high") }),
  fc.record({ type: fc.constant("session_info_changed"), name: fc.constantFrom("n1", "n2") }),
  fc.constantFrom({ type: "message_update" }, { type: "turn_start" }, { type: "tool_execution_start" }),
);

const knownInput: fc.Arbitrary<ActiveRuntimeInput> = fc.oneof(
  fc.record({
    type: fc.constant("runtimeAttached" as const),
    id: fc.constantFrom("s1", "s2"),
    path: fc.constantFrom("/a.jsonl", "/b.jsonl"),
    cwd: fc.constant("/w"),
  }),
  { weight: 2, arbitrary: fc.record({ type: fc.constant("workerSnapshot" as const), snapshot }) },
  { weight: 3, arbitrary: sessionEvent.map((event): ActiveRuntimeInput => ({ type: "sessionEvent", event })) },
  fc.record({ type: fc.constant("extensionStatus" as const), key, text: fc.option(fc.constantFrom("on", "off")) }),
  fc.record({
    type: fc.constant("extensionWidget" as const),
    key,
    lines: fc.option(smallStrings),
    placement: fc.constantFrom("aboveEditor" as const, "belowEditor" as const),
  }),
  fc.record({
    type: fc.constant("extensionNotification" as const),
    notification: fc.record({
      id: fc.constantFrom("n1", "n2", "n3", "n4"),
      message: fc.constant("m"),
      level: fc.constantFrom("info" as const, "error" as const),
      createdAt: fc.nat(10),
    }),
  }),
  {
    weight: 2,
    arbitrary: fc.record({
      type: fc.constant("confirmationRequested" as const),
      confirmation: fc.record({
        id,
        title: fc.constant("t"),
        message: fc.constant("SECRET-CONFIRM"),
        createdAt: fc.nat(10),
        expiresAt: fc.option(fc.nat(100)),
      }),
    }),
  },
  fc.record({ type: fc.constantFrom("confirmationResolved" as const, "confirmationExpired" as const), id }),
  fc.constant({ type: "extensionUiReset" as const }),
  queue.map((promptQueue): ActiveRuntimeInput => ({ type: "promptQueue", promptQueue })),
  fc.constantFrom<ActiveRuntimeInput>(
    { type: "research", research: null },
    { type: "diagnostics", diagnostics: [] },
    { type: "diagnostics", diagnostics: [{ message: "d" }] },
  ),
);

const unknownInput = fc.constantFrom(
  { type: "somethingNew" },
  { type: "sessionEvent", event: { type: "auto_retry_end", success: true } },
  { type: "sessionEvent", event: { type: "brand_new_event" } },
) as fc.Arbitrary<unknown> as fc.Arbitrary<ActiveRuntimeInput>;

/** The published snapshot without its revision. */
function visible(state: ActiveRuntimeState): unknown {
  const { snapshotRevision: _revision, ...rest } = selectActive(state);
  return JSON.parse(JSON.stringify(rest));
}

describe("active runtime projection laws", () => {
  it("incremental fold equals a full rebuild at every split point", () => {
    fc.assert(
      fc.property(fc.array(knownInput, { maxLength: 30 }), (inputs) => {
        const full = rebuild(activeRuntimeProjection, inputs);
        for (let split = 0; split <= inputs.length; split++) {
          const head = rebuild(activeRuntimeProjection, inputs.slice(0, split));
          expect(fold(activeRuntimeProjection, head, inputs.slice(split))).toEqual(full);
        }
      }),
      { numRuns: 150 },
    );
  });

  it("snapshotRevision rises by one exactly when the snapshot changes", () => {
    fc.assert(
      fc.property(fc.array(knownInput, { maxLength: 40 }), (inputs) => {
        let state = activeRuntimeProjection.initial();
        for (const input of inputs) {
          const next = fold(activeRuntimeProjection, state, [input]);
          const changed = JSON.stringify(visible(next)) !== JSON.stringify(visible(state));
          expect(next.snapshotRevision).toBe(state.snapshotRevision + (changed ? 1 : 0));
          state = next;
        }
      }),
      { numRuns: 200 },
    );
  });

  it("unknown inputs change nothing", () => {
    fc.assert(
      fc.property(
        fc.array(knownInput, { maxLength: 20 }),
        fc.array(fc.tuple(fc.nat(), unknownInput), { maxLength: 5 }),
        (inputs, extras) => {
          const mixed = [...inputs];
          for (const [at, extra] of extras) mixed.splice(at % (mixed.length + 1), 0, extra);
          const state = rebuild(activeRuntimeProjection, inputs);
          expect(rebuild(activeRuntimeProjection, mixed)).toEqual(state);
          expect(
            fold(
              activeRuntimeProjection,
              state,
              extras.map(([, extra]) => extra),
            ),
          ).toBe(state);
        },
      ),
    );
  });

  it("the confirmation count matches the records, and the compact form hides records and item text", () => {
    fc.assert(
      fc.property(fc.array(knownInput, { maxLength: 30 }), (inputs) => {
        const state = rebuild(activeRuntimeProjection, inputs);
        const active = selectActive(state);
        expect(active.state.pendingConfirmationCount).toBe(active.state.extensionUi.confirmations.length);
        const compact = selectCompactActive(state);
        expect(compact.state.pendingConfirmationCount).toBe(active.state.pendingConfirmationCount);
        const text = JSON.stringify(compact);
        expect(text).not.toContain("SECRET");
        if (active.state.promptQueue) expect(compact.state.promptQueue?.count).toBe(active.state.promptQueue.items.length);
      }),
    );
  });
});

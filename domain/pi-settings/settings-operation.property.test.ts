/**
 * Laws of the settings operation decider over generated command sequences (operations and positions are
 * chosen as `pick % (size + 1)` at run time, so shrunk sequences stay meaningful; `size` selects a missing id).
 * Submitted answers are markers (`SEC<n>Q`, at least the four characters that count as a secret) that later text (notices, errors, results, prompts) quotes (option
 * ids are identifiers, not text: a text answer equal to one is not hidden in a select prompt's options):
 * - decide never mutates its input, and a rejected command changes nothing;
 * - a snapshot never contains a value submitted to its operation for a non-select prompt;
 * - events keep at most 20; every snapshot satisfies the contract's SettingsOperation schema;
 * - at most `maxActive` operations are active, and at most one per key;
 * - a cancelling operation has no prompt and no events; a terminal one has no prompt, auth_url or device_code
 *   events or links, and its snapshot never changes again until it expires (terminal states are absorbing);
 * - prompt ids are never reused within an operation; an expired operation never comes back.
 */
import fc from "fast-check";
import { Compile } from "typebox/compile";
import { describe, expect, it } from "vitest";
import { SettingsOperation } from "../contract/http-pi-settings.ts";
import { decide, evolveAll, initialState, isActiveStatus, snapshotOf } from "./settings-operation.ts";
import {
  MAX_SETTINGS_EVENTS,
  type SettingsNotice,
  type SettingsOperationCommand,
  type SettingsOperationsState,
  type SettingsPromptRequest,
} from "./settings-operation-types.ts";

const LIMITS = { maxActive: 3, capMs: 600_000, retentionMs: 60_000 };
const KEYS = ["provider:openai", "provider:anthropic", "mcp-url:https://x.dev/mcp", "mcp-stdio:a", "mcp-stdio:b"];
const OPTION_IDS = ["oauth", "api_key"];
const isSettingsOperation = Compile(SettingsOperation);

type PromptKind = SettingsPromptRequest["type"];
type AnswerValue = "marker" | "empty" | "option" | "badOption" | "tooLong" | "notString";
type Quote = { pick: number } | null;

type Step =
  | { t: "start"; key: number; deadlineMs: number | null }
  | { t: "showPrompt"; op: number; kind: PromptKind; quote: Quote }
  | { t: "withdrawPrompt"; op: number; stale: boolean }
  | { t: "answer"; op: number; stale: boolean; value: AnswerValue }
  /** `times` notices in a row, so that an operation sees more than 20. */
  | { t: "notify"; op: number; kind: SettingsNotice["type"]; quote: Quote; link: string; times: number }
  | { t: "cancel" | "reachDeadline" | "expire"; op: number }
  | { t: "complete" | "fail"; op: number; quote: Quote }
  | { t: "wait"; ms: number };

const op = fc.nat();
const quote: fc.Arbitrary<Quote> = fc.option(fc.record({ pick: fc.nat() }), { freq: 3 });

const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      t: fc.constant("start" as const),
      key: fc.nat(KEYS.length - 1),
      deadlineMs: fc.option(fc.integer({ min: -1, max: 900_000 })),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      t: fc.constant("showPrompt" as const),
      op,
      kind: fc.constantFrom<PromptKind>("text", "secret", "select", "manual_code"),
      quote,
    }),
  },
  fc.record({ t: fc.constant("withdrawPrompt" as const), op, stale: fc.boolean() }),
  {
    weight: 4,
    arbitrary: fc.record({
      t: fc.constant("answer" as const),
      op,
      stale: fc.boolean(),
      value: fc.constantFrom<AnswerValue>("marker", "marker", "marker", "empty", "option", "badOption", "tooLong", "notString"),
    }),
  },
  {
    weight: 8,
    arbitrary: fc.record({
      t: fc.constant("notify" as const),
      op,
      kind: fc.constantFrom<SettingsNotice["type"]>("info", "info", "progress", "auth_url", "device_code"),
      quote,
      link: fc.constantFrom("https://docs.example.com/", "http://u:p@example.com/", "javascript:void 0", "https://auth.example.com/?q=1"),
      times: fc.integer({ min: 1, max: 12 }),
    }),
  },
  fc.record({ t: fc.constantFrom("cancel" as const, "reachDeadline" as const, "expire" as const), op }),
  fc.record({ t: fc.constantFrom("complete" as const, "fail" as const), op, quote }),
  fc.record({ t: fc.constant("wait" as const), ms: fc.integer({ min: 0, max: 400_000 }) }),
);

interface Model {
  now: number;
  /** Every id ever started, in order (expired ones included). */
  ids: string[];
  /** Accepted non-select answers per operation. */
  secrets: Record<string, string[]>;
  /** Every value ever submitted (quoted by later text, whichever operation it went to). */
  submitted: string[];
  promptIds: Record<string, string[]>;
  /** The snapshot of each operation when it became terminal. */
  terminal: Record<string, string>;
  expired: Set<string>;
}

function toCommand(s: Step, state: SettingsOperationsState, model: Model, index: number): SettingsOperationCommand | null {
  const now = model.now;
  const id = (pick: number): string => model.ids[pick % (model.ids.length + 1)] ?? "missing";
  const quoted = (q: Quote): string => (q === null ? "" : ` ${model.submitted[q.pick % (model.submitted.length + 1)] ?? "plain"}`);
  switch (s.t) {
    case "start":
      return {
        type: "start",
        id: `op${index}`,
        key: KEYS[s.key] ?? "k",
        now,
        ...(s.deadlineMs !== null ? { deadlineMs: s.deadlineMs } : {}),
      };
    case "showPrompt": {
      const message = `Enter it${quoted(s.quote)}`;
      const prompt: SettingsPromptRequest =
        s.kind === "select"
          ? {
              type: "select",
              message,
              options: OPTION_IDS.map((optionId) => ({ id: optionId, label: `Use ${optionId}${quoted(s.quote)}` })),
            }
          : { type: s.kind, message, placeholder: quoted(s.quote) };
      return { type: "showPrompt", id: id(s.op), now, prompt };
    }
    case "withdrawPrompt": {
      const target = id(s.op);
      const current = state.operations[target]?.prompt?.id ?? "prompt-0";
      return { type: "withdrawPrompt", id: target, now, promptId: s.stale ? `${current}-old` : current };
    }
    case "answer": {
      const target = id(s.op);
      const current = state.operations[target]?.prompt?.id ?? "prompt-0";
      const values: Record<AnswerValue, unknown> = {
        marker: `SEC${index}Q`,
        empty: "",
        option: OPTION_IDS[index % OPTION_IDS.length],
        badOption: "Use oauth",
        tooLong: "x".repeat(32_769),
        notString: index,
      };
      return { type: "answer", id: target, now, promptId: s.stale ? "prompt-99" : current, value: values[s.value] };
    }
    case "notify": {
      const message = `step ${index}${quoted(s.quote)}`;
      const notices: Record<SettingsNotice["type"], SettingsNotice> = {
        info: { type: "info", message, links: [{ url: s.link, label: `docs${quoted(s.quote)}` }] },
        progress: { type: "progress", message },
        auth_url: { type: "auth_url", url: s.link, instructions: message },
        device_code: { type: "device_code", verificationUri: s.link, userCode: `CODE${quoted(s.quote)}` },
      };
      return { type: "notify", id: id(s.op), now, notice: notices[s.kind] };
    }
    case "cancel":
      return { type: "cancel", id: id(s.op), now, reason: "request" };
    case "reachDeadline":
    case "expire":
      return { type: s.t, id: id(s.op), now };
    case "complete":
      return { type: "complete", id: id(s.op), now, result: { report: `done${quoted(s.quote)}`, tools: [{ name: quoted(s.quote) }] } };
    case "fail":
      return { type: "fail", id: id(s.op), now, error: `failed${quoted(s.quote)}` };
    case "wait":
      return null;
  }
}

function checkLaws(state: SettingsOperationsState, model: Model): void {
  const records = Object.values(state.operations);
  const active = records.filter((record) => isActiveStatus(record.status));
  expect(active.length).toBeLessThanOrEqual(LIMITS.maxActive);
  expect(new Set(active.map((record) => record.key)).size).toBe(active.length);
  for (const id of model.expired) expect(state.operations[id]).toBeUndefined();
  for (const record of records) {
    const snapshot = snapshotOf(record);
    const json = JSON.stringify(snapshot);
    expect(isSettingsOperation.Check(snapshot), json).toBe(true);
    for (const secret of model.secrets[record.id] ?? []) expect(json).not.toContain(secret);
    expect(snapshot.events.length).toBeLessThanOrEqual(MAX_SETTINGS_EVENTS);
    if (snapshot.state === "cancelling") expect([snapshot.prompt, snapshot.events]).toEqual([null, []]);
    if (!isActiveStatus(snapshot.state)) {
      expect(snapshot.prompt).toBeNull();
      expect(snapshot.events.every((event) => event.type === "info" && event.links === undefined)).toBe(true);
      const before = model.terminal[record.id];
      if (before === undefined) model.terminal[record.id] = json;
      else expect(json).toBe(before);
    }
    if (record.prompt !== null) {
      const seen = model.promptIds[record.id] ?? [];
      if (seen.at(-1) !== record.prompt.id) {
        expect(seen).not.toContain(record.prompt.id);
        model.promptIds[record.id] = [...seen, record.prompt.id];
      }
    }
  }
}

describe("settings operation laws", () => {
  it("hold on every generated command sequence", () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 80, size: "max" }), (steps) => {
        let state = initialState(LIMITS);
        const model: Model = {
          now: 1_700_000_000_000,
          ids: [],
          secrets: {},
          submitted: [],
          promptIds: {},
          terminal: {},
          expired: new Set(),
        };
        steps.forEach((s, index) => {
          if (s.t === "wait") {
            model.now += s.ms;
            return;
          }
          const command = toCommand(s, state, model, index);
          if (command === null) return;
          for (let time = 0; time < (s.t === "notify" ? s.times : 1); time++) {
            const before = JSON.stringify(state);
            const decision = decide(command, state);
            expect(JSON.stringify(state)).toBe(before);
            if (!decision.ok) return;
            const promptType = command.type === "answer" ? state.operations[command.id]?.prompt?.type : undefined;
            state = evolveAll(state, decision.events);
            if (command.type === "start") model.ids.push(command.id);
            if (command.type === "answer" && typeof command.value === "string") {
              model.submitted.push(command.value);
              // Markers only: an option id typed into a text prompt stays visible as the id of a later select option.
              if (promptType !== "select" && /^S\d+Q$/.test(command.value)) {
                model.secrets[command.id] = [...(model.secrets[command.id] ?? []), command.value];
              }
            }
            for (const event of decision.events) if (event.type === "operationExpired") model.expired.add(event.id);
          }
          checkLaws(state, model);
        });
      }),
      { numRuns: 200 },
    );
  });

  it("an answer is accepted only for the current prompt of a running operation", () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 40, size: "max" }), fc.string({ maxLength: 5 }), (steps, promptId) => {
        let state = initialState(LIMITS);
        const model: Model = { now: 0, ids: [], secrets: {}, submitted: [], promptIds: {}, terminal: {}, expired: new Set() };
        steps.forEach((s, index) => {
          const command = toCommand(s, state, model, index);
          if (command === null) return;
          const decision = decide(command, state);
          if (!decision.ok) return;
          if (command.type === "start") model.ids.push(command.id);
          state = evolveAll(state, decision.events);
        });
        for (const record of Object.values(state.operations)) {
          const decision = decide({ type: "answer", id: record.id, now: 0, promptId, value: "v" }, state);
          const current = record.status === "running" && record.prompt !== null && record.prompt.id === promptId;
          expect(decision.ok).toBe(current && record.prompt?.type !== "select");
        }
      }),
    );
  });
});

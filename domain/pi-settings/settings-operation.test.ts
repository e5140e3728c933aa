/**
 * The settings operation rules of spec/api-reference.md ("Settings operations", "Settings errors"), one test
 * per rule, written Given (past events) / When (a command) / Then (events, an error, or the snapshot).
 */
import { describe, expect, it } from "vitest";
import type { ErrorCode } from "../contract/error-codes.ts";
import type { SettingsOperation } from "../contract/http-pi-settings.ts";
import { decide, evolveAll, handle, initialState, snapshotOf } from "./settings-operation.ts";
import {
  type JsonObject,
  MAX_SETTINGS_ANSWER_LENGTH,
  SETTINGS_OPERATION_MESSAGES,
  type SettingsOperationCommand,
  type SettingsOperationDecision,
  type SettingsOperationEvent,
  type SettingsOperationsState,
  type SettingsPromptRequest,
} from "./settings-operation-types.ts";

const T0 = 1_700_000_000_000;
const MINUTE = 60_000;
const OP = "op1";

const started = (id = OP, key = `key:${id}`, at = T0, deadlineAt = at + 10 * MINUTE): SettingsOperationEvent => ({
  type: "operationStarted",
  id,
  key,
  startedAt: at,
  deadlineAt,
});

const SECRET_PROMPT: SettingsOperationEvent = {
  type: "promptShown",
  id: OP,
  prompt: { id: "prompt-1", type: "secret", message: "API key", placeholder: "sk-..." },
} as const;
const SELECT_PROMPT: SettingsOperationEvent = {
  type: "promptShown",
  id: OP,
  prompt: {
    id: "prompt-1",
    type: "select",
    message: "How do you sign in?",
    placeholder: "",
    options: [
      { id: "oauth", label: "Subscription", description: "" },
      { id: "api_key", label: "API key", description: "Paste a key" },
    ],
  },
};

const answered = (secrets: string[], promptId = "prompt-1"): SettingsOperationEvent => ({
  type: "promptAnswered",
  id: OP,
  promptId,
  secrets,
});
const info = (message: string): SettingsOperationEvent => ({
  type: "eventNotified",
  id: OP,
  event: { type: "info", message, level: "info" },
});
const cancelled: SettingsOperationEvent = { type: "cancelRequested", id: OP, reason: "request" };
const completed = (now = T0 + MINUTE, result: JsonObject = { ok: true }): SettingsOperationEvent => ({
  type: "workCompleted",
  id: OP,
  now,
  result,
});
const failed = (error: string, now = T0 + MINUTE): SettingsOperationEvent => ({ type: "workFailed", id: OP, now, error });

function answer(promptId: unknown, value: unknown): SettingsOperationCommand {
  return { type: "answer", id: OP, now: T0 + 1_000, promptId, value };
}

function given(...events: SettingsOperationEvent[]) {
  const state = evolveAll(initialState(), events);
  return {
    state,
    when(command: SettingsOperationCommand) {
      const decision: SettingsOperationDecision = decide(command, state);
      const after = handle(state, command).state;
      const then = {
        decision,
        after,
        thenEvents(expected: SettingsOperationEvent[]) {
          expect(decision.ok, JSON.stringify(decision)).toBe(true);
          if (decision.ok) expect(decision.events).toEqual(expected);
          return then;
        },
        thenRejects(code: ErrorCode, message: string) {
          expect(decision).toEqual({ ok: false, error: { code, message } });
          expect(after).toBe(state);
          return then;
        },
        thenSnapshot(check: (snapshot: SettingsOperation) => void, id = OP) {
          const record = after.operations[id];
          expect(record, `operation ${id}`).toBeDefined();
          if (record) check(snapshotOf(record));
          return then;
        },
      };
      return then;
    },
  };
}

function snapshotAfter(...events: SettingsOperationEvent[]): SettingsOperation {
  const record = evolveAll(initialState(), events).operations[OP];
  if (!record) throw new Error("no operation");
  return snapshotOf(record);
}

describe("start", () => {
  it("a started operation is running with no prompt, events, result or error, and a ten-minute deadline", () => {
    given()
      .when({ type: "start", id: OP, key: "provider:openai", now: T0 })
      .thenEvents([started(OP, "provider:openai")])
      .thenSnapshot((s) => expect(s).toEqual({ id: OP, state: "running", prompt: null, events: [], result: null, error: "" }));
  });

  it("a shorter deadline of its own applies (two minutes for MCP work other than login)", () => {
    given()
      .when({ type: "start", id: OP, key: "k", now: T0, deadlineMs: 2 * MINUTE })
      .thenEvents([started(OP, "k", T0, T0 + 2 * MINUTE)]);
  });

  it("a deadline past the cap, or not positive, gives the ten-minute cap", () => {
    for (const deadlineMs of [60 * MINUTE, 0, -5, Number.NaN]) {
      given()
        .when({ type: "start", id: OP, key: "k", now: T0, deadlineMs })
        .thenEvents([started(OP, "k", T0, T0 + 10 * MINUTE)]);
    }
  });

  it("the ninth active operation is refused: Too many settings operations are in progress. (429)", () => {
    const eight = Array.from({ length: 8 }, (_, i) => started(`op${i}`));
    given(...eight)
      .when({ type: "start", id: "op9", key: "key:op9", now: T0 })
      .thenRejects("too_many_operations", "Too many settings operations are in progress.");
  });

  it("a cancelling operation still counts as active; an ended one does not", () => {
    const eight = Array.from({ length: 8 }, (_, i) => started(`op${i}`));
    given(...eight, { type: "cancelRequested", id: "op0", reason: "request" })
      .when({ type: "start", id: "op9", key: "key:op9", now: T0 })
      .thenRejects("too_many_operations", SETTINGS_OPERATION_MESSAGES.tooMany);
    given(...eight, { type: "workFailed", id: "op0", now: T0, error: "boom" })
      .when({ type: "start", id: "op9", key: "key:op9", now: T0 })
      .thenEvents([started("op9", "key:op9")]);
  });

  it("a second active operation for the same key is refused (409)", () => {
    given(started(OP, "provider:openai"))
      .when({ type: "start", id: "op2", key: "provider:openai", now: T0 })
      .thenRejects("conflict", "An operation for this provider or server is already in progress.");
  });

  it("the key is free again once the operation ended", () => {
    given(started(OP, "provider:openai"), completed())
      .when({ type: "start", id: "op2", key: "provider:openai", now: T0 + MINUTE })
      .thenEvents([started("op2", "provider:openai", T0 + MINUTE)]);
  });

  it("a duplicate key is reported before the limit", () => {
    const eight = Array.from({ length: 8 }, (_, i) => started(`op${i}`));
    given(...eight)
      .when({ type: "start", id: "op9", key: "key:op3", now: T0 })
      .thenRejects("conflict", SETTINGS_OPERATION_MESSAGES.duplicate);
  });
});

describe("prompts", () => {
  it("a text prompt is shown with its own id, an empty placeholder by default and no options", () => {
    given(started())
      .when({ type: "showPrompt", id: OP, now: T0, prompt: { type: "text", message: "Enterprise domain" } })
      .thenSnapshot((s) => expect(s.prompt).toEqual({ id: "prompt-1", type: "text", message: "Enterprise domain", placeholder: "" }));
  });

  it("a select prompt lists its options, with an empty description when none is given", () => {
    const prompt: SettingsPromptRequest = { type: "select", message: "Pick", options: [{ id: "a", label: "A" }] };
    given(started())
      .when({ type: "showPrompt", id: OP, now: T0, prompt })
      .thenSnapshot((s) =>
        expect(s.prompt).toEqual({
          id: "prompt-1",
          type: "select",
          message: "Pick",
          placeholder: "",
          options: [{ id: "a", label: "A", description: "" }],
        }),
      );
  });

  it("prompt ids are unique within an operation", () => {
    given(started(), SECRET_PROMPT, answered(["k"]))
      .when({ type: "showPrompt", id: OP, now: T0, prompt: { type: "manual_code", message: "Paste the code", placeholder: "code" } })
      .thenSnapshot((s) => expect(s.prompt?.id).toBe("prompt-2"));
  });

  it("a cancelling operation shows no more prompts", () => {
    given(started(), cancelled)
      .when({ type: "showPrompt", id: OP, now: T0, prompt: { type: "text", message: "x" } })
      .thenRejects("conflict", SETTINGS_OPERATION_MESSAGES.notRunning);
  });

  it("a prompt whose own signal aborted is withdrawn", () => {
    given(started(), SECRET_PROMPT)
      .when({ type: "withdrawPrompt", id: OP, now: T0, promptId: "prompt-1" })
      .thenEvents([{ type: "promptWithdrawn", id: OP, promptId: "prompt-1" }])
      .thenSnapshot((s) => expect(s.prompt).toBeNull());
  });

  it("withdrawing a prompt that is no longer current changes nothing", () => {
    given(started(), SECRET_PROMPT).when({ type: "withdrawPrompt", id: OP, now: T0, promptId: "prompt-0" }).thenEvents([]);
  });
});

describe("answers", () => {
  it("an answer to the current prompt clears it, and the snapshot never carries the value", () => {
    given(started(), SECRET_PROMPT)
      .when(answer("prompt-1", "sk-live-123"))
      .thenEvents([answered(["sk-live-123"])])
      .thenSnapshot((s) => {
        expect(s.prompt).toBeNull();
        expect(JSON.stringify(s)).not.toContain("sk-live-123");
      });
  });

  it("an answer to another prompt id is stale: This prompt is no longer active. (409)", () => {
    for (const promptId of ["prompt-2", "", 1, undefined]) {
      given(started(), SECRET_PROMPT).when(answer(promptId, "x")).thenRejects("conflict", "This prompt is no longer active.");
    }
  });

  it("an answer when no prompt is shown is stale", () => {
    given(started(), SECRET_PROMPT, answered(["x"]))
      .when(answer("prompt-1", "y"))
      .thenRejects("conflict", SETTINGS_OPERATION_MESSAGES.stalePrompt);
  });

  it("a value that is not a string is Invalid response. (400)", () => {
    for (const value of [undefined, null, 42, ["x"], { value: "x" }]) {
      given(started(), SECRET_PROMPT).when(answer("prompt-1", value)).thenRejects("invalid_request", "Invalid response.");
    }
  });

  it("values hold at most 32,768 characters", () => {
    given(started(), SECRET_PROMPT)
      .when(answer("prompt-1", "k".repeat(MAX_SETTINGS_ANSWER_LENGTH + 1)))
      .thenRejects("invalid_request", "Invalid response.");
    given(started(), SECRET_PROMPT)
      .when(answer("prompt-1", "k".repeat(MAX_SETTINGS_ANSWER_LENGTH)))
      .thenEvents([answered(["k".repeat(MAX_SETTINGS_ANSWER_LENGTH)])]);
  });

  it("a select answer must be an offered option id: Select an available option. (400)", () => {
    given(started(), SELECT_PROMPT).when(answer("prompt-1", "Subscription")).thenRejects("invalid_request", "Select an available option.");
  });

  it("a select answer is not a secret", () => {
    given(started(), SELECT_PROMPT)
      .when(answer("prompt-1", "api_key"))
      .thenEvents([answered([])]);
  });

  it("an answer shorter than four characters redacts nothing (it would blank those letters out of every message)", () => {
    given(started(), SECRET_PROMPT)
      .when(answer("prompt-1", "e"))
      .thenEvents([answered([])]);
    given(started(), SECRET_PROMPT)
      .when(answer("prompt-1", " abcd "))
      .thenEvents([answered([" abcd ", "abcd"])]);
  });

  it("text values can be empty, and an empty value redacts nothing", () => {
    const textPrompt = {
      type: "promptShown",
      id: OP,
      prompt: { id: "prompt-1", type: "text", message: "Domain", placeholder: "" },
    } as const;
    given(started(), textPrompt)
      .when(answer("prompt-1", ""))
      .thenEvents([answered([])]);
  });

  it("a value with surrounding spaces makes its trimmed form secret too", () => {
    given(started(), SECRET_PROMPT)
      .when(answer("prompt-1", "  sk-9  "))
      .thenEvents([answered(["  sk-9  ", "sk-9"])]);
  });

  it("an unknown or expired operation: This settings operation expired. Start it again. (404)", () => {
    given().when(answer("prompt-1", "x")).thenRejects("settings_not_found", "This settings operation expired. Start it again.");
    given()
      .when({ type: "cancel", id: OP, now: T0, reason: "request" })
      .thenRejects("settings_not_found", SETTINGS_OPERATION_MESSAGES.expired);
  });
});

describe("events", () => {
  it("events keep the last 20", () => {
    const many = Array.from({ length: 25 }, (_, i) => info(`step ${i}`));
    const snapshot = snapshotAfter(started(), ...many);
    expect(snapshot.events).toHaveLength(20);
    expect(snapshot.events[0]).toEqual({ type: "info", message: "step 5", level: "info" });
    expect(snapshot.events[19]).toEqual({ type: "info", message: "step 24", level: "info" });
  });

  it("links must be HTTP or HTTPS without URL credentials; the others are dropped", () => {
    given(started())
      .when({
        type: "notify",
        id: OP,
        now: T0,
        notice: {
          type: "info",
          message: "Docs",
          links: [
            { url: "https://docs.example.com/keys", label: "Keys" },
            { url: "http://localhost:8080/" },
            { url: "https://user:pass@example.com/" },
            { url: "javascript:alert(1)", label: "x" },
            { url: "file:///etc/passwd", label: "x" },
            { url: "not a url", label: "x" },
          ],
        },
      })
      .thenSnapshot((s) =>
        expect(s.events).toEqual([
          {
            type: "info",
            message: "Docs",
            level: "info",
            links: [
              { url: "https://docs.example.com/keys", label: "Keys" },
              { url: "http://localhost:8080/", label: "http://localhost:8080/" },
            ],
          },
        ]),
      );
  });

  it("an authorization URL or verification URI that is not a public link drops its event", () => {
    given(started())
      .when({ type: "notify", id: OP, now: T0, notice: { type: "auth_url", url: "https://u:p@auth.example.com/" } })
      .thenEvents([]);
    given(started())
      .when({ type: "notify", id: OP, now: T0, notice: { type: "device_code", userCode: "ABCD", verificationUri: "ftp://x" } })
      .thenEvents([]);
  });

  it("pi's notices map to the spec's events: progress becomes info, instructions default to empty", () => {
    const notices = [
      { type: "progress", message: "Waiting for the browser" },
      { type: "auth_url", url: "https://auth.example.com/authorize?x=1" },
      {
        type: "device_code",
        userCode: "ABCD-EFGH",
        verificationUri: "https://example.com/device",
        expiresInSeconds: 900,
        intervalSeconds: 5,
      },
      { type: "info", message: "Heads up", level: "warning" },
    ] as const;
    const events = notices.map((notice) => {
      const decision = decide({ type: "notify", id: OP, now: T0, notice }, evolveAll(initialState(), [started()]));
      return decision.ok ? decision.events : decision.error;
    });
    expect(events.map((e) => (Array.isArray(e) ? e.map((x) => (x.type === "eventNotified" ? x.event : x)) : e))).toEqual([
      [{ type: "info", message: "Waiting for the browser", level: "info" }],
      [{ type: "auth_url", url: "https://auth.example.com/authorize?x=1", instructions: "" }],
      [{ type: "device_code", userCode: "ABCD-EFGH", verificationUri: "https://example.com/device", expiresInSeconds: 900 }],
      [{ type: "info", message: "Heads up", level: "warning" }],
    ]);
  });

  it("notices after cancellation are dropped", () => {
    given(started(), cancelled)
      .when({ type: "notify", id: OP, now: T0, notice: { type: "progress", message: "late" } })
      .thenEvents([]);
  });
});

describe("redaction of submitted values", () => {
  const KEY = "sk-live-SECRET";

  it("a submitted secret is redacted from a later event", () => {
    expect(snapshotAfter(started(), SECRET_PROMPT, answered([KEY]), info(`Key ${KEY} accepted`)).events).toEqual([
      { type: "info", message: "Key [redacted] accepted", level: "info" },
    ]);
  });

  it("a submitted secret is redacted from the error, the result and a later prompt", () => {
    expect(snapshotAfter(started(), SECRET_PROMPT, answered([KEY]), failed(`401 for ${KEY}`)).error).toBe("401 for [redacted]");
    expect(snapshotAfter(started(), SECRET_PROMPT, answered([KEY]), completed(T0, { report: `used ${KEY}`, list: [KEY] })).result).toEqual({
      report: "used [redacted]",
      list: ["[redacted]"],
    });
    const again = {
      type: "promptShown",
      id: OP,
      prompt: { id: "prompt-2", type: "text", message: `Not ${KEY}?`, placeholder: KEY },
    } as const;
    expect(snapshotAfter(started(), SECRET_PROMPT, answered([KEY]), again).prompt).toEqual({
      id: "prompt-2",
      type: "text",
      message: "Not [redacted]?",
      placeholder: "[redacted]",
    });
  });

  it("a select answer is not redacted", () => {
    expect(snapshotAfter(started(), SELECT_PROMPT, answered([]), info("Using api_key")).events[0]).toMatchObject({
      message: "Using api_key",
    });
  });
});

describe("cancellation", () => {
  it("a running operation changes to cancelling, clears its events and withdraws its prompt", () => {
    given(started(), info("step"), SECRET_PROMPT)
      .when({ type: "cancel", id: OP, now: T0, reason: "request" })
      .thenEvents([cancelled])
      .thenSnapshot((s) => expect(s).toMatchObject({ state: "cancelling", events: [], prompt: null }));
  });

  it("repeated cancellation changes nothing", () => {
    given(started(), cancelled).when({ type: "cancel", id: OP, now: T0, reason: "request" }).thenEvents([]);
  });

  it("cancellation after completion does not undo the result", () => {
    given(started(), completed())
      .when({ type: "cancel", id: OP, now: T0, reason: "request" })
      .thenEvents([])
      .thenSnapshot((s) => expect(s).toMatchObject({ state: "completed", result: { ok: true } }));
  });

  it("the work ending after cancellation gives cancelled, whether it threw (an AbortError) or resolved", () => {
    given(started(), cancelled)
      .when({ type: "fail", id: OP, now: T0 + 5, error: "This operation was aborted" })
      .thenEvents([{ type: "workCancelled", id: OP, now: T0 + 5 }])
      .thenSnapshot((s) => expect(s).toEqual({ id: OP, state: "cancelled", prompt: null, events: [], result: null, error: "" }));
    given(started(), cancelled)
      .when({ type: "complete", id: OP, now: T0 + 5, result: { saved: true } })
      .thenSnapshot((s) => expect(s).toMatchObject({ state: "cancelled", result: null }));
  });

  it("a still-running operation is cancelled at its deadline, not before", () => {
    given(started())
      .when({ type: "reachDeadline", id: OP, now: T0 + 10 * MINUTE - 1 })
      .thenEvents([]);
    given(started())
      .when({ type: "reachDeadline", id: OP, now: T0 + 10 * MINUTE })
      .thenEvents([{ type: "cancelRequested", id: OP, reason: "deadline" }]);
  });
});

describe("ending", () => {
  it("the work resolving completes the operation with its result", () => {
    given(started())
      .when({ type: "complete", id: OP, now: T0 + 5, result: { report: "Signed in", tools: [] } })
      .thenSnapshot((s) =>
        expect(s).toEqual({ id: OP, state: "completed", prompt: null, events: [], result: { report: "Signed in", tools: [] }, error: "" }),
      );
  });

  it("the work throwing ends in error with its message, or a generic one when it has none", () => {
    given(started())
      .when({ type: "fail", id: OP, now: T0, error: "Invalid API key" })
      .thenSnapshot((s) => expect(s).toMatchObject({ state: "error", error: "Invalid API key", result: null }));
    given(started())
      .when({ type: "fail", id: OP, now: T0, error: " " })
      .thenSnapshot((s) => expect(s.error).toBe("The settings operation failed."));
  });

  it("terminal cleanup removes authorization URLs, device codes, informational links and the prompt", () => {
    const events: SettingsOperationEvent[] = [
      { type: "eventNotified", id: OP, event: { type: "auth_url", url: "https://auth.example.com/", instructions: "Open it" } },
      { type: "eventNotified", id: OP, event: { type: "device_code", verificationUri: "https://example.com/device", userCode: "ABCD" } },
      {
        type: "eventNotified",
        id: OP,
        event: { type: "info", message: "See docs", level: "info", links: [{ url: "https://docs/", label: "Docs" }] },
      },
    ];
    for (const end of [completed(), failed("boom"), { type: "workCancelled", id: OP, now: T0 } as const]) {
      const snapshot = snapshotAfter(started(), ...events, SECRET_PROMPT, end);
      expect(snapshot.prompt).toBeNull();
      expect(snapshot.events).toEqual([{ type: "info", message: "See docs", level: "info" }]);
    }
  });

  it("terminal states are absorbing", () => {
    for (const end of [completed(), failed("boom")]) {
      const state = evolveAll(initialState(), [started(), end]);
      const commands: SettingsOperationCommand[] = [
        { type: "complete", id: OP, now: T0, result: { other: 1 } },
        { type: "fail", id: OP, now: T0, error: "again" },
        { type: "cancel", id: OP, now: T0, reason: "request" },
        { type: "notify", id: OP, now: T0, notice: { type: "progress", message: "late" } },
        { type: "reachDeadline", id: OP, now: T0 + 20 * MINUTE },
      ];
      for (const command of commands) expect(handle(state, command)).toEqual({ state, decision: { ok: true, events: [] } });
      expect(decide({ type: "showPrompt", id: OP, now: T0, prompt: { type: "text", message: "x" } }, state).ok).toBe(false);
      // Events the decider would not emit change nothing either.
      expect(evolveAll(state, [SECRET_PROMPT, cancelled, info("x"), completed(T0, { other: 1 })])).toEqual(state);
    }
  });
});

describe("expiry", () => {
  it("a terminal snapshot stays one minute after cleanup, then is gone", () => {
    const ended = T0 + 3 * MINUTE;
    given(started(), completed(ended))
      .when({ type: "expire", id: OP, now: ended + MINUTE - 1 })
      .thenEvents([]);
    const { after } = given(started(), completed(ended))
      .when({ type: "expire", id: OP, now: ended + MINUTE })
      .thenEvents([{ type: "operationExpired", id: OP }]);
    expect(after.operations).toEqual({});
    expect(decide({ type: "cancel", id: OP, now: ended + MINUTE, reason: "request" }, after)).toEqual({
      ok: false,
      error: { code: "settings_not_found", message: "This settings operation expired. Start it again." },
    });
  });

  it("an active operation never expires", () => {
    given(started(), cancelled)
      .when({ type: "expire", id: OP, now: T0 + 60 * MINUTE })
      .thenEvents([]);
  });

  it("the limits are part of the state", () => {
    const state: SettingsOperationsState = initialState({ maxActive: 1, capMs: 5, retentionMs: 7 });
    const one = evolveAll(state, [started("a", "a", T0, T0 + 5)]);
    expect(decide({ type: "start", id: "b", key: "b", now: T0 }, one).ok).toBe(false);
    const ended = evolveAll(one, [{ type: "workCompleted", id: "a", now: T0, result: {} }]);
    expect(handle(ended, { type: "expire", id: "a", now: T0 + 7 }).state.operations).toEqual({});
  });
});

describe("unknown input", () => {
  it("an unknown command or event changes nothing", () => {
    const state = evolveAll(initialState(), [started()]);
    const command = { type: "rename", id: OP, now: T0 } as unknown as SettingsOperationCommand;
    expect(handle(state, command)).toEqual({ state, decision: { ok: true, events: [] } });
    expect(evolveAll(state, [{ type: "renamed", id: OP } as unknown as SettingsOperationEvent])).toBe(state);
  });
});

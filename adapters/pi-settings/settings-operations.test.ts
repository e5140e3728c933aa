/**
 * The settings operation registry driven by a manual clock, with work functions that prompt, notify, wait for
 * their abort signal and end when the test says so. Given (operations started) / When (an API call, the clock
 * moving, the work ending) / Then (the snapshots the API would return, the errors it would answer).
 */
import type { ProviderAuthInteraction } from "@earendil-works/pi-ai";
import { describe, expect, it } from "vitest";
import { ERROR_STATUS, type ErrorCode } from "../../domain/contract/error-codes.ts";
import { ServiceError } from "../../domain/service-error.ts";
import { ManualClock } from "../runtime-host/host-clock.ts";
import {
  createSettingsOperations,
  type OperationContext,
  SHUTTING_DOWN_MESSAGE,
  type SettingsOperationsOptions,
} from "./settings-operations.ts";

const MINUTE = 60_000;

interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
  reject(reason: unknown): void;
}

function deferred<T>(): Deferred<T> {
  let resolve: (value: T) => void = () => undefined;
  let reject: (reason: unknown) => void = () => undefined;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

function harness(options: Partial<SettingsOperationsOptions> = {}) {
  const clock = new ManualClock();
  let count = 0;
  const ops = createSettingsOperations({ clock, newId: () => `op-${++count}`, ...options });
  return { clock, ops };
}

/** Work that runs until its signal aborts, then throws the abort reason (as pi's flows do). */
function untilAborted(ctx: OperationContext): Promise<object> {
  return new Promise((_, reject) => ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason), { once: true }));
}

/** Work that ends when the test resolves (or rejects) `gate`. */
function gated(gate: Deferred<object>): (ctx: OperationContext) => Promise<object> {
  return () => gate.promise;
}

function expectServiceError(call: () => unknown, code: ErrorCode, message: string): void {
  let thrown: unknown;
  try {
    call();
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(ServiceError);
  expect(thrown).toMatchObject({ code, message });
}

describe("running and ending", () => {
  it("a started operation is running; the work resolving completes it with its result", async () => {
    const { ops } = harness();
    const gate = deferred<object>();
    const started = ops.start("provider:openai", gated(gate));
    expect(started).toEqual({ id: "op-1", state: "running", prompt: null, events: [], result: null, error: "" });
    gate.resolve({ providerId: "openai", action: "refresh", skipped: undefined });
    await ops.whenEnded("op-1");
    expect(ops.get("op-1")).toEqual({
      id: "op-1",
      state: "completed",
      prompt: null,
      events: [],
      result: { providerId: "openai", action: "refresh" },
      error: "",
    });
  });

  it("the work throwing ends the operation in error with its message", async () => {
    const { ops } = harness();
    ops.start("k", async () => {
      throw new Error("Invalid API key");
    });
    await ops.whenEnded("op-1");
    expect(ops.get("op-1")).toMatchObject({ state: "error", error: "Invalid API key", result: null });
  });

  it("a work function that throws before its first await ends in error too", async () => {
    const { ops } = harness();
    ops.start("k", () => {
      throw new Error("bad configuration");
    });
    await ops.whenEnded("op-1");
    expect(ops.get("op-1")).toMatchObject({ state: "error", error: "bad configuration" });
  });

  it("describeError controls the error text, and scrub hides known secrets in it", async () => {
    const { ops } = harness({
      describeError: (error) => `Sign-in failed: ${(error as Error).message}`,
      scrub: (text) => text.replaceAll("ENVKEY", "[redacted]"),
    });
    ops.start("k", async () => {
      throw new Error("401 with ENVKEY");
    });
    await ops.whenEnded("op-1");
    expect(ops.get("op-1").error).toBe("Sign-in failed: 401 with [redacted]");
  });

  it("a result that is not an object ends in error", async () => {
    const { ops } = harness();
    ops.start("k", async () => [] as object);
    await ops.whenEnded("op-1");
    expect(ops.get("op-1")).toMatchObject({ state: "error", error: "The settings operation returned no result." });
  });

  it("the context is pi's ProviderAuthInteraction", async () => {
    const { ops } = harness();
    let interaction: ProviderAuthInteraction | null = null;
    ops.start("k", async (ctx) => {
      interaction = ctx;
      return {};
    });
    await ops.whenEnded("op-1");
    expect(interaction).not.toBeNull();
  });
});

describe("limits", () => {
  it("the ninth active operation is refused with 429 Too many settings operations are in progress.", async () => {
    const { ops } = harness();
    const gates = Array.from({ length: 8 }, () => deferred<object>());
    gates.forEach((gate, i) => ops.start(`provider:p${i}`, gated(gate)));
    expectServiceError(
      () => ops.start("provider:p8", untilAborted),
      "too_many_operations",
      "Too many settings operations are in progress.",
    );
    expect(ERROR_STATUS.too_many_operations).toBe(429);
    gates[0]?.resolve({});
    await ops.whenEnded("op-1");
    expect(ops.start("provider:p8", untilAborted).state).toBe("running");
  });

  it("a second operation for the same provider or server is refused with 409", async () => {
    const { ops } = harness();
    const gate = deferred<object>();
    ops.start("mcp-url:https://x.dev/mcp", gated(gate));
    expectServiceError(
      () => ops.start("mcp-url:https://x.dev/mcp", untilAborted),
      "conflict",
      "An operation for this provider or server is already in progress.",
    );
    expect(ERROR_STATUS.conflict).toBe(409);
    gate.resolve({});
    await ops.whenEnded("op-1");
    expect(ops.start("mcp-url:https://x.dev/mcp", untilAborted).id).toBe("op-3");
  });
});

describe("deadline and retention", () => {
  it("a still-running operation is cancelled after ten minutes, and ends cancelled", async () => {
    const { clock, ops } = harness();
    let signal: AbortSignal | null = null;
    ops.start("k", (ctx) => {
      signal = ctx.signal;
      return untilAborted(ctx);
    });
    clock.advance(10 * MINUTE - 1);
    expect(ops.get("op-1").state).toBe("running");
    clock.advance(1);
    expect(ops.get("op-1").state).toBe("cancelling");
    expect(signal).toMatchObject({ aborted: true });
    await ops.whenEnded("op-1");
    expect(ops.get("op-1")).toMatchObject({ state: "cancelled", error: "" });
  });

  it("a shorter deadline of its own cancels sooner (two minutes for MCP checks)", () => {
    const { clock, ops } = harness();
    ops.start("k", untilAborted, { deadlineMs: 2 * MINUTE });
    clock.advance(2 * MINUTE);
    expect(ops.get("op-1").state).toBe("cancelling");
  });

  it("a deadline longer than the cap is cut to the cap", () => {
    const { clock, ops } = harness({ capMs: 5 * MINUTE });
    ops.start("k", untilAborted, { deadlineMs: 20 * MINUTE });
    clock.advance(5 * MINUTE);
    expect(ops.get("op-1").state).toBe("cancelling");
  });

  it("a terminal snapshot remains for one minute, then: 404 This settings operation expired. Start it again.", async () => {
    const { clock, ops } = harness();
    const gate = deferred<object>();
    ops.start("k", gated(gate));
    clock.advance(3 * MINUTE);
    gate.resolve({ ok: true });
    await ops.whenEnded("op-1");
    clock.advance(MINUTE - 1);
    expect(ops.get("op-1").state).toBe("completed");
    clock.advance(1);
    const expired = "This settings operation expired. Start it again.";
    expectServiceError(() => ops.get("op-1"), "settings_not_found", expired);
    expectServiceError(() => ops.cancel("op-1"), "settings_not_found", expired);
    expectServiceError(() => ops.answer("op-1", { promptId: "prompt-1", value: "x" }), "settings_not_found", expired);
    expect(ERROR_STATUS.settings_not_found).toBe(404);
    expect(clock.pending()).toBe(0);
  });

  it("an unknown operation id answers 404", () => {
    const { ops } = harness();
    expectServiceError(() => ops.get("nope"), "settings_not_found", "This settings operation expired. Start it again.");
  });
});

describe("prompts and answers", () => {
  it("the work's prompt appears in the snapshot; the answer resolves it and never appears itself", async () => {
    const { ops } = harness();
    const answer = deferred<string>();
    const gate = deferred<object>();
    ops.start("provider:openai", async (ctx) => {
      answer.resolve(await ctx.prompt({ type: "secret", message: "Paste your API key", placeholder: "sk-..." }));
      return gate.promise;
    });
    expect(ops.get("op-1").prompt).toEqual({ id: "prompt-1", type: "secret", message: "Paste your API key", placeholder: "sk-..." });
    const afterAnswer = ops.answer("op-1", { promptId: "prompt-1", value: "sk-live-123" });
    expect(afterAnswer).toMatchObject({ state: "running", prompt: null });
    expect(JSON.stringify(afterAnswer)).not.toContain("sk-live-123");
    expect(await answer.promise).toBe("sk-live-123");
    gate.resolve({});
  });

  it("a submitted secret is redacted from a later event and from the error", async () => {
    const { ops } = harness();
    const gate = deferred<object>();
    const notified = deferred<void>();
    ops.start("provider:openai", async (ctx) => {
      const key = await ctx.prompt({ type: "secret", message: "API key" });
      ctx.notify({ type: "progress", message: `Checking ${key}` });
      notified.resolve();
      await gate.promise;
      throw new Error(`401: ${key} was rejected`);
    });
    ops.answer("op-1", { promptId: "prompt-1", value: "sk-live-123" });
    await notified.promise;
    expect(ops.get("op-1").events).toEqual([{ type: "info", message: "Checking [redacted]", level: "info" }]);
    gate.resolve({});
    await ops.whenEnded("op-1");
    expect(ops.get("op-1")).toMatchObject({ state: "error", error: "401: [redacted] was rejected" });
  });

  it("an answer must name the current prompt: 409 This prompt is no longer active.", () => {
    const { ops } = harness();
    ops.start("k", async (ctx) => {
      await ctx.prompt({ type: "text", message: "Domain" });
      return untilAborted(ctx);
    });
    expectServiceError(() => ops.answer("op-1", { promptId: "prompt-2", value: "x" }), "conflict", "This prompt is no longer active.");
    ops.answer("op-1", { promptId: "prompt-1", value: "" });
    expectServiceError(() => ops.answer("op-1", { promptId: "prompt-1", value: "again" }), "conflict", "This prompt is no longer active.");
  });

  it("a value that is not a string, or longer than 32,768 characters: 400 Invalid response.", () => {
    const { ops } = harness();
    ops.start("k", (ctx) => ctx.prompt({ type: "secret", message: "Key" }).then(() => ({})));
    expectServiceError(() => ops.answer("op-1", { promptId: "prompt-1", value: 7 }), "invalid_request", "Invalid response.");
    expectServiceError(
      () => ops.answer("op-1", { promptId: "prompt-1", value: "k".repeat(32_769) }),
      "invalid_request",
      "Invalid response.",
    );
    expect(ops.get("op-1").prompt?.id).toBe("prompt-1");
  });

  it("a select answer must be an offered option id: 400 Select an available option.", async () => {
    const { ops } = harness();
    let chosen = "";
    ops.start("k", async (ctx) => {
      chosen = await ctx.prompt({ type: "select", message: "Sign in with", options: [{ id: "oauth", label: "Subscription" }] });
      return { chosen };
    });
    expectServiceError(
      () => ops.answer("op-1", { promptId: "prompt-1", value: "Subscription" }),
      "invalid_request",
      "Select an available option.",
    );
    ops.answer("op-1", { promptId: "prompt-1", value: "oauth" });
    await ops.whenEnded("op-1");
    expect(ops.get("op-1")).toMatchObject({ state: "completed", result: { chosen: "oauth" } });
  });

  it("a prompt whose own signal aborts is withdrawn and its promise rejects (a callback won the race)", async () => {
    const { ops } = harness();
    const callback = new AbortController();
    const outcome = deferred<unknown>();
    ops.start("k", async (ctx) => {
      await ctx
        .prompt({ type: "manual_code", message: "Paste the redirect URL", signal: callback.signal })
        .then(outcome.resolve, outcome.resolve);
      return untilAborted(ctx);
    });
    expect(ops.get("op-1").prompt?.type).toBe("manual_code");
    callback.abort(new Error("callback received"));
    expect(ops.get("op-1")).toMatchObject({ state: "running", prompt: null });
    expect(await outcome.promise).toEqual(new Error("callback received"));
    expectServiceError(() => ops.answer("op-1", { promptId: "prompt-1", value: "x" }), "conflict", "This prompt is no longer active.");
  });

  it("a prompt with an already aborted signal is never shown", async () => {
    const { ops } = harness();
    const outcome = deferred<unknown>();
    ops.start("k", async (ctx) => {
      await ctx.prompt({ type: "manual_code", message: "Paste", signal: AbortSignal.abort() }).catch(outcome.resolve);
      return untilAborted(ctx);
    });
    expect(await outcome.promise).toMatchObject({ name: "AbortError" });
    expect(ops.get("op-1").prompt).toBeNull();
  });

  it("a new prompt replaces one still pending, which rejects", async () => {
    const { ops } = harness();
    const first = deferred<unknown>();
    ops.start("k", async (ctx) => {
      void ctx.prompt({ type: "text", message: "first" }).catch(first.resolve);
      await ctx.prompt({ type: "text", message: "second" });
      return {};
    });
    expect(await first.promise).toMatchObject({ name: "AbortError" });
    expect(ops.get("op-1").prompt).toMatchObject({ id: "prompt-2", message: "second" });
  });
});

describe("cancellation", () => {
  it("cancel: cancelling, events cleared, prompt withdrawn and rejected, signal aborted; the work ending gives cancelled", async () => {
    const { ops } = harness();
    const seen: { promptError?: unknown; aborted?: boolean } = {};
    ops.start("provider:anthropic", async (ctx) => {
      ctx.notify({ type: "auth_url", url: "https://auth.example.com/authorize", instructions: "Open it" });
      try {
        await ctx.prompt({ type: "manual_code", message: "Paste the code" });
      } catch (error) {
        seen.promptError = error;
        seen.aborted = ctx.signal.aborted;
        throw error;
      }
      return {};
    });
    expect(ops.get("op-1").events).toHaveLength(1);
    const cancelling = ops.cancel("op-1");
    expect(cancelling).toEqual({ id: "op-1", state: "cancelling", prompt: null, events: [], result: null, error: "" });
    expect(ops.cancel("op-1")).toEqual(cancelling);
    await ops.whenEnded("op-1");
    expect(seen.promptError).toMatchObject({ name: "AbortError" });
    expect(seen.aborted).toBe(true);
    expect(ops.get("op-1")).toEqual({ id: "op-1", state: "cancelled", prompt: null, events: [], result: null, error: "" });
  });

  it("a prompt asked after cancellation rejects at once", async () => {
    const { ops } = harness();
    const outcome = deferred<unknown>();
    const gate = deferred<object>();
    ops.start("k", async (ctx) => {
      await gate.promise;
      await ctx.prompt({ type: "text", message: "late" }).catch(outcome.resolve);
      return {};
    });
    ops.cancel("op-1");
    gate.resolve({});
    expect(await outcome.promise).toMatchObject({ name: "AbortError" });
    await ops.whenEnded("op-1");
    expect(ops.get("op-1")).toMatchObject({ state: "cancelled", prompt: null });
  });

  it("cancellation after completion changes nothing", async () => {
    const { ops } = harness();
    ops.start("k", async () => ({ saved: true }));
    await ops.whenEnded("op-1");
    expect(ops.cancel("op-1")).toMatchObject({ state: "completed", result: { saved: true } });
  });
});

describe("terminal cleanup", () => {
  it("authorization URLs, device codes and informational links are removed when the operation ends", async () => {
    const { ops } = harness();
    const gate = deferred<object>();
    ops.start("provider:github-copilot", async (ctx) => {
      ctx.notify({ type: "auth_url", url: "https://github.com/login/oauth/authorize?client_id=x" });
      ctx.notify({ type: "device_code", userCode: "ABCD-1234", verificationUri: "https://github.com/login/device", expiresInSeconds: 900 });
      ctx.notify({ type: "info", message: "Signed in", links: [{ url: "https://docs.github.com/", label: "Docs" }] });
      return gate.promise;
    });
    expect(ops.get("op-1").events.map((event) => event.type)).toEqual(["auth_url", "device_code", "info"]);
    gate.resolve({ providerId: "github-copilot" });
    await ops.whenEnded("op-1");
    expect(ops.get("op-1").events).toEqual([{ type: "info", message: "Signed in", level: "info" }]);
  });
});

describe("shutdown", () => {
  it("close cancels the active operations, waits for their work, and refuses new ones with 503", async () => {
    const { clock, ops } = harness();
    const done = deferred<object>();
    ops.start("a", untilAborted);
    ops.start("b", async () => done.promise);
    done.resolve({});
    await ops.whenEnded("op-2");
    await ops.close();
    expect(ops.get("op-1").state).toBe("cancelled");
    expect(ops.get("op-2").state).toBe("completed");
    expectServiceError(() => ops.start("c", untilAborted), "settings_unavailable", SHUTTING_DOWN_MESSAGE);
    expect(ERROR_STATUS.settings_unavailable).toBe(503);
    expect(clock.pending()).toBe(0);
  });
});

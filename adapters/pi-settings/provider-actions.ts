/**
 * The work behind POST /api/pi/settings/providers/action (spec "Provider authentication, catalog, and
 * connection tests"), run inside a settings operation (adapters/pi-settings/settings-operations.ts):
 *
 * - login: pi's own sign-in (`ModelRuntime.login`) with the operation as its interaction: pi's prompts become
 *   the operation's prompt, its auth URL, device code and info events the operation's events. Before it, the
 *   route guard (`checkRoutes`) compares the provider's routes with the open conversation runtimes'.
 * - logout: removes the stored credential only (environment variables and models.json keys stay).
 * - refresh: a new settings runtime, then a forced network catalog refresh of that provider.
 * - test: one 16-token generation with retries off and a 30-second deadline, against the saved settings or
 *   a draft laid over them in memory (a temp models.json for a throwaway runtime: nothing is saved).
 *
 * Sign-in and provider writes hold the provider lock (`ProviderLock`) while they run.
 */
import type { Api, AssistantMessage, Model } from "@earendil-works/pi-ai";
import type { ModelRuntime } from "@earendil-works/pi-coding-agent";
import type { ModelTestDraft, ProviderTestDraft } from "../../domain/contract/http-pi-settings.ts";
import { ServiceError } from "../../domain/service-error.ts";
import type { OperationContext } from "./settings-operations.ts";

/** The probe's output limit and deadline (spec). */
export const TEST_MAX_TOKENS = 16;
export const TEST_DEADLINE_MS = 30_000;
export const PROVIDER_BUSY = "Provider settings are busy. Finish or cancel sign-in, then try again.";

/**
 * One lock for provider writes, sign-in and runtime construction: a FIFO chain. `run` waits at most
 * `waitMs` for its turn (then 409 "Provider settings are busy..."); `hold` waits as long as it takes.
 */
export class ProviderLock {
  private tail: Promise<void> = Promise.resolve();
  private holders = 0;

  get busy(): boolean {
    return this.holders > 0;
  }

  /** `signal`: stop waiting (an operation cancelled while queued behind a sign-in). */
  async run<T>(work: () => Promise<T>, waitMs: number | null = 2_000, signal?: AbortSignal): Promise<T> {
    const previous = this.tail;
    let release!: () => void;
    const mine = new Promise<void>((resolve) => (release = resolve));
    this.tail = previous.then(() => mine);
    this.holders += 1;
    try {
      let timer: NodeJS.Timeout | undefined;
      let onAbort: (() => void) | undefined;
      const waits: Array<Promise<"turn" | "timeout" | "aborted">> = [previous.then(() => "turn" as const)];
      if (waitMs !== null) {
        waits.push(
          new Promise((resolve) => {
            timer = setTimeout(() => resolve("timeout"), waitMs);
            timer.unref();
          }),
        );
      }
      if (signal !== undefined) {
        waits.push(
          new Promise((resolve) => {
            onAbort = () => resolve("aborted");
            if (signal.aborted) onAbort();
            else signal.addEventListener("abort", onAbort, { once: true });
          }),
        );
      }
      const turn = await Promise.race(waits);
      clearTimeout(timer);
      if (onAbort !== undefined) signal?.removeEventListener("abort", onAbort);
      if (turn === "timeout") throw new ServiceError("conflict", PROVIDER_BUSY);
      if (turn === "aborted") throw new DOMException("Cancelled while waiting for provider settings.", "AbortError");
      return await work();
    } finally {
      this.holders -= 1;
      release();
    }
  }
}

/** A model route as a conversation runtime knows it. */
export interface RuntimeRoute {
  readonly sessionId: string;
  readonly provider: string;
  readonly id: string;
  readonly api?: string;
  readonly baseUrl?: string;
}

/**
 * The route guard before a sign-in: a conversation runtime that knows a model of this provider with another
 * API or base URL than the settings runtime (or a model the settings runtime does not have) would send the new
 * credential to an old endpoint. Returns the error to fail the operation with, or null.
 */
export function routeConflict(runtime: ModelRuntime, providerId: string, routes: readonly RuntimeRoute[]): string | null {
  for (const route of routes) {
    if (route.provider !== providerId) continue;
    const model = runtime.getModel(providerId, route.id);
    const differs =
      model === undefined ||
      (route.api !== undefined && model.api !== route.api) ||
      (route.baseUrl !== undefined && model.baseUrl !== route.baseUrl);
    if (differs) {
      return (
        `An open session uses ${providerId}/${route.id} with settings that differ from the saved configuration, so the new ` +
        "credentials could reach an old endpoint. Reload all affected sessions after active work finishes, or restart the backend."
      );
    }
  }
  return null;
}

export async function loginProvider(
  runtime: ModelRuntime,
  providerId: string,
  authType: "api_key" | "oauth",
  ctx: OperationContext,
): Promise<Record<string, unknown>> {
  try {
    await runtime.login(
      providerId,
      authType,
      { signal: ctx.signal, prompt: (prompt) => ctx.prompt(prompt), notify: (event) => ctx.notify(event) },
      { agentName: "Leyline" },
    );
  } catch (error) {
    if ((error as Error).name === "CredentialSynchronizationError") {
      return {
        providerId,
        action: "login",
        credentialChanged: true,
        warning: "The credential was saved, but the model catalog could not be synchronized.",
      };
    }
    throw error;
  }
  return { providerId, action: "login", credentialChanged: true };
}

export async function logoutProvider(runtime: ModelRuntime, providerId: string, ctx: OperationContext): Promise<Record<string, unknown>> {
  try {
    await runtime.logout(providerId, { signal: ctx.signal });
  } catch (error) {
    if ((error as Error).name === "CredentialSynchronizationError") {
      return {
        providerId,
        action: "logout",
        credentialChanged: true,
        warning: "The credential was removed, but the model catalog could not be synchronized.",
      };
    }
    throw error;
  }
  return { providerId, action: "logout", credentialChanged: true };
}

export async function refreshProvider(runtime: ModelRuntime, providerId: string, ctx: OperationContext): Promise<Record<string, unknown>> {
  const result = await runtime.refresh({ allowNetwork: true, force: true, providers: [providerId], signal: ctx.signal });
  const failure = result.errors.get(providerId) ?? [...result.errors.values()][0];
  if (result.aborted && ctx.signal.aborted) throw new DOMException("The refresh was cancelled.", "AbortError");
  return {
    providerId,
    action: "refresh",
    ...(failure !== undefined || result.aborted
      ? { warning: `The catalog could not be fully refreshed${failure ? `: ${failure.message}` : "."}` }
      : {}),
  };
}

/** Why a model cannot be tested, before anything is sent (spec: the output limit or retries cannot be enforced). */
export function refusedTransport(runtime: ModelRuntime, model: Model<Api>): string | null {
  const compat = (model as Model<Api> & { compat?: { supportsMaxOutputTokens?: boolean } }).compat;
  if (model.api === "openai-codex-responses")
    return "Connection tests are not available for openai-codex-responses: the output limit cannot be enforced.";
  if (model.api === "bedrock-converse-stream")
    return "Connection tests are not available for bedrock-converse-stream: its automatic retries cannot be disabled.";
  if (model.api === "openai-responses" && runtime.isUsingSubscription(model.provider)) {
    return "Connection tests are not available for OpenAI Responses with ChatGPT-subscription sign-in: the output limit cannot be enforced.";
  }
  if (model.api === "openai-responses" && compat?.supportsMaxOutputTokens === false) {
    return "Connection tests are not available for this model: compat.supportsMaxOutputTokens is false, so the output limit would be omitted.";
  }
  return null;
}

export type TestDraft = ProviderTestDraft | ModelTestDraft;

/** Runs the probe on `runtime` (saved settings or a draft's throwaway runtime). */
export async function probeModel(
  runtime: ModelRuntime,
  providerId: string,
  modelId: string,
  ctx: OperationContext,
  now: () => number,
  started: number = now(),
): Promise<Record<string, unknown>> {
  const model = runtime.getPhysicalModel(providerId, modelId) ?? runtime.getModel(providerId, modelId);
  if (model === undefined) throw new ServiceError("settings_not_found", `Model ${providerId}/${modelId} is not available to test.`);
  const refused = refusedTransport(runtime, model);
  if (refused !== null) throw new ServiceError("invalid_request", refused);
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), TEST_DEADLINE_MS);
  timer.unref();
  const signal = AbortSignal.any([ctx.signal, deadline.signal]);
  let httpStatus: number | undefined;
  let reply: AssistantMessage;
  try {
    reply = await runtime.completeSimple(
      model,
      { messages: [{ role: "user", content: "Reply with OK.", timestamp: started }] },
      {
        maxTokens: TEST_MAX_TOKENS,
        maxRetries: 0,
        signal,
        onResponse: (response) => {
          httpStatus = response.status;
        },
      },
    );
  } finally {
    clearTimeout(timer);
  }
  const durationMs = Math.max(0, now() - started);
  if (ctx.signal.aborted) throw new DOMException("The test was cancelled.", "AbortError");
  if (deadline.signal.aborted)
    throw new ServiceError("runtime_failed", `The test did not finish within ${TEST_DEADLINE_MS / 1000} seconds.`);
  if (reply.stopReason === "error" || reply.stopReason === "aborted") {
    const status = httpStatus !== undefined ? `HTTP ${httpStatus}: ` : "";
    const detail = reply.errorMessage ?? "the provider reported an error";
    throw new ServiceError("runtime_failed", `The test failed. ${status}${firstLine(detail)}`);
  }
  return { providerId, modelId, action: "test", durationMs, ...(httpStatus !== undefined ? { httpStatus } : {}) };
}

/** Provider error texts can carry a whole response body: the first line, capped. */
function firstLine(text: string): string {
  const line = text.split("\n", 1)[0] ?? "";
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}

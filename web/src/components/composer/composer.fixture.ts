/**
 * Test support for the composer: Active snapshots, and a fake backend behind `fetch` (the network boundary
 * of http.ts) that records each request and answers from a handler; also the per-test cleanup of the component
 * tests that mount with it (`cleanedAfterEach`).
 */
import type { VueWrapper } from "@vue/test-utils";
import { afterEach, vi } from "vitest";
import type { Active, ActiveState, Model, PromptQueue } from "../../../../domain/runtime/runtime-types.ts";

export const FAUX_MODEL: Model = {
  id: "faux-1",
  name: "Faux One",
  provider: "faux",
  supportsImages: true,
  supportsUltrafast: false,
  availableThinkingLevels: ["off", "low", "high"],
};

export const FAST_MODEL: Model = {
  id: "gpt-6-astra",
  name: "GPT-6 Astra",
  provider: "openai",
  supportsImages: true,
  supportsUltrafast: true,
  availableThinkingLevels: ["off", "low", "medium", "high"],
};

export function queueOf(revision: number, items: Array<[id: string, text: string]>, held = false): PromptQueue {
  return { revision, held, error: "", items: items.map(([id, text]) => ({ id, text, imageCount: 0, status: "pending" })) };
}

export function activeOf(overrides: Partial<ActiveState> = {}, snapshotRevision = 1, id = "s1"): Active {
  return {
    id,
    snapshotRevision,
    path: `/tmp/${id}.jsonl`,
    cwd: "/tmp/project",
    diagnostics: [],
    state: {
      model: FAUX_MODEL,
      availableModels: [FAUX_MODEL, FAST_MODEL],
      thinkingLevel: "low",
      availableThinkingLevels: ["off", "low", "high"],
      isStreaming: false,
      isCompacting: false,
      pendingToolCalls: [],
      pendingConfirmationCount: 0,
      steeringMode: "one-at-a-time",
      followUpMode: "one-at-a-time",
      activeToolCount: 0,
      activeToolNames: [],
      contextUsage: { tokens: 42_000, contextWindow: 200_000, percent: 21 },
      slashCommands: [],
      promptQueue: queueOf(1, []),
      queuedMessages: { steering: [], followUp: [] },
      extensionUi: { statuses: {}, widgets: {}, notifications: [], confirmations: [] },
      research: null,
      ...overrides,
    },
  };
}

export interface RecordedRequest {
  method: string;
  path: string;
  body: unknown;
}

export interface FakeAnswer {
  status?: number;
  body: unknown;
}

/**
 * Replaces global `fetch` with a fake backend: every request is recorded (and its abort signal, in `signals`, at
 * the same index); `handler` gives the answer (default `{ ok: true }`), or a promise of it (to hold an answer back,
 * e.g. a runtime that is starting). Call `restore()` (vi.unstubAllGlobals) after the test.
 */
export function fakeBackend(
  handler: (request: RecordedRequest) => FakeAnswer | undefined | Promise<FakeAnswer | undefined> = () => undefined,
) {
  const requests: RecordedRequest[] = [];
  const signals: Array<AbortSignal | undefined> = [];
  const fetchFake = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = new URL(typeof input === "string" ? input : input instanceof URL ? input.href : input.url, "http://leyline.test");
    const raw = init?.body;
    const request: RecordedRequest = {
      method: init?.method ?? "GET",
      path: url.pathname + url.search,
      body: typeof raw === "string" ? (JSON.parse(raw) as unknown) : undefined,
    };
    requests.push(request);
    signals.push(init?.signal ?? undefined);
    const answer = (await handler(request)) ?? { body: { ok: true } };
    return new Response(JSON.stringify(answer.body), {
      status: answer.status ?? 200,
      headers: { "content-type": "application/json" },
    });
  };
  vi.stubGlobal("fetch", fetchFake);
  return { requests, signals, restore: () => vi.unstubAllGlobals() };
}

export type FakeBackend = ReturnType<typeof fakeBackend>;

/** The component a test mounted and the backend it faked, for `cleanedAfterEach` to clean up. */
export interface MountedTest {
  wrapper: VueWrapper | undefined;
  backend: FakeBackend | undefined;
}

/**
 * Registers (call it once, at the top of a test file) the cleanup after every test: unmounts `wrapper`, restores
 * `fetch` from `backend` and empties document.body (what was attached or teleported there). Tests set the two
 * slots of the object returned.
 */
export function cleanedAfterEach(): MountedTest {
  const mounted: MountedTest = { wrapper: undefined, backend: undefined };
  afterEach(() => {
    mounted.wrapper?.unmount();
    mounted.wrapper = undefined;
    mounted.backend?.restore();
    mounted.backend = undefined;
    document.body.innerHTML = "";
  });
  return mounted;
}

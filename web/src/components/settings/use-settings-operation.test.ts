import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { effectScope } from "vue";
import { startProviderAction, type OperationSnapshot } from "../../api/pi-settings.ts";
import { fakeBackend, type FakeAnswer, type RecordedRequest } from "../composer/composer.fixture.ts";
import { operation } from "./pi-settings.fixture.ts";
import { OPERATION_EXPIRED, POLL_INTERVAL_MS, useSettingsOperation } from "./use-settings-operation.ts";

let backend: ReturnType<typeof fakeBackend> | undefined;
beforeEach(() => {
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
});
afterEach(() => {
  backend?.restore();
  backend = undefined;
  vi.useRealTimers();
});

/** The fake backend answers action requests with `start`, then each poll with the next snapshot of `polls`. */
function serve(
  start: OperationSnapshot,
  polls: Array<OperationSnapshot | FakeAnswer>,
  other?: (request: RecordedRequest) => FakeAnswer | undefined,
) {
  const queue = [...polls];
  backend = fakeBackend((request) => {
    if (request.path.endsWith("/action")) return { body: start };
    if (request.method === "GET") {
      const next = queue.shift();
      if (next === undefined) throw new Error("polled after the end");
      return "state" in next ? { body: next } : next;
    }
    return other?.(request);
  });
  return backend.requests;
}

const begin = () => startProviderAction({ providerId: "local-llm", action: "test", modelId: "qwen" });
const polls = (requests: RecordedRequest[]) => requests.filter((r) => r.method === "GET").length;

describe("settings operation poller", () => {
  it("polls every 500 ms until the operation completes, then stops and reports it once", async () => {
    const done = operation("op1", {
      state: "completed",
      result: { providerId: "local-llm", modelId: "qwen", action: "test", durationMs: 812, httpStatus: 200 },
    });
    const requests = serve(operation("op1"), [operation("op1"), done]);
    const settled = vi.fn();
    const scope = effectScope();
    const op = scope.run(() => useSettingsOperation({ onSettled: settled }))!;

    expect(await op.start(begin)).toBe(true);
    expect(op.operation.value?.state).toBe("running");
    expect(op.running.value).toBe(true);
    expect(polls(requests)).toBe(0);

    await vi.advanceTimersByTimeAsync(POLL_INTERVAL_MS - 1);
    expect(polls(requests)).toBe(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(polls(requests)).toBe(1);
    expect(requests.at(-1)).toEqual({ method: "GET", path: "/api/pi/settings/operations/op1", body: undefined });

    await vi.advanceTimersByTimeAsync(POLL_INTERVAL_MS);
    expect(polls(requests)).toBe(2);
    expect(op.operation.value).toEqual(done);
    expect(op.running.value).toBe(false);
    expect(settled).toHaveBeenCalledTimes(1);
    expect(settled).toHaveBeenCalledWith(done);

    await vi.advanceTimersByTimeAsync(POLL_INTERVAL_MS * 4);
    expect(polls(requests)).toBe(2);
    scope.stop();
  });

  it("answers the current prompt by its id, and cancelling polls on until the operation is cancelled", async () => {
    const prompt = { id: "p1", type: "secret" as const, message: "API key", placeholder: "" };
    const requests = serve(
      operation("op2", { prompt }),
      [operation("op2", { state: "cancelling" }), operation("op2", { state: "cancelled" })],
      (request) => {
        if (request.method === "POST") return { body: operation("op2") };
        if (request.method === "DELETE") return { body: operation("op2", { state: "cancelling" }) };
        return undefined;
      },
    );
    const scope = effectScope();
    const op = scope.run(() => useSettingsOperation())!;
    await op.start(begin);
    await op.answer("sk-local");
    expect(requests.at(-1)).toEqual({
      method: "POST",
      path: "/api/pi/settings/operations/op2",
      body: { promptId: "p1", value: "sk-local" },
    });
    expect(op.operation.value?.prompt).toBeNull();

    await op.cancel();
    expect(requests.at(-1)).toMatchObject({ method: "DELETE", path: "/api/pi/settings/operations/op2" });
    expect(op.operation.value?.state).toBe("cancelling");
    expect(op.running.value).toBe(true);
    await vi.advanceTimersByTimeAsync(POLL_INTERVAL_MS);
    await vi.advanceTimersByTimeAsync(POLL_INTERVAL_MS);
    expect(op.operation.value?.state).toBe("cancelled");
    expect(op.running.value).toBe(false);
    scope.stop();
  });

  it("shows the expiry message when a poll answers 404, and stops", async () => {
    const requests = serve(operation("op3"), [{ status: 404, body: { error: OPERATION_EXPIRED } }]);
    const scope = effectScope();
    const op = scope.run(() => useSettingsOperation())!;
    await op.start(begin);
    await vi.advanceTimersByTimeAsync(POLL_INTERVAL_MS);
    expect(op.error.value).toBe(OPERATION_EXPIRED);
    await vi.advanceTimersByTimeAsync(POLL_INTERVAL_MS * 3);
    expect(polls(requests)).toBe(1);
    scope.stop();
  });

  it("stops polling when its owner goes away (the component unmounts), cancelling what still runs", async () => {
    const requests = serve(operation("op4"), [operation("op4"), operation("op4"), operation("op4")], (request) =>
      request.method === "DELETE" ? { body: operation("op4", { state: "cancelling" }) } : undefined,
    );
    const scope = effectScope();
    const op = scope.run(() => useSettingsOperation())!;
    await op.start(begin);
    await vi.advanceTimersByTimeAsync(POLL_INTERVAL_MS);
    expect(polls(requests)).toBe(1);
    scope.stop();
    await vi.advanceTimersByTimeAsync(POLL_INTERVAL_MS * 4);
    expect(polls(requests)).toBe(1);
    expect(requests.at(-1)).toMatchObject({ method: "DELETE", path: "/api/pi/settings/operations/op4" });
  });

  it("shows why an action could not start (a duplicate operation answers 409)", async () => {
    backend = fakeBackend(() => ({ status: 409, body: { error: "An operation for this provider or server is already in progress." } }));
    const op = useSettingsOperation();
    expect(await op.start(begin)).toBe(false);
    expect(op.error.value).toBe("An operation for this provider or server is already in progress.");
    expect(op.operation.value).toBeNull();
  });
});

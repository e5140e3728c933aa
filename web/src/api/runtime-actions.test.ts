import { afterEach, describe, expect, it } from "vitest";
import { activeOf, fakeBackend } from "../components/composer/composer.fixture.ts";
import { ApiError } from "./http.ts";
import { mutateQueue, prompt, resetToEntry, runtimeRequests } from "./runtime-actions.ts";

const PNG = { type: "image" as const, data: "iVBORw0KGgo=", mimeType: "image/png" };

describe("runtimeRequests", () => {
  it("builds a prompt with only the fields given", () => {
    expect(runtimeRequests.prompt("s 1", { text: "hi", images: [] })).toEqual({
      method: "POST",
      path: "/api/pi/sessions/s%201/prompt",
      body: { text: "hi" },
    });
    expect(runtimeRequests.prompt("s1", { text: "", images: [PNG], streamingBehavior: "steer" }).body).toEqual({
      text: "",
      images: [PNG],
      streamingBehavior: "steer",
    });
  });

  it.each([
    [{ action: "hold" } as const, { action: "hold", revision: 4 }],
    [{ action: "resume" } as const, { action: "resume", revision: 4 }],
    [{ action: "edit", id: "q1", text: "new" } as const, { action: "edit", id: "q1", text: "new", revision: 4 }],
    [{ action: "remove", id: "q1" } as const, { action: "remove", id: "q1", revision: 4 }],
    [{ action: "move", id: "q1", direction: "down" } as const, { action: "move", id: "q1", direction: "down", revision: 4 }],
    [{ action: "steer", id: "q1" } as const, { action: "steer", id: "q1", revision: 4 }],
  ])("sends queue %j with the revision", (mutation, body) => {
    expect(runtimeRequests.queue("s1", mutation, 4)).toEqual({ method: "POST", path: "/api/pi/sessions/s1/queue", body });
  });

  it("builds the other runtime actions on their scoped routes", () => {
    expect(runtimeRequests.interrupt("s1")).toEqual({ method: "POST", path: "/api/pi/sessions/s1/interrupt", body: {} });
    expect(runtimeRequests.compact("s1")).toEqual({ method: "POST", path: "/api/pi/sessions/s1/compact", body: {} });
    expect(runtimeRequests.compact("s1", "keep the API notes").body).toEqual({ customInstructions: "keep the API notes" });
    expect(runtimeRequests.model("s1", { provider: "openai", id: "gpt/6" })).toEqual({
      method: "POST",
      path: "/api/pi/sessions/s1/model",
      body: { provider: "openai", id: "gpt/6" },
    });
    expect(runtimeRequests.thinking("s1", "high").body).toEqual({ level: "high" });
    expect(runtimeRequests.ultrafast("s1", true)).toEqual({
      method: "POST",
      path: "/api/pi/sessions/s1/ultrafast",
      body: { enabled: true },
    });
    expect(runtimeRequests.confirm("s1", "req/1", false)).toEqual({
      method: "POST",
      path: "/api/pi/sessions/s1/extension-confirmations/req%2F1",
      body: { confirmed: false },
    });
    expect(runtimeRequests.fork("s1", "e9")).toEqual({ method: "POST", path: "/api/pi/sessions/s1/fork", body: { entryId: "e9" } });
    expect(runtimeRequests.editPrompt("s1", "e2", "again")).toEqual({
      method: "POST",
      path: "/api/pi/sessions/s1/edit-prompt",
      body: { entryId: "e2", text: "again" },
    });
    expect(runtimeRequests.bash("s1", "ls", true).body).toEqual({ command: "ls", excludeFromContext: true });
    expect(runtimeRequests.rename("s1", "Plan")).toEqual({ method: "PATCH", path: "/api/pi/sessions/s1", body: { name: "Plan" } });
    expect(runtimeRequests.mode("s1").path).toBe("/api/pi/sessions/s1/mode");
    expect(runtimeRequests.selectSession("s1")).toEqual({ method: "POST", path: "/api/pi/active-session", body: { id: "s1" } });
    expect(runtimeRequests.resetToEntry("e3")).toEqual({ method: "POST", path: "/api/pi/reset-to-entry", body: { entryId: "e3" } });
  });
});

describe("sending actions", () => {
  let backend: ReturnType<typeof fakeBackend> | undefined;
  afterEach(() => backend?.restore());

  it("posts JSON and returns the answer", async () => {
    backend = fakeBackend(() => ({ body: { ok: true, queued: true, active: activeOf() } }));
    const response = await prompt("s1", { text: "hello", streamingBehavior: "followUp" });
    expect(response.queued).toBe(true);
    expect(backend.requests).toEqual([
      { method: "POST", path: "/api/pi/sessions/s1/prompt", body: { text: "hello", streamingBehavior: "followUp" } },
    ]);
  });

  it("turns a stale revision into ApiError 409 with the server's words", async () => {
    backend = fakeBackend(() => ({ status: 409, body: { error: "Queue revision is stale" } }));
    const failure = await mutateQueue("s1", { action: "hold" }, 3).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ApiError);
    expect(failure).toMatchObject({ status: 409, message: "Queue revision is stale" });
  });

  it("selects the session before resetting it", async () => {
    backend = fakeBackend((request) =>
      request.path === "/api/pi/active-session"
        ? { body: { active: activeOf() } }
        : { body: { ok: true, active: activeOf(), detail: { session: {}, entries: [] } } },
    );
    await resetToEntry("s1", "e3");
    expect(backend.requests.map((r) => [r.path, r.body])).toEqual([
      ["/api/pi/active-session", { id: "s1" }],
      ["/api/pi/reset-to-entry", { entryId: "e3" }],
    ]);
  });

  it("refuses a reset that landed on another session", async () => {
    backend = fakeBackend(() => ({ body: { ok: true, active: activeOf({}, 1, "other"), detail: { session: {}, entries: [] } } }));
    await expect(resetToEntry("s1", "e3")).rejects.toMatchObject({ status: 409 });
  });
});

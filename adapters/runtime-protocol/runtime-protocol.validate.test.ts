import { describe, expect, it } from "vitest";
import {
  checkRuntimeSnapshot,
  messageIdOf,
  parseControlMessage,
  parseWorkerMessage,
  RUNTIME_REQUEST_TYPES,
} from "./runtime-protocol.validate.ts";
import { idleRuntimeSnapshot } from "./runtime-snapshot.fixture.ts";

const childMarker = { version: 1, parentSessionId: null, parentSessionPath: null, toolCallId: null, agent: null, readOnlyBash: false };

describe("parseControlMessage", () => {
  it.each([
    { id: "1", type: "open", new: { cwd: "/tmp/x", kind: "research" }, options: { faux: { tokensPerSecond: 5 }, tools: ["read"] } },
    { id: "1", type: "open", sessionFile: "/tmp/a.jsonl" },
    { id: "1", type: "open", new: { cwd: "/tmp/x", sessionId: "01a2339f-cafe-7000-8000-000000000001" } },
    { id: "1", type: "open", sessionFile: "/tmp/a.jsonl", options: { apiUrl: "http://127.0.0.1:8787" } },
    {
      id: "1",
      type: "open",
      new: {
        cwd: "/tmp/x",
        child: {
          parentSession: "/tmp/p.jsonl",
          marker: {
            version: 1,
            parentSessionId: "p",
            parentSessionPath: "/tmp/p.jsonl",
            toolCallId: null,
            agent: "researcher",
            readOnlyBash: true,
          },
          systemPrompt: "Be brief.",
          model: { provider: "faux", id: "faux-2" },
          thinkingLevel: "low",
          excludeTools: ["write", "edit"],
        },
      },
    },
    { id: "1", type: "prompt", text: "hi", images: [{ type: "image", data: "AAA", mimeType: "image/png" }], streamingBehavior: "steer" },
    { id: "1", type: "setModel", provider: "faux", modelId: "faux-1" },
    { id: "1", type: "setThinkingLevel", level: "xhigh" },
    { id: "1", type: "fork", entryId: "abcd1234", position: "at" },
    { id: "1", type: "setLabel", entryId: "abcd1234", label: "checkpoint" },
    { id: "1", type: "setLabel", entryId: "abcd1234", label: "" },
    { id: "1", type: "extensionUiReply", requestId: "r", confirmed: true },
    { id: "1", type: "faux_turn_reply", turn: null },
    { id: "1", type: "faux_turn_reply", turn: { text: "x" } },
    { id: "1", type: "dispose" },
  ])("accepts %j", (message) => {
    expect(parseControlMessage(message)).toEqual({ ok: true, value: message });
  });

  it.each([
    ["garbage", "message must be an object (got a string)"],
    [{ type: "prompt", text: "x" }, "message.id must be a string (got undefined)"],
    [{ id: "1", type: "launch" }, 'unknown request type "launch"'],
    [{ id: "1", type: "prompt" }, "prompt.text must be a string (got undefined)"],
    [
      { id: "1", type: "prompt", text: "x", streamingBehavior: "now" },
      'prompt.streamingBehavior must be one of steer, followUp (got "now")',
    ],
    [{ id: "1", type: "open" }, "open needs exactly one of sessionFile or new"],
    [{ id: "1", type: "open", sessionFile: "a", new: { cwd: "b" } }, "open needs exactly one of sessionFile or new"],
    [{ id: "1", type: "open", new: { cwd: "b", kind: "chat" } }, 'open.new.kind must be one of session, research (got "chat")'],
    [
      { id: "1", type: "open", new: { cwd: "b", child: { marker: { ...childMarker }, tools: ["read"], excludeTools: ["write"] } } },
      "open.new.child cannot have both tools and excludeTools",
    ],
    [{ id: "1", type: "open", new: { cwd: "b", child: { tools: ["read"] } } }, "open.new.child.marker must be an object"],
    [
      { id: "1", type: "open", new: { cwd: "b", child: { marker: childMarker, model: "faux/faux-1" } } },
      "open.new.child.model must be an object",
    ],
    [
      { id: "1", type: "open", new: { cwd: "b", child: { marker: childMarker, model: { provider: "faux" } } } },
      "open.new.child.model.id must be a string (got undefined)",
    ],
    [
      { id: "1", type: "open", new: { cwd: "b", child: { marker: childMarker, thinkingLevel: "max" } } },
      'open.new.child.thinkingLevel must be one of off, minimal, low, medium, high, xhigh (got "max")',
    ],
    [
      { id: "1", type: "open", new: { cwd: "b", child: { marker: childMarker, prompt: "x" } } },
      "open.new.child has unknown field(s): prompt",
    ],
    [{ id: "1", type: "open", new: { cwd: "b" }, options: { apiUrl: 8787 } }, "open.options.apiUrl must be a string (got a number)"],
    [{ id: "1", type: "open", new: { cwd: "b", sessionId: "../x" } }, "open.new.sessionId must be 1-128 letters, digits, - or _"],
    [
      { id: "1", type: "setThinkingLevel", level: "max" },
      'setThinkingLevel.level must be one of off, minimal, low, medium, high, xhigh (got "max")',
    ],
    [{ id: "1", type: "abort", force: true }, "message has unknown field(s): force"],
    [
      { id: "1", type: "prompt", text: "x", images: [{ type: "image", data: "A" }] },
      "prompt.images[0].mimeType must be a string (got undefined)",
    ],
    [{ id: "1", type: "faux_turn_reply", turn: {} }, "message.turn needs at least one of text, thinking, toolCalls"],
  ])("rejects %j", (message, error) => {
    expect(parseControlMessage(message)).toEqual({ ok: false, error });
  });

  it("knows every request type", () => {
    expect(RUNTIME_REQUEST_TYPES).toContain("navigateTree");
    expect(RUNTIME_REQUEST_TYPES).toContain("preload");
    expect(RUNTIME_REQUEST_TYPES).toContain("setLabel");
    expect(RUNTIME_REQUEST_TYPES).toHaveLength(21);
  });

  it("extracts a reply id only from objects with a string id", () => {
    expect(messageIdOf({ id: "x" })).toBe("x");
    expect(messageIdOf({ id: 3 })).toBeNull();
    expect(messageIdOf(null)).toBeNull();
  });
});

describe("parseWorkerMessage", () => {
  it.each([
    { type: "ready", protocolVersion: 1, pid: 5 },
    { type: "reply", id: "1", ok: true, result: { any: "thing" } },
    { type: "reply", id: "1", ok: false, error: "no" },
    { type: "event", event: { type: "agent_start" } },
    { type: "extension_ui", request: { method: "confirm", requestId: "r", title: "t", message: "m", timeoutMs: null } },
    { type: "extension_ui", request: { method: "setWidget", key: "k", lines: null, placement: null } },
    { type: "extension_ui", request: { method: "dismiss", requestId: "r", reason: "timeout" } },
    { type: "extension_error", error: { extensionPath: "/x.ts", event: "session_start", error: "boom" } },
    { type: "heartbeat", seq: 1, at: 2, isStreaming: false },
    { type: "fault", kind: "protocol", message: "m", fatal: false },
    { type: "faux_turn_request", id: "1", latestUserText: "" },
  ])("accepts %j", (message) => {
    expect(parseWorkerMessage(message).ok).toBe(true);
  });

  it.each([
    [42, "message must be an object (got a number)"],
    [{ type: "nope" }, 'unknown worker message type "nope"'],
    [{ type: "reply", id: "1", ok: false }, "message.error must be a string (got undefined)"],
    [{ type: "event", event: {} }, "message.event.type must be a string (got undefined)"],
    [{ type: "snapshot", snapshot: {} }, "message.snapshot.revision must be a finite number (got undefined)"],
    [
      { type: "extension_ui", request: { method: "confirm", requestId: "r", title: "t", message: "m", timeoutMs: "soon" } },
      "message.request.timeoutMs must be a finite number (got a string)",
    ],
    [{ type: "extension_ui", request: { method: "custom" } }, 'message.request.method is not a known extension UI method (got "custom")'],
    [
      { type: "fault", kind: "oops", message: "m", fatal: true },
      'message.kind must be one of protocol, uncaughtException, unhandledRejection, runtime (got "oops")',
    ],
  ])("rejects %j", (message, error) => {
    expect(parseWorkerMessage(message)).toEqual({ ok: false, error });
  });
});

describe("checkRuntimeSnapshot: model authKind", () => {
  const model = {
    provider: "openai",
    id: "gpt-6-astra",
    name: "GPT-6 Astra",
    api: "openai-responses",
    reasoning: true,
    input: ["text"],
    contextWindow: 400000,
    maxTokens: 128000,
    availableThinkingLevels: ["off", "high"],
  };
  function snapshotWith(current: Record<string, unknown>, available: Array<Record<string, unknown>>): Record<string, unknown> {
    const snapshot: Record<string, unknown> = idleRuntimeSnapshot({
      sessionId: "s",
      cwd: "/tmp/x",
      kind: null,
      steeringMode: "all",
      followUpMode: "all",
    });
    return { ...snapshot, model: current, availableModels: available };
  }

  it.each([undefined, "apiKey", "oauth", "unknown"])("accepts authKind %s", (authKind) => {
    const withKind = authKind === undefined ? model : { ...model, authKind };
    expect(checkRuntimeSnapshot(snapshotWith(withKind, [withKind]))).toBeNull();
    expect(parseWorkerMessage({ type: "snapshot", snapshot: snapshotWith(withKind, [withKind]) }).ok).toBe(true);
  });

  it("checks every field the snapshot declares, not only those the control plane reads", () => {
    expect(checkRuntimeSnapshot({ ...snapshotWith(model, []), isBashRunning: "no" })).toBe(
      "snapshot.isBashRunning must be a boolean (got a string)",
    );
    expect(checkRuntimeSnapshot(snapshotWith({ ...model, contextWindow: null }, []))).toBe(
      "snapshot.model.contextWindow must be a finite number (got null)",
    );
    expect(checkRuntimeSnapshot({ ...snapshotWith(model, []), research: null })).toBeNull();
  });

  it.each([
    [
      snapshotWith({ ...model, authKind: "subscription" }, []),
      'snapshot.model.authKind must be one of apiKey, oauth, unknown (got "subscription")',
    ],
    [
      snapshotWith(model, [model, { ...model, authKind: null }]),
      "snapshot.availableModels[1].authKind must be one of apiKey, oauth, unknown (got null)",
    ],
    [
      snapshotWith(model, [{ ...model, authKind: 1 }]),
      "snapshot.availableModels[0].authKind must be one of apiKey, oauth, unknown (got a number)",
    ],
  ])("rejects a bad authKind (%#)", (snapshot, error) => {
    expect(checkRuntimeSnapshot(snapshot)).toBe(error);
    expect(parseWorkerMessage({ type: "snapshot", snapshot })).toEqual({ ok: false, error: `message.${error}` });
  });
});

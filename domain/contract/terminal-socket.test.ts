import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import {
  EDITOR_LINE_MESSAGE,
  EDITOR_NEEDS_SESSION_MESSAGE,
  EDITOR_PATH_MESSAGE,
  parseTerminalClientMessage,
  parseTerminalRequest,
  TERMINAL_MAX_COLS,
  TERMINAL_MAX_ROWS,
  terminalServerMessageFailure,
  type TerminalClientMessage,
} from "./terminal-socket.ts";

describe("client messages", () => {
  it("reads input with string data; anything else is ignored (null)", () => {
    expect(parseTerminalClientMessage('{"type":"input","data":"ls\\r"}')).toEqual({ type: "input", data: "ls\r" });
    expect(parseTerminalClientMessage('{"type":"input","data":""}')).toEqual({ type: "input", data: "" });
    expect(parseTerminalClientMessage('{"type":"input","data":"é😀","extra":1}')).toEqual({ type: "input", data: "é😀" });
    expect(parseTerminalClientMessage('{"type":"input","data":5}')).toBeNull();
    expect(parseTerminalClientMessage('{"type":"input"}')).toBeNull();
    expect(parseTerminalClientMessage('{"type":"ping"}')).toBeNull();
    expect(parseTerminalClientMessage('{"type":"pong"}')).toBeNull();
    expect(parseTerminalClientMessage("[1]")).toBeNull();
    expect(parseTerminalClientMessage("null")).toBeNull();
    expect(parseTerminalClientMessage('"input"')).toBeNull();
    expect(parseTerminalClientMessage("not json")).toBeNull();
    expect(parseTerminalClientMessage("")).toBeNull();
  });

  it("reads resize: missing or invalid values are 100 x 24, fractions floored, large values capped", () => {
    expect(parseTerminalClientMessage('{"type":"resize","cols":120,"rows":32}')).toEqual({ type: "resize", cols: 120, rows: 32 });
    expect(parseTerminalClientMessage('{"type":"resize"}')).toEqual({ type: "resize", cols: 100, rows: 24 });
    expect(parseTerminalClientMessage('{"type":"resize","cols":80}')).toEqual({ type: "resize", cols: 80, rows: 24 });
    expect(parseTerminalClientMessage('{"type":"resize","rows":50}')).toEqual({ type: "resize", cols: 100, rows: 50 });
    expect(parseTerminalClientMessage('{"type":"resize","cols":0,"rows":-3}')).toEqual({ type: "resize", cols: 100, rows: 24 });
    expect(parseTerminalClientMessage('{"type":"resize","cols":"120","rows":null}')).toEqual({ type: "resize", cols: 100, rows: 24 });
    expect(parseTerminalClientMessage('{"type":"resize","cols":80.9,"rows":1.2}')).toEqual({ type: "resize", cols: 80, rows: 1 });
    expect(parseTerminalClientMessage('{"type":"resize","cols":1e9,"rows":99999}')).toEqual({
      type: "resize",
      cols: TERMINAL_MAX_COLS,
      rows: TERMINAL_MAX_ROWS,
    });
    expect(parseTerminalClientMessage('{"type":"resize","cols":0.5,"rows":24}')).toEqual({ type: "resize", cols: 100, rows: 24 });
  });

  function isValid(message: TerminalClientMessage): boolean {
    if (message.type === "input") return typeof message.data === "string";
    const within = (n: number, max: number): boolean => Number.isInteger(n) && n >= 1 && n <= max;
    return within(message.cols, TERMINAL_MAX_COLS) && within(message.rows, TERMINAL_MAX_ROWS);
  }

  const messageLike = fc.oneof(
    fc.string(),
    fc.json(),
    fc
      .record(
        { type: fc.constantFrom("input", "resize", "other"), data: fc.anything(), cols: fc.anything(), rows: fc.anything() },
        { requiredKeys: ["type"] },
      )
      .map((value) => JSON.stringify(value) ?? ""),
    fc.record({ type: fc.constant("resize"), cols: fc.double(), rows: fc.integer() }).map((value) => JSON.stringify(value)),
  );

  test.prop([messageLike], { numRuns: 500 })("any text parses without throwing to null or a valid message", (text) => {
    const message = parseTerminalClientMessage(text);
    expect(message === null || isValid(message)).toBe(true);
  });

  test.prop([fc.string({ unit: "grapheme" })])("input data round-trips exactly", (data) => {
    expect(parseTerminalClientMessage(JSON.stringify({ type: "input", data }))).toEqual({ type: "input", data });
  });
});

describe("query", () => {
  it("asks for a shell, in a session or the active runtime", () => {
    expect(parseTerminalRequest({})).toEqual({ kind: "shell", sessionId: null });
    expect(parseTerminalRequest({ sessionId: "s1" })).toEqual({ kind: "shell", sessionId: "s1" });
  });

  it("asks for an editor when editorPath is present: a session, an absolute path, a positive line", () => {
    expect(parseTerminalRequest({ sessionId: "s1", editorPath: "/p/a.ts" })).toEqual({
      kind: "editor",
      sessionId: "s1",
      editorPath: "/p/a.ts",
      allowOutsideProject: false,
    });
    expect(parseTerminalRequest({ sessionId: "s1", editorPath: "/p/a.ts", editorLine: "12", allowOutsideProject: "true" })).toEqual({
      kind: "editor",
      sessionId: "s1",
      editorPath: "/p/a.ts",
      editorLine: 12,
      allowOutsideProject: true,
    });
    expect(parseTerminalRequest({ sessionId: "s1", editorPath: "/p/a.ts", allowOutsideProject: "yes" })).toMatchObject({
      allowOutsideProject: false,
    });
    expect(parseTerminalRequest({ editorPath: "/p/a.ts" })).toEqual({ kind: "invalid", message: EDITOR_NEEDS_SESSION_MESSAGE });
    expect(parseTerminalRequest({ sessionId: "s1", editorPath: "a.ts" })).toEqual({ kind: "invalid", message: EDITOR_PATH_MESSAGE });
    expect(parseTerminalRequest({ sessionId: "s1", editorPath: "" })).toEqual({ kind: "invalid", message: EDITOR_PATH_MESSAGE });
    for (const editorLine of ["0", "-1", "1.5", "abc", "", "012", "99999999999999999999"]) {
      expect(parseTerminalRequest({ sessionId: "s1", editorPath: "/p/a.ts", editorLine }), editorLine).toEqual({
        kind: "invalid",
        message: EDITOR_LINE_MESSAGE,
      });
    }
  });
});

describe("server messages", () => {
  it("accepts the four messages as the spec writes them", () => {
    expect(terminalServerMessageFailure({ type: "ready", cwd: "/p", shell: "/bin/bash", pty: true })).toBeNull();
    expect(terminalServerMessageFailure({ type: "ready", cwd: "/p", shell: "vim", editorPath: "/p/a", pty: true })).toBeNull();
    expect(terminalServerMessageFailure({ type: "data", data: "x" })).toBeNull();
    expect(terminalServerMessageFailure({ type: "exit", exitCode: 7 })).toBeNull();
    expect(terminalServerMessageFailure({ type: "error", message: "Session not found" })).toBeNull();
  });

  it("refuses other shapes", () => {
    expect(terminalServerMessageFailure({ type: "ready", cwd: "/p", shell: "/bin/bash" })).not.toBeNull();
    expect(terminalServerMessageFailure({ type: "data", data: 1 })).not.toBeNull();
    expect(terminalServerMessageFailure({ type: "exit", exitCode: 1.5 })).not.toBeNull();
    expect(terminalServerMessageFailure({ type: "ping" })).not.toBeNull();
    expect(terminalServerMessageFailure({ type: "data", data: "x", seq: 1 })).not.toBeNull();
  });
});

/**
 * The terminal connection rules of terminal-machine.ts (spec "Terminal WebSocket"), written Given (inputs so far)
 * / When (one input) / Then (effects and state), and the buffering law as a property: nothing is sent before
 * `ready`, and every byte typed before it is sent exactly once, in order, after the size.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { TERMINAL_CLIENT_MESSAGE_LIMIT_BYTES } from "../../../domain/contract/terminal-socket.ts";
import {
  CLIENT_MESSAGE_LIMIT_BYTES,
  decodeServerMessage,
  INPUT_CHUNK_UNITS,
  inputTexts,
  initialTerminalState,
  INPUT_BUFFER_LIMIT_BYTES,
  inputText,
  processTitle,
  RESIZE_DELAY_MS,
  resizeText,
  step,
  terminalStatus,
  utf8Length,
  type TerminalEffect,
  type TerminalInput,
  type TerminalKind,
  type TerminalState,
} from "./terminal-machine.ts";

const READY = { type: "ready", cwd: "/work/project", shell: "/bin/bash", pty: true };
const ready = (extra: object = {}): TerminalInput => ({ type: "message", text: JSON.stringify({ ...READY, ...extra }) });
const server = (message: object): TerminalInput => ({ type: "message", text: JSON.stringify(message) });
const typed = (data: string): TerminalInput => ({ type: "input", data });
const resize = (cols: number, rows: number): TerminalInput => ({ type: "resize", cols, rows });

function run(inputs: TerminalInput[], from: TerminalState): { state: TerminalState; effects: TerminalEffect[] } {
  let state = from;
  const effects: TerminalEffect[] = [];
  for (const input of inputs) {
    const next = step(state, input);
    state = next.state;
    effects.push(...next.effects);
  }
  return { state, effects };
}

function given(inputs: TerminalInput[] = [], kind: TerminalKind = "shell") {
  const state = run(inputs, initialTerminalState(kind)).state;
  return {
    state,
    when(...more: TerminalInput[]) {
      const after = run(more, state);
      return {
        ...after,
        then(effects: TerminalEffect[]) {
          expect(after.effects).toEqual(effects);
          return this;
        },
        thenState(expected: Partial<TerminalState>) {
          expect(after.state).toMatchObject(expected);
          return this;
        },
      };
    },
  };
}

const sends = (effects: TerminalEffect[]) => effects.flatMap((e) => (e.type === "send" ? [JSON.parse(e.text) as unknown] : []));
const sentInput = (effects: TerminalEffect[]) =>
  effects.flatMap((e) => {
    if (e.type !== "send") return [];
    const message = JSON.parse(e.text) as { type: string; data?: string };
    return message.type === "input" ? [message.data ?? ""] : [];
  });

const CONNECTING: TerminalInput[] = [{ type: "start" }];
const READY_AT_100x30: TerminalInput[] = [{ type: "start" }, resize(100, 30), ready()];

describe("terminal machine: connecting and ready", () => {
  it("start opens connection 1; the server's ready makes it ready with the process it names", () => {
    given()
      .when({ type: "start" })
      .then([{ type: "connect", connection: 1 }])
      .thenState({ phase: "connecting", connection: 1 });
    given(CONNECTING)
      .when(ready({ editorPath: undefined }))
      .then([{ type: "ready", connection: 1, process: { cwd: "/work/project", shell: "/bin/bash" } }])
      .thenState({ phase: "ready", process: { cwd: "/work/project", shell: "/bin/bash" } });
  });

  it("sends nothing while connecting: input is buffered, then on ready the size goes first and the buffer once", () => {
    const connecting = given(CONNECTING).when(resize(120, 40), typed("ls"), typed(" -la\r"));
    expect(sends(connecting.effects)).toEqual([]);
    expect(connecting.state).toMatchObject({ pending: "ls -la\r", pendingBytes: 7 });
    const { effects, state } = run([ready()], connecting.state);
    expect(effects).toEqual([
      { type: "send", text: resizeText({ cols: 120, rows: 40 }) },
      { type: "send", text: inputText("ls -la\r") },
      { type: "ready", connection: 1, process: { cwd: "/work/project", shell: "/bin/bash" } },
    ]);
    expect(state).toMatchObject({ pending: "", pendingBytes: 0, sentSize: { cols: 120, rows: 40 } });
  });

  it("once ready, input is sent as it comes; empty input sends nothing", () => {
    given(READY_AT_100x30)
      .when(typed("a"), typed(""), typed("\u0003"))
      .then([
        { type: "send", text: '{"type":"input","data":"a"}' },
        { type: "send", text: '{"type":"input","data":"\\u0003"}' },
      ]);
  });

  it("the buffer keeps at most 64 KiB: a chunk that does not fit is dropped whole and counted", () => {
    const big = "x".repeat(INPUT_BUFFER_LIMIT_BYTES - 2);
    const { state, effects } = given(CONNECTING).when(typed(big), typed("é"), typed("abc"), typed("!"), ready());
    // "é" is 2 bytes: it fills the buffer exactly; "abc" does not fit; "!" does not either.
    expect(sentInput(effects).join("")).toBe(big + "é");
    expect(state.droppedBytes).toBe(4);
    expect(terminalStatus(state)?.text).toMatch(/dropped/);
  });

  it("sends large input (a paste) in messages the server accepts, a surrogate pair never split", () => {
    expect(CLIENT_MESSAGE_LIMIT_BYTES).toBe(TERMINAL_CLIENT_MESSAGE_LIMIT_BYTES);
    const paste = "\u001b".repeat(INPUT_CHUNK_UNITS - 1) + "😀" + "é\r\n".repeat(40_000);
    const { effects } = given(READY_AT_100x30).when(typed(paste));
    const texts = effects.flatMap((e) => (e.type === "send" ? [e.text] : []));
    expect(texts.length).toBeGreaterThan(10);
    for (const text of texts) expect(new TextEncoder().encode(text).length).toBeLessThanOrEqual(CLIENT_MESSAGE_LIMIT_BYTES);
    expect(sentInput(effects).join("")).toBe(paste);
    expect(sentInput(effects)[0]).toBe("\u001b".repeat(INPUT_CHUNK_UNITS - 1));
    expect(inputTexts("")).toEqual([]);
  });

  it("output is written as it arrives, also before ready; empty output writes nothing", () => {
    given(CONNECTING)
      .when(server({ type: "data", data: "motd\r\n" }), ready(), server({ type: "data", data: "$ " }), server({ type: "data", data: "" }))
      .then([
        { type: "output", data: "motd\r\n" },
        { type: "ready", connection: 1, process: { cwd: "/work/project", shell: "/bin/bash" } },
        { type: "output", data: "$ " },
      ]);
  });

  it("ignores malformed and unknown server messages (counted), and a second ready", () => {
    const { effects, state } = given(READY_AT_100x30).when(
      { type: "message", text: "not json" },
      server({ type: "ping" }),
      server({ type: "data", data: 3 }),
      server({ type: "exit", exitCode: "0" }),
      ready({ shell: "/bin/zsh" }),
    );
    expect(effects).toEqual([]);
    expect(state).toMatchObject({ phase: "ready", malformed: 4, process: { shell: "/bin/bash" } });
  });
});

describe("terminal machine: resize", () => {
  it("coalesces changes while ready: one scheduled send with the latest size", () => {
    const first = given(READY_AT_100x30).when(resize(101, 30), resize(102, 31), resize(103, 32));
    expect(first.effects).toEqual([{ type: "scheduleResize", delayMs: RESIZE_DELAY_MS }]);
    const due = run([{ type: "resizeDue" }, resize(104, 32)], first.state);
    expect(due.effects).toEqual([
      { type: "send", text: resizeText({ cols: 103, rows: 32 }) },
      { type: "scheduleResize", delayMs: RESIZE_DELAY_MS },
    ]);
  });

  it("never sends a size equal to the last one sent (back to it before the timer: nothing)", () => {
    given(READY_AT_100x30).when(resize(100, 30)).then([]);
    given(READY_AT_100x30)
      .when(resize(90, 30), resize(100, 30), { type: "resizeDue" })
      .then([{ type: "scheduleResize", delayMs: RESIZE_DELAY_MS }])
      .thenState({ resizeScheduled: false, sentSize: { cols: 100, rows: 30 } });
  });

  it("ignores sizes that are not positive whole numbers", () => {
    given(READY_AT_100x30)
      .when(resize(0, 30), resize(80, -1), resize(80.5, 24), resize(Number.NaN, 24))
      .then([])
      .thenState({
        size: { cols: 100, rows: 30 },
      });
  });

  it("before ready a resize is only remembered; without a size ready sends no resize", () => {
    given(CONNECTING)
      .when(resize(80, 24), resize(81, 24))
      .then([])
      .thenState({ size: { cols: 81, rows: 24 } });
    const { effects } = given(CONNECTING).when(ready());
    expect(sends(effects)).toEqual([]);
  });
});

describe("terminal machine: the end of a process and restart", () => {
  it("exit ends the connection with the code (the socket goes, a pending resize too)", () => {
    given([...READY_AT_100x30, resize(90, 20)])
      .when(server({ type: "exit", exitCode: 130 }))
      .then([{ type: "cancelResize" }, { type: "disconnect" }])
      .thenState({ phase: "exited", exitCode: 130 });
  });

  it("error ends it with the server's words: Session not found, No active session, editor errors", () => {
    for (const message of ["Session not found", "No active session", "No terminal editor is configured"]) {
      const { state, effects } = given(CONNECTING).when(typed("x"), server({ type: "error", message }));
      expect(effects).toEqual([{ type: "disconnect" }]);
      expect(state).toMatchObject({ phase: "failed", error: message, pending: "" });
      expect(terminalStatus(state)).toMatchObject({ tone: "error", text: `Could not start the terminal: ${message}.`, canRestart: true });
    }
  });

  it("a socket that closes is disconnected; before ready it never connected", () => {
    given(READY_AT_100x30).when({ type: "closed" }).thenState({ phase: "disconnected", lostBeforeReady: false });
    const lost = given(CONNECTING).when({ type: "closed" });
    expect(lost.state).toMatchObject({ phase: "disconnected", lostBeforeReady: true });
    expect(terminalStatus(lost.state)?.text).toBe("Could not connect to the terminal.");
  });

  it("a close after exit changes nothing (the server closes after exit)", () => {
    const exited = given(READY_AT_100x30).when(server({ type: "exit", exitCode: 0 })).state;
    expect(step(exited, { type: "closed" })).toEqual({ state: exited, effects: [] });
  });

  it("restart from an ended connection opens a NEW one (never a resume) that starts from the same size", () => {
    for (const end of [server({ type: "exit", exitCode: 1 }), server({ type: "error", message: "boom" }), { type: "closed" } as const]) {
      const restarted = given([...READY_AT_100x30, end]).when({ type: "restart" });
      expect(restarted.effects).toEqual([{ type: "disconnect" }, { type: "connect", connection: 2 }]);
      expect(restarted.state).toMatchObject({ phase: "connecting", connection: 2, exitCode: null, error: null, sentSize: null });
      expect(terminalStatus(restarted.state)?.text).toBe("Starting a new shell…");
      const again = run([ready()], restarted.state);
      expect(again.effects[0]).toEqual({ type: "send", text: resizeText({ cols: 100, rows: 30 }) });
      expect(again.effects.at(-1)).toMatchObject({ type: "ready", connection: 2 });
    }
  });

  it("restart does nothing while connecting or ready; input after the end is not kept", () => {
    given(CONNECTING).when({ type: "restart" }).then([]);
    given(READY_AT_100x30).when({ type: "restart" }).then([]);
    given([...READY_AT_100x30, { type: "closed" }])
      .when(typed("lost"))
      .then([])
      .thenState({ pending: "" });
  });

  it("stop closes for good: later messages, input and restart do nothing", () => {
    const stopped = given(READY_AT_100x30).when({ type: "stop" });
    expect(stopped.effects).toEqual([{ type: "disconnect" }]);
    expect(run([server({ type: "data", data: "x" }), typed("y"), { type: "restart" }, { type: "start" }], stopped.state).effects).toEqual(
      [],
    );
  });
});

describe("terminal machine: words", () => {
  it("says what happens in the status line; nothing while the process runs", () => {
    expect(terminalStatus(given(CONNECTING).state)).toMatchObject({ tone: "info", text: "Connecting…", canRestart: false });
    expect(terminalStatus(given(READY_AT_100x30).state)).toBeNull();
    expect(terminalStatus(given([...READY_AT_100x30, server({ type: "exit", exitCode: 2 })]).state)).toEqual({
      tone: "info",
      text: "Process exited with code 2.",
      canRestart: true,
      restartHint: "Restart starts a new shell.",
    });
    expect(terminalStatus(given([...READY_AT_100x30, { type: "closed" }]).state)?.text).toMatch(/lost; its shell has ended/);
  });

  it("an editor terminal speaks of the editor", () => {
    const exited = given([...READY_AT_100x30, server({ type: "exit", exitCode: 0 })], "editor").state;
    expect(terminalStatus(exited)).toMatchObject({ text: "Editor exited with code 0.", restartHint: "Restart opens the editor again." });
    const failed = given([{ type: "start" }, server({ type: "error", message: "File changed." })], "editor").state;
    expect(terminalStatus(failed)?.text).toBe("Could not open the editor: File changed.");
  });

  it("titles a process by its program and folder, or its program and file", () => {
    expect(processTitle({ cwd: "/work/project", shell: "/bin/bash" })).toBe("bash · project");
    expect(processTitle({ cwd: "/work/project", shell: "/usr/bin/vim", editorPath: "/work/project/src/app.ts" })).toBe("vim · app.ts");
    expect(processTitle({ cwd: "/", shell: "sh" })).toBe("sh · /");
  });

  it("decodes the four server messages and nothing else", () => {
    expect(decodeServerMessage(JSON.stringify({ ...READY, editorPath: "/f" }))).toEqual({ ...READY, editorPath: "/f" });
    expect(decodeServerMessage('{"type":"exit","exitCode":0}')).toEqual({ type: "exit", exitCode: 0 });
    expect(decodeServerMessage('{"type":"ready","cwd":"/"}')).toBeNull();
    expect(decodeServerMessage("[]")).toBeNull();
  });

  it("counts UTF-8 bytes as TextEncoder does", () => {
    fc.assert(fc.property(fc.string({ unit: "binary" }), (text) => utf8Length(text) === new TextEncoder().encode(text).length));
    expect(utf8Length("\ud800x")).toBe(4);
  });
});

/** A generated session of inputs around one `ready`. */
const beforeReadyInput: fc.Arbitrary<TerminalInput> = fc.oneof(
  { weight: 5, arbitrary: fc.string({ unit: "binary", maxLength: 12 }).map(typed) },
  { weight: 2, arbitrary: fc.tuple(fc.integer({ min: 1, max: 300 }), fc.integer({ min: 1, max: 100 })).map(([c, r]) => resize(c, r)) },
  { weight: 1, arbitrary: fc.constant<TerminalInput>({ type: "resizeDue" }) },
  { weight: 1, arbitrary: fc.string({ maxLength: 8 }).map((data) => server({ type: "data", data })) },
  { weight: 1, arbitrary: fc.string({ maxLength: 8 }).map((text): TerminalInput => ({ type: "message", text })) },
);

describe("terminal machine: the buffering law", () => {
  it("nothing is sent before ready; every byte typed before it is sent exactly once, in order, after the size", () => {
    fc.assert(
      fc.property(
        fc.array(beforeReadyInput, { maxLength: 40 }),
        fc.array(fc.string({ maxLength: 6 }), { maxLength: 10 }),
        (before, after) => {
          const connecting = run([{ type: "start" }, ...before], initialTerminalState());
          expect(connecting.effects.filter((e) => e.type === "send")).toEqual([]);

          const typedBefore = before.flatMap((i) => (i.type === "input" ? [i.data] : [])).join("");
          const rest = run([ready(), ...after.map(typed)], connecting.state);
          expect(sentInput(rest.effects).join("")).toBe(typedBefore + after.join(""));
          // The first thing sent is the size, when one is known.
          const first = sends(rest.effects)[0] as { type: string } | undefined;
          if (connecting.state.size !== null) expect(first).toEqual({ type: "resize", ...connecting.state.size });
        },
      ),
    );
  });

  it("with a full buffer, what is sent is the typed chunks that fit, in order (a prefix, never a cut chunk)", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 30_000 }), { maxLength: 8 }), (lengths) => {
        const chunks = lengths.map((n, i) => String.fromCharCode(97 + (i % 26)).repeat(n));
        const { effects, state } = run([{ type: "start" }, ...chunks.map(typed), ready()], initialTerminalState());
        let room = INPUT_BUFFER_LIMIT_BYTES;
        const fit = chunks.filter((chunk) => (chunk.length <= room ? ((room -= chunk.length), true) : false));
        expect(sentInput(effects).join("")).toBe(fit.join(""));
        expect(state.droppedBytes).toBe(chunks.join("").length - fit.join("").length);
      }),
    );
  });
});

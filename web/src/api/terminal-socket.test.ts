/**
 * The terminal socket driver (terminal-socket.ts) with a socket and timers the test drives: the URL it builds,
 * that it performs the machine's effects on the right socket, and that late callbacks of a closed socket are
 * ignored.
 */
import { describe, expect, it } from "vitest";
import { fakeSockets, ManualTimers } from "./events-socket.fixture.ts";
import { RESIZE_DELAY_MS, type TerminalState } from "./terminal-machine.ts";
import { TERMINAL_PATH as CONTRACT_PATH } from "../../../domain/contract/terminal-socket.ts";
import { TERMINAL_PATH, TerminalSocket, terminalUrl, type TerminalTarget } from "./terminal-socket.ts";

function harness(target: TerminalTarget = { sessionId: "s1" }) {
  const { sockets, createSocket } = fakeSockets();
  const timers = new ManualTimers();
  const output: string[] = [];
  const readies: number[] = [];
  const states: TerminalState[] = [];
  const terminal = new TerminalSocket({
    target,
    wsBase: "ws://127.0.0.1:9999/",
    timers,
    createSocket,
    onOutput: (data) => output.push(data),
    onReady: ({ connection }) => readies.push(connection),
    onState: (state) => states.push(state),
  });
  return { terminal, sockets, timers, output, readies, states };
}

const READY = { type: "ready", cwd: "/p", shell: "/bin/sh", pty: true };

describe("terminalUrl", () => {
  it("is the contract's path", () => {
    expect(TERMINAL_PATH).toBe(CONTRACT_PATH);
  });

  it("names the session, and for an editor the file, its line and an approved outside-project file", () => {
    expect(terminalUrl("wss://host:1/", { sessionId: "a b" })).toBe("wss://host:1/api/pi/terminal?sessionId=a+b");
    expect(terminalUrl("ws://h", { sessionId: "s", editor: { path: "/w/p/src/a&b.ts", line: 12, allowOutsideProject: true } })).toBe(
      "ws://h/api/pi/terminal?sessionId=s&editorPath=%2Fw%2Fp%2Fsrc%2Fa%26b.ts&editorLine=12&allowOutsideProject=true",
    );
    // No line, a line that is not a positive integer, and no approval: left out.
    expect(terminalUrl("ws://h", { sessionId: "s", editor: { path: "/f", line: 0, allowOutsideProject: false } })).toBe(
      "ws://h/api/pi/terminal?sessionId=s&editorPath=%2Ff",
    );
  });
});

describe("TerminalSocket", () => {
  it("opens on start, sends nothing until ready, then the size and the buffered input; writes output", () => {
    const { terminal, sockets, output, readies } = harness();
    terminal.start();
    expect(sockets.map((s) => s.url)).toEqual(["ws://127.0.0.1:9999/api/pi/terminal?sessionId=s1"]);
    const socket = sockets[0]!;
    socket.open();
    terminal.resize(80, 24);
    terminal.input("echo hi\r");
    expect(socket.sent).toEqual([]);
    socket.receive(READY);
    socket.receive({ type: "data", data: "hi\r\n" });
    expect(socket.sent).toEqual(['{"type":"resize","cols":80,"rows":24}', '{"type":"input","data":"echo hi\\r"}']);
    expect(output).toEqual(["hi\r\n"]);
    expect(readies).toEqual([1]);
  });

  it("sends a changed size once per period, the latest one", () => {
    const { terminal, sockets, timers } = harness();
    terminal.start();
    sockets[0]!.receive(READY);
    terminal.resize(100, 30);
    terminal.resize(110, 31);
    expect(timers.delays()).toEqual([RESIZE_DELAY_MS]);
    timers.fireAll();
    expect(sockets[0]!.sent).toEqual(['{"type":"resize","cols":110,"rows":31}']);
  });

  it("an exit closes the socket; restart opens a new one, and the old socket's late callbacks change nothing", () => {
    const { terminal, sockets, readies, states } = harness();
    terminal.start();
    const first = sockets[0]!;
    first.receive(READY);
    first.receive({ type: "exit", exitCode: 3 });
    expect(first.closed).toBe(true);
    expect(terminal.machine).toMatchObject({ phase: "exited", exitCode: 3 });
    terminal.restart();
    expect(sockets).toHaveLength(2);
    first.receive({ type: "data", data: "late" });
    first.drop();
    expect(terminal.machine.phase).toBe("connecting");
    sockets[1]!.receive(READY);
    expect(readies).toEqual([1, 2]);
    expect(states.at(-1)).toMatchObject({ phase: "ready", connection: 2 });
  });

  it("a socket that fails is disconnected; stop closes the socket and cancels a pending resize", () => {
    const lost = harness();
    lost.terminal.start();
    lost.sockets[0]!.onerror?.({});
    expect(lost.terminal.machine).toMatchObject({ phase: "disconnected", lostBeforeReady: true });

    const { terminal, sockets, timers } = harness({ sessionId: "s", editor: { path: "/f.ts", allowOutsideProject: false } });
    terminal.start();
    sockets[0]!.receive({ ...READY, editorPath: "/f.ts" });
    terminal.resize(50, 10);
    terminal.stop();
    expect(sockets[0]!.closed).toBe(true);
    expect(timers.delays()).toEqual([]);
    expect(terminal.machine).toMatchObject({ phase: "stopped", kind: "editor" });
  });

  it("a socket that cannot be created at all is disconnected", () => {
    const output: string[] = [];
    const terminal = new TerminalSocket({
      target: { sessionId: "s" },
      wsBase: "ws://h",
      createSocket: () => {
        throw new SyntaxError("bad url");
      },
      onOutput: (data) => output.push(data),
    });
    terminal.start();
    expect(terminal.machine).toMatchObject({ phase: "disconnected", lostBeforeReady: true });
  });
});

/**
 * PtySession on a real PTY running a real bash: output, resize, exit codes, UTF-8 split across reads, batching,
 * flow control (pause bounds what is read; an exit while paused keeps its last output), and end(): every process
 * the terminal started is gone, including background and nohup jobs (checked by pid).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { PtySession } from "./pty-session.ts";
import { isGone, printedPid, waitUntil } from "./terminal.fixture.ts";

const home = fs.mkdtempSync(path.join(os.tmpdir(), "leyline-pty-"));
const sessions: PtySession[] = [];

afterEach(async () => {
  await Promise.all(sessions.splice(0).map((session) => session.end()));
});
afterAll(() => fs.rmSync(home, { recursive: true, force: true }));

interface Started {
  readonly session: PtySession;
  /** Everything output so far, carriage returns removed. */
  text(): string;
  readonly outputs: string[];
  readonly exits: number[];
  until(check: (text: string) => boolean, what: string, timeoutMs?: number): Promise<string>;
}

function bash(options: { cols?: number; rows?: number; killGraceMs?: number } = {}): Started {
  const outputs: string[] = [];
  const exits: number[] = [];
  const session = PtySession.start(
    {
      file: "/bin/bash",
      args: ["--norc", "--noprofile"],
      cwd: home,
      env: { PATH: process.env["PATH"] ?? "/usr/bin:/bin", HOME: home, TERM: "xterm-256color", PS1: "$ " },
      cols: options.cols ?? 100,
      rows: options.rows ?? 24,
    },
    { onOutput: (text) => outputs.push(text), onExit: (code) => exits.push(code) },
    options.killGraceMs !== undefined ? { killGraceMs: options.killGraceMs } : {},
  );
  sessions.push(session);
  const text = (): string => outputs.join("").replace(/\r/g, "");
  return {
    session,
    text,
    outputs,
    exits,
    async until(check, what, timeoutMs = 5000) {
      await waitUntil(
        () => check(text()),
        () => `${what} (output so far: ${JSON.stringify(text().slice(-300))})`,
        timeoutMs,
      );
      return text();
    },
  };
}

describe("PtySession (real PTY)", () => {
  it("runs a command and reports its output (the command's echo aside)", async () => {
    const t = bash();
    t.session.write("echo hello-$((6*7))\r");
    // The PTY echoes the typed line (with `$((6*7))`); the output line is the computed one.
    await t.until((text) => text.includes("hello-42\n"), "echo output");
    expect(t.text()).toContain("echo hello-$((6*7))");
  });

  it("starts at the given size and resizes: stty size shows it", async () => {
    const t = bash({ cols: 90, rows: 20 });
    t.session.write("stty size\r");
    await t.until((text) => text.includes("20 90\n"), "initial size");
    t.session.resize(120, 33);
    expect([t.session.cols, t.session.rows]).toEqual([120, 33]);
    t.session.write("stty size\r");
    await t.until((text) => text.includes("33 120\n"), "new size");
  });

  it("reports the exit code once all output is out; nothing after", async () => {
    const t = bash();
    t.session.write("echo last-words; exit 7\r");
    await waitUntil(() => t.exits.length > 0, "exit");
    expect(t.exits).toEqual([7]);
    expect(t.text()).toContain("last-words\n");
    expect(t.session.exited).toBe(true);
    t.session.write("echo ignored\r"); // no throw after exit
    t.session.resize(10, 10);
  });

  it("reports a program killed by a signal as 128 + signal", async () => {
    const t = bash();
    t.session.write("kill -KILL $$\r"); // an interactive bash ignores SIGTERM
    await waitUntil(() => t.exits.length > 0, "exit");
    expect(t.exits).toEqual([128 + 9]);
  });

  it("keeps UTF-8 characters whole when their bytes arrive in separate reads", async () => {
    const t = bash();
    t.session.write("printf 'A\\360\\237'; sleep 0.2; printf '\\230\\200B\\303'; sleep 0.2; printf '\\251C\\n'\r");
    const text = await t.until((out) => out.includes("C\n"), "split output");
    expect(text).toContain("A😀BéC");
    expect(text).not.toContain("\ufffd");
  });

  it("coalesces many small writes into few outputs", async () => {
    const t = bash();
    await t.until((text) => text.includes("$ "), "prompt");
    const before = t.outputs.length;
    t.session.write("for i in $(seq 1 3000); do printf a; done; echo; echo done-$((1+1))\r");
    await t.until((text) => text.includes("done-2\n"), "loop end");
    expect(t.text()).toContain("a".repeat(3000));
    const outputs = t.outputs.length - before;
    expect(outputs).toBeLessThan(300);
  });

  it("pause stops reading (the program blocks), resume delivers the rest in order", async () => {
    const t = bash();
    await t.until((text) => text.includes("$ "), "prompt");
    t.session.pause();
    const mark = t.text().length;
    t.session.write("head -c 3000000 /dev/zero | tr '\\0' x; echo; echo end-$((2+3))\r");
    await new Promise((resolve) => setTimeout(resolve, 600));
    // While paused at most the batcher's pending text and the kernel's PTY buffer arrive.
    expect(t.text().length - mark).toBeLessThan(200_000);
    t.session.resume();
    await t.until((text) => text.includes("end-5\n"), "end of the flood", 20_000);
    expect(t.text()).toContain("x".repeat(3_000_000));
  });

  it("paused when the program exits: its last output still arrives, then the exit", async () => {
    const t = bash();
    await t.until((text) => text.includes("$ "), "prompt");
    t.session.pause();
    t.session.write("printf 'y%.0s' {1..2000}; echo; exit 5\r");
    await waitUntil(() => t.exits.length > 0, "exit while paused");
    expect(t.exits).toEqual([5]);
    expect(t.text()).toContain("y".repeat(2000));
  });

  it("end() ends the shell, its foreground child, background jobs and nohup jobs (SIGKILL after the grace)", async () => {
    const t = bash({ killGraceMs: 300 });
    t.session.write("sleep 1000 & echo BG=$!\r");
    t.session.write("nohup sleep 1001 >/dev/null 2>&1 & echo NH=$!\r");
    t.session.write("sh -c 'echo FG=$$; exec sleep 1002'\r");
    const text = await t.until((out) => printedPid(out, "FG") !== null && printedPid(out, "NH") !== null, "pids");
    const pids = [t.session.pid, printedPid(text, "BG"), printedPid(text, "NH"), printedPid(text, "FG")];
    expect(pids.every((pid) => typeof pid === "number" && !isGone(pid))).toBe(true);
    const outputsBefore = t.outputs.length;

    const ended = await t.session.end();
    await waitUntil(() => pids.every((pid) => isGone(pid ?? 0)), `all of ${pids.join(", ")} gone`, 5000);
    expect(ended.hungUp).toBeGreaterThanOrEqual(4);
    expect(ended.killed).toBeGreaterThanOrEqual(1); // nohup ignores SIGHUP
    expect(t.exits).toEqual([]); // no exit reported for an ended terminal
    expect(t.outputs.length).toBe(outputsBefore);
    expect(await t.session.end()).toBe(ended);
  });

  it("a background job left by an exiting shell ends with end()", async () => {
    const t = bash({ killGraceMs: 300 });
    t.session.write("sleep 1000 & echo BG=$!; exit 3\r");
    await waitUntil(() => t.exits.length > 0, "exit");
    const bg = printedPid(t.text(), "BG");
    expect(bg).not.toBeNull();
    expect(t.exits).toEqual([3]);
    await t.session.end();
    await waitUntil(() => isGone(bg ?? 0), `background job ${bg} gone`);
  });
});

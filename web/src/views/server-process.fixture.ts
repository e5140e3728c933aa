/**
 * Test helper: the real Leyline server as a child process (`node --import tsx api/main.ts --port 0`) over
 * temp dirs, for component tests in happy-dom (the backend itself cannot run inside happy-dom). HOME points
 * at a temp home so GET /api/pi/fs browses known folders; LEYLINE_FAUX_RESPONSES scripts the model.
 */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..");

export interface ServerProcess {
  url: string;
  root: string;
  home: string;
  agentDir: string;
  sessionsDir: string;
  stop(): Promise<void>;
}

export interface SessionFileSpec {
  id: string;
  cwd: string;
  /** ISO time of the header and messages. */
  time: string;
  userText: string;
  answer?: string;
  parentSession?: string;
}

/** A version-3 pi session file: header, user message, optional assistant answer. */
export function sessionFileText(spec: SessionFileSpec): string {
  const ms = Date.parse(spec.time);
  const lines: unknown[] = [
    {
      type: "session",
      version: 3,
      id: spec.id,
      timestamp: spec.time,
      cwd: spec.cwd,
      ...(spec.parentSession ? { parentSession: spec.parentSession } : {}),
    },
    {
      type: "message",
      id: `${spec.id.slice(0, 4)}u001`,
      parentId: null,
      timestamp: spec.time,
      message: { role: "user", content: [{ type: "text", text: spec.userText }], timestamp: ms },
    },
  ];
  if (spec.answer !== undefined) {
    const usage = {
      input: 10,
      output: 5,
      cacheRead: 0,
      cacheWrite: 0,
      totalTokens: 15,
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
    };
    lines.push({
      type: "message",
      id: `${spec.id.slice(0, 4)}a001`,
      parentId: `${spec.id.slice(0, 4)}u001`,
      timestamp: spec.time,
      message: {
        role: "assistant",
        content: [{ type: "text", text: spec.answer }],
        api: "faux",
        provider: "faux",
        model: "faux-1",
        usage,
        stopReason: "stop",
        timestamp: ms,
      },
    });
  }
  return `${lines.map((line) => JSON.stringify(line)).join("\n")}\n`;
}

export async function startServerProcess(
  options: { folders?: string[]; sessions?: SessionFileSpec[]; faux?: unknown[] } = {},
): Promise<ServerProcess> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "leyline-web-server-"));
  const home = path.join(root, "home");
  const agentDir = path.join(root, "agent");
  const sessionsDir = path.join(agentDir, "sessions", "--project--");
  fs.mkdirSync(sessionsDir, { recursive: true });
  for (const folder of options.folders ?? []) fs.mkdirSync(path.join(home, folder), { recursive: true });
  fs.mkdirSync(home, { recursive: true });
  for (const spec of options.sessions ?? []) fs.writeFileSync(path.join(sessionsDir, `${spec.id}.jsonl`), sessionFileText(spec));
  const fauxFile = path.join(root, "faux.json");
  fs.writeFileSync(fauxFile, JSON.stringify(options.faux ?? []));

  const child: ChildProcess = spawn(process.execPath, ["--import", "tsx", "api/main.ts", "--port", "0", "--host", "127.0.0.1"], {
    cwd: repoRoot,
    env: {
      ...process.env,
      HOME: home,
      PI_CODING_AGENT_DIR: agentDir,
      LEYLINE_DATA_DIR: path.join(root, "data"),
      LEYLINE_FAUX_RESPONSES: fauxFile,
      PI_OFFLINE: "1",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const match = /Leyline listening on (http:\/\/\S+)/.exec(out);
      if (match?.[1]) resolve(match[1]);
    });
    child.once("exit", (code) => reject(new Error(`server exited (${code}): ${stderr}`)));
  });
  // GET /api/pi/sessions waits for the session index itself: no readiness polling needed.
  return {
    url,
    root,
    home,
    agentDir,
    sessionsDir,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => {
          fs.rmSync(root, { recursive: true, force: true });
          resolve();
        });
        child.kill("SIGTERM");
      }),
  };
}

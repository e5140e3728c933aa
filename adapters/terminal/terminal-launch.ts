/**
 * What a terminal connection starts (spec "Terminal WebSocket"), or the error message it sends instead.
 *
 * - A shell: in the folder of `sessionId` (resolved without opening a runtime or changing the selection:
 *   session-cwd.ts), else of the active runtime. The shell is the server environment's $SHELL when that is an
 *   absolute path to an executable file, else /bin/bash, else /bin/sh; it starts plain (no login, no flags: on a
 *   PTY it is interactive by itself).
 * - An editor terminal: the injected setup (adapters/file-links/editor-terminal.ts) checks the file and the
 *   configured editor and says what to run; its refusal is the error message.
 * Either way the folder must be an existing, enterable directory and the executable must exist, so that a
 * failure is a clear message rather than node-pty's exit 1.
 *
 * Environment: the server's (passed in), with TERM=xterm-256color and COLORTERM=truecolor.
 */
import fs from "node:fs";
import path from "node:path";
import {
  EDITOR_UNAVAILABLE_MESSAGE,
  NO_ACTIVE_SESSION_MESSAGE,
  SESSION_NOT_FOUND_MESSAGE,
  type TerminalRequest,
} from "../../domain/contract/terminal-socket.ts";
import { ServiceError } from "../../domain/service-error.ts";
import { findSessionCwd, type SessionCwdServices } from "../session-resolution/session-cwd.ts";
import type { EditorTerminalSetup, TerminalLaunch } from "./terminal-types.ts";

export interface TerminalLaunchServices extends SessionCwdServices {
  readonly env: NodeJS.ProcessEnv;
  readonly editorTerminal?: EditorTerminalSetup;
}

export type TerminalLaunchResult =
  { readonly ok: true; readonly launch: TerminalLaunch } | { readonly ok: false; readonly message: string };

const FALLBACK_SHELLS = ["/bin/bash", "/bin/sh"];

function isExecutableFile(file: string): boolean {
  try {
    if (!fs.statSync(file).isFile()) return false;
    fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The shell a terminal starts (see the module comment), or null when the machine has none of them. */
export function terminalShell(env: NodeJS.ProcessEnv): string | null {
  const preferred = env["SHELL"];
  const candidates = preferred !== undefined && path.isAbsolute(preferred) ? [preferred, ...FALLBACK_SHELLS] : FALLBACK_SHELLS;
  return candidates.find(isExecutableFile) ?? null;
}

/** `file` as an absolute executable: itself when it has a slash, else looked up on the environment's PATH. */
export function findExecutable(file: string, env: NodeJS.ProcessEnv, cwd: string): string | null {
  if (file.includes("/")) {
    const absolute = path.resolve(cwd, file);
    return isExecutableFile(absolute) ? absolute : null;
  }
  for (const dir of (env["PATH"] ?? "").split(path.delimiter)) {
    if (dir === "" || !path.isAbsolute(dir)) continue;
    const candidate = path.join(dir, file);
    if (isExecutableFile(candidate)) return candidate;
  }
  return null;
}

/** The environment of a terminal's program. */
export function terminalEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) if (value !== undefined) out[name] = value;
  out["TERM"] = "xterm-256color";
  out["COLORTERM"] = "truecolor";
  return out;
}

/** Why `cwd` cannot be a terminal's working directory, or null when it can. */
export async function workingDirectoryProblem(cwd: string): Promise<string | null> {
  let stat: fs.Stats;
  try {
    stat = await fs.promises.stat(cwd);
  } catch {
    return `Working directory not found: ${cwd}`;
  }
  if (!stat.isDirectory()) return `Working directory is not a folder: ${cwd}`;
  try {
    await fs.promises.access(cwd, fs.constants.X_OK);
  } catch {
    return `Working directory cannot be entered: ${cwd}`;
  }
  return null;
}

async function shellCwd(services: TerminalLaunchServices, sessionId: string | null): Promise<TerminalLaunchResult | string> {
  if (sessionId !== null) return (await findSessionCwd(services, sessionId)) ?? { ok: false, message: SESSION_NOT_FOUND_MESSAGE };
  const active = services.host.activeSessionId;
  const handle = active === null ? undefined : services.host.get(active);
  return handle?.cwd ?? { ok: false, message: NO_ACTIVE_SESSION_MESSAGE };
}

async function shellLaunch(services: TerminalLaunchServices, sessionId: string | null): Promise<TerminalLaunchResult> {
  const cwd = await shellCwd(services, sessionId);
  if (typeof cwd !== "string") return cwd;
  const problem = await workingDirectoryProblem(cwd);
  if (problem !== null) return { ok: false, message: problem };
  const shell = terminalShell(services.env);
  if (shell === null) return { ok: false, message: "No shell found (tried $SHELL, /bin/bash, /bin/sh)" };
  return { ok: true, launch: { file: shell, args: [], cwd, shell, env: terminalEnv(services.env) } };
}

async function editorLaunch(
  services: TerminalLaunchServices,
  request: Extract<TerminalRequest, { kind: "editor" }>,
): Promise<TerminalLaunchResult> {
  if (services.editorTerminal === undefined) return { ok: false, message: EDITOR_UNAVAILABLE_MESSAGE };
  let plan;
  try {
    plan = await services.editorTerminal({
      sessionId: request.sessionId,
      editorPath: request.editorPath,
      allowOutsideProject: request.allowOutsideProject,
      ...(request.editorLine !== undefined ? { editorLine: request.editorLine } : {}),
    });
  } catch (error) {
    if (error instanceof ServiceError) return { ok: false, message: error.message };
    throw error;
  }
  if (!plan.ok) return { ok: false, message: plan.error };
  const problem = await workingDirectoryProblem(plan.cwd);
  if (problem !== null) return { ok: false, message: problem };
  const env = terminalEnv(services.env);
  const file = findExecutable(plan.file, env, plan.cwd);
  if (file === null) return { ok: false, message: `Editor not found: ${plan.file}` };
  return { ok: true, launch: { file, args: [...plan.args], cwd: plan.cwd, shell: plan.shell, editorPath: plan.editorPath, env } };
}

/** What to start for a connection's request, or the error message to send (unexpected failures throw). */
export async function resolveTerminalLaunch(services: TerminalLaunchServices, request: TerminalRequest): Promise<TerminalLaunchResult> {
  switch (request.kind) {
    case "invalid":
      return { ok: false, message: request.message };
    case "shell":
      return shellLaunch(services, request.sessionId);
    case "editor":
      return editorLaunch(services, request);
  }
}

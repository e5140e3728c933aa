/**
 * What the file-link adapters need from the app: the session lookup (read side and runtime host, for a session's
 * cwd without opening a runtime), Leyline's data dir (the Files settings file) and the server's environment
 * (EDITOR/VISUAL, PATH, HOME, DISPLAY/WAYLAND_DISPLAY). Also the few facts read from that environment.
 *
 * `env` is the environment the app was built with (process.env in production, a chosen one in tests). PATH falls
 * back to the process's own when `env` has none, so a test environment without PATH still finds system tools;
 * launched programs get the process environment with `env` on top (as the runtime workers do).
 */
import os from "node:os";
import type { SessionCwdServices } from "../session-resolution/session-cwd.ts";

export interface FileLinkServices extends SessionCwdServices {
  /** Leyline's data dir: `<dataDir>/file-settings.json` holds the Files settings. */
  readonly dataDir: string;
  /** The server's environment. */
  readonly env: NodeJS.ProcessEnv;
}

/** The folder `~` names. */
export function homeOf(env: NodeJS.ProcessEnv): string {
  const home = env["HOME"];
  return home !== undefined && home !== "" ? home : os.homedir();
}

/** The PATH programs are looked up in. */
export function searchPathOf(env: NodeJS.ProcessEnv): string {
  return env["PATH"] ?? process.env["PATH"] ?? "";
}

/** The environment of a launched program. */
export function launchEnvOf(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return { ...process.env, ...env };
}

/** Whether a graphical session is there to show a window in (Linux and other Unix desktops). */
export function hasDesktopSession(env: NodeJS.ProcessEnv): boolean {
  return (env["DISPLAY"] ?? "") !== "" || (env["WAYLAND_DISPLAY"] ?? "") !== "";
}

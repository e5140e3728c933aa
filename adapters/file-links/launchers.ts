/**
 * Starting desktop programs for the file links: a desktop editor, and the platform's "show in folder". Always
 * without a shell (the argv goes to execve as is: a `;` or `$HOME` in an argument or a file name is just text),
 * detached from the server, with stdio ignored, and unref'd so the server never waits for it. A launch is
 * reported as done once the process has started; a program that cannot start (missing, not executable, a cwd
 * that is gone) is reported with the system's reason.
 *
 * Reveal: macOS `open -R <file>` (Finder selects it), Windows `explorer.exe /select,<file>`, elsewhere the file's
 * folder opened with `xdg-open` (or `gio open`), only when a desktop session exists (DISPLAY or WAYLAND_DISPLAY).
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { revealLabelFor } from "../../domain/file-links/file-settings.ts";
import { findExecutable } from "./executables.ts";
import { hasDesktopSession, launchEnvOf, searchPathOf } from "./file-link-services.ts";

export interface RevealCommand {
  readonly label: string;
  /** The absolute path of the program (or its name where the platform resolves it). */
  readonly program: string;
  readonly argsFor: (file: string) => string[];
}

export type LaunchResult = { readonly ok: true } | { readonly ok: false; readonly error: string };

/** How this server shows a file in its folder, or null when it cannot. */
export async function findRevealCommand(
  env: NodeJS.ProcessEnv,
  platform: NodeJS.Platform = process.platform,
): Promise<RevealCommand | null> {
  const searchPath = searchPathOf(env);
  if (platform === "darwin") {
    const open = (await findExecutable("open", searchPath)) ?? "/usr/bin/open";
    return {
      label: revealLabelFor(platform, { opener: true, desktopSession: true }) ?? "",
      program: open,
      argsFor: (file) => ["-R", file],
    };
  }
  if (platform === "win32") {
    return {
      label: revealLabelFor(platform, { opener: true, desktopSession: true }) ?? "",
      program: "explorer.exe",
      argsFor: (file) => [`/select,${file}`],
    };
  }
  const desktopSession = hasDesktopSession(env);
  if (!desktopSession) return null;
  const xdgOpen = await findExecutable("xdg-open", searchPath);
  const gio = xdgOpen === null ? await findExecutable("gio", searchPath) : null;
  const label = revealLabelFor(platform, { opener: xdgOpen !== null || gio !== null, desktopSession });
  if (label === null) return null;
  if (xdgOpen !== null) return { label, program: xdgOpen, argsFor: (file) => [path.dirname(file)] };
  if (gio !== null) return { label, program: gio, argsFor: (file) => ["open", path.dirname(file)] };
  return null;
}

/** A folder to start in: `preferred` when it is a folder, else `fallback`. */
export function launchFolder(preferred: string, fallback: string): string {
  try {
    if (fs.statSync(preferred).isDirectory()) return preferred;
  } catch {
    // gone: use the fallback
  }
  return fallback;
}

/** Starts `program` with `args`, detached, no shell; resolves once it started (or could not). */
export function launchDetached(
  program: string,
  args: readonly string[],
  options: { readonly cwd: string; readonly env: NodeJS.ProcessEnv },
): Promise<LaunchResult> {
  return new Promise((resolve) => {
    let child;
    try {
      child = spawn(program, [...args], { cwd: options.cwd, env: launchEnvOf(options.env), detached: true, stdio: "ignore", shell: false });
    } catch (error) {
      resolve({ ok: false, error: error instanceof Error ? error.message : String(error) });
      return;
    }
    child.once("spawn", () => {
      child.unref();
      resolve({ ok: true });
    });
    child.once("error", (error: Error) => resolve({ ok: false, error: error.message }));
  });
}

/**
 * mcp.json values resolved as pi resolves them (headers, stdio `env` entries, `oauth.clientSecret`), so a server
 * Pi Settings checks or signs in to sees what pi's own connection would send.
 *
 * - `${NAME}` and `$NAME` read the environment; an unset or empty variable is an error naming it.
 * - `$$` and `$!` escape a literal `$` and `!`; a `$` before anything else, and `${...}` around something that is
 *   not a variable name, stay as written.
 * - A value starting with `!` is a shell command (ten seconds, cancellable with the action's signal); its trimmed
 *   output is the value, and a failed or empty one is an error.
 *
 * The error messages name the value (`MCP server "docs" header "Authorization"`) and the variable, never its
 * contents or the command's output.
 */
import { exec } from "node:child_process";

const COMMAND_TIMEOUT_MS = 10_000;

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const ENV_NAME_PREFIX = /^[A-Za-z_][A-Za-z0-9_]*/;

/** pi's template resolution: `$$` and `$!` escape, `${NAME}` and `$NAME` read the environment (empty = missing). */
function resolveTemplate(value: string, description: string, env: NodeJS.ProcessEnv): string {
  let out = "";
  const missing: string[] = [];
  let index = 0;
  while (index < value.length) {
    const dollar = value.indexOf("$", index);
    if (dollar < 0) {
      out += value.slice(index);
      break;
    }
    out += value.slice(index, dollar);
    const next = value[dollar + 1];
    let name: string | undefined;
    if (next === "$" || next === "!") {
      out += next;
      index = dollar + 2;
      continue;
    } else if (next === "{" && value.indexOf("}", dollar + 2) >= 0) {
      const end = value.indexOf("}", dollar + 2);
      const inner = value.slice(dollar + 2, end);
      index = end + 1;
      if (!ENV_NAME.test(inner)) {
        out += value.slice(dollar, end + 1);
        continue;
      }
      name = inner;
    } else {
      name = ENV_NAME_PREFIX.exec(value.slice(dollar + 1))?.[0];
      index = dollar + 1 + (name?.length ?? 0);
      if (name === undefined) {
        out += "$";
        continue;
      }
    }
    const resolved = env[name];
    if (resolved) out += resolved;
    else if (!missing.includes(name)) missing.push(name);
  }
  if (missing.length === 1) throw new Error(`Failed to resolve ${description} from environment variable: ${missing[0]}`);
  if (missing.length > 1) throw new Error(`Failed to resolve ${description} from environment variables: ${missing.join(", ")}`);
  return out;
}

/** pi's value resolution: a `!command` runs in the shell (10 s, cancellable) and yields its trimmed output. */
export async function resolveConfigValue(value: string, description: string, env: NodeJS.ProcessEnv, signal: AbortSignal): Promise<string> {
  if (!value.startsWith("!")) return resolveTemplate(value, description, env);
  const output = await new Promise<string>((resolve) => {
    const child = exec(value.slice(1), { env, timeout: COMMAND_TIMEOUT_MS, signal, encoding: "utf8" }, (error, stdout) =>
      resolve(error ? "" : stdout.trim()),
    );
    // As pi: the command reads no input (one reading stdin gets end-of-file at once instead of waiting 10 s).
    child.stdin?.end();
  });
  signal.throwIfAborted();
  if (output === "") throw new Error(`Failed to resolve ${description} from its shell command.`);
  return output;
}

/**
 * The subagent extension's client of Leyline's execution route, POST `${LEYLINE_API_URL}/api/pi/subagent`
 * (spec/api-reference.md "POST /api/pi/subagent"): it runs one child session to completion and answers its
 * messages. The route waits for the child, which can take many minutes, so the request goes through node:http
 * without any timeout (fetch's default 300 s headers timeout would cut long runs); an abort signal destroys
 * the request, and the server aborts the child run when the connection closes.
 */
import http from "node:http";
import https from "node:https";
import { isRecord } from "../../domain/research/research-normalize.ts";
import type { SubagentChildSession, SubagentResult } from "../../domain/subagent/subagent-result.ts";

/** Environment variable holding the base URL of the Leyline server that runs this worker. */
export const LEYLINE_API_URL_ENV = "LEYLINE_API_URL";

export const SUBAGENT_ROUTE = "/api/pi/subagent";

export interface SubagentRequest {
  task: string;
  cwd: string;
  parentSessionPath?: string;
  parentSessionId?: string;
  _toolCallId?: string;
  model?: string | { provider: string; id: string };
  thinkingLevel?: string;
  tools?: string[];
  excludeTools?: string[];
  systemPrompt?: string;
  /** The child may only run bash commands that change no file (the researcher). */
  readOnlyBash?: boolean;
  /** The agent name the child runs as. */
  agent?: string;
}

export type { SubagentChildSession, SubagentUsage } from "../../domain/subagent/subagent-result.ts";

/** The route's answer as the extension reads it (an `errorMessage` may come along with a failed child). */
export type SubagentResponse = SubagentResult & { errorMessage?: string };

/** A failed request: the route's `{ error }` text, a transport failure, or an abort. */
export class SubagentRequestError extends Error {
  override readonly name = "SubagentRequestError";
  constructor(
    message: string,
    readonly status: number | null,
  ) {
    super(message);
  }
}

/** The route's status for a run cut because the server is stopping (api/subagent.routes.ts). */
export const SUBAGENT_STOPPING_STATUS = 503;

/** True for a failed request that the server answered "stopping": the run was interrupted, not failed. */
export function isServerStopping(error: unknown): boolean {
  return error instanceof SubagentRequestError && error.status === SUBAGENT_STOPPING_STATUS;
}

/** True when LEYLINE_API_URL is set (the extension runs inside Leyline and can run subagents). */
export function hasLeylineApiUrl(env: NodeJS.ProcessEnv = process.env): boolean {
  return (env[LEYLINE_API_URL_ENV]?.trim() ?? "") !== "";
}

/** The base URL of the Leyline server from the environment; throws when the extension runs outside Leyline. */
export function leylineApiUrl(env: NodeJS.ProcessEnv = process.env): string {
  const value = env[LEYLINE_API_URL_ENV]?.trim();
  if (!value) throw new SubagentRequestError(`${LEYLINE_API_URL_ENV} is not set: subagents run only inside Leyline`, null);
  return value.replace(/\/+$/, "");
}

/** POSTs JSON to `${baseUrl}${route}` and resolves the parsed 2xx body; anything else rejects. */
export function postJson(baseUrl: string, route: string, body: unknown, signal?: AbortSignal): Promise<unknown> {
  const url = new URL(`${baseUrl}${route}`);
  const payload = Buffer.from(JSON.stringify(body), "utf8");
  const client = url.protocol === "https:" ? https : http;
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(new SubagentRequestError("Subagent run aborted", null));
      return;
    }
    const request = client.request(
      url,
      {
        method: "POST",
        headers: { "content-type": "application/json", "content-length": String(payload.length) },
        ...(signal ? { signal } : {}),
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("error", (error) => reject(transportError(error, signal)));
        response.on("end", () => {
          const status = response.statusCode ?? 0;
          const text = Buffer.concat(chunks).toString("utf8");
          let parsed: unknown;
          try {
            parsed = text === "" ? null : JSON.parse(text);
          } catch {
            parsed = null;
          }
          if (status >= 200 && status < 300) {
            resolve(parsed);
            return;
          }
          const message =
            isRecord(parsed) && typeof parsed["error"] === "string"
              ? parsed["error"]
              : `HTTP ${status}${text ? `: ${text.slice(0, 500)}` : ""}`;
          reject(new SubagentRequestError(message, status));
        });
      },
    );
    request.on("error", (error) => reject(transportError(error, signal)));
    request.end(payload);
  });
}

function transportError(error: Error, signal: AbortSignal | undefined): SubagentRequestError {
  if (signal?.aborted) return new SubagentRequestError("Subagent run aborted", null);
  return new SubagentRequestError(`Subagent request failed: ${error.message}`, null);
}

/** Runs one child through the execution route. */
export async function runSubagentRequest(
  request: SubagentRequest,
  signal?: AbortSignal,
  baseUrl = leylineApiUrl(),
): Promise<SubagentResponse> {
  const body = await postJson(baseUrl, SUBAGENT_ROUTE, request, signal);
  const response = parseSubagentResponse(body);
  if (response === null) throw new SubagentRequestError("The subagent route answered an unexpected body", 200);
  return response;
}

/** The response body, checked; null when it is not a subagent response. */
export function parseSubagentResponse(body: unknown): SubagentResponse | null {
  if (!isRecord(body)) return null;
  const child = body["childSession"];
  if (!isRecord(child)) return null;
  const childSession: SubagentChildSession = { path: str(child["path"]), id: str(child["id"]), cwd: str(child["cwd"]) };
  const messages = Array.isArray(body["messages"])
    ? body["messages"].flatMap((m) =>
        isRecord(m) && typeof m["role"] === "string" ? [{ role: m["role"], content: str(m["content"]) }] : [],
      )
    : [];
  const usage = isRecord(body["usage"]) ? body["usage"] : {};
  return {
    childSession,
    messages,
    usage: {
      inputTokens: num(usage["inputTokens"]),
      outputTokens: num(usage["outputTokens"]),
      totalTokens: num(usage["totalTokens"]),
      cost: num(usage["cost"]),
      turns: num(usage["turns"]),
    },
    ...optional("model", body["model"]),
    ...optional("thinkingLevel", body["thinkingLevel"]),
    ...optional("stopReason", body["stopReason"]),
    ...optional("errorMessage", body["errorMessage"]),
  };
}

/** The text of the child's last assistant message ("" when it has none). */
export function finalOutput(response: Pick<SubagentResponse, "messages">): string {
  for (let i = response.messages.length - 1; i >= 0; i--) {
    const message = response.messages[i];
    if (message?.role === "assistant") return message.content;
  }
  return "";
}

function str(value: unknown): string {
  return typeof value === "string" ? value : "";
}

function num(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) ? value : 0;
}

function optional<K extends string>(key: K, value: unknown): Partial<Record<K, string>> {
  return typeof value === "string" && value !== "" ? ({ [key]: value } as Partial<Record<K, string>>) : {};
}

/**
 * The client's HTTP wrapper for the Leyline API: JSON in and out, and one error type. The server answers
 * errors as `{ "error": string }` (spec "Conventions and status behavior"); any non-2xx answer becomes
 * `ApiError(status, message)` with that text, so the UI can show what went wrong in words. A request that
 * never reached the server (network down, server stopped) is `ApiError(0, ...)`.
 */

export class ApiError extends Error {
  override readonly name = "ApiError";
  constructor(
    /** HTTP status; 0 when the request did not reach the server. */
    readonly status: number,
    message: string,
    /** The request, for logs and messages ("POST /api/pi/sessions"). */
    readonly request = "",
  ) {
    super(message);
  }
}

export type QueryValue = string | number | boolean | null | undefined;

export interface RequestOptions {
  body?: unknown;
  query?: Record<string, QueryValue>;
  signal?: AbortSignal;
}

let base = "";

/**
 * The selected backend's base URL: "" = the page's own origin (the native backend); a saved connection's URL
 * (scheme, host, port and base path) when this window talks to another Leyline backend.
 */
export function setApiBase(url: string): void {
  base = url.replace(/\/+$/, "");
}

export function apiBase(): string {
  return base;
}

function withQuery(root: string, path: string, query: Record<string, QueryValue>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === null) continue;
    params.set(key, String(value));
  }
  const search = params.toString();
  return `${root}${path}${search === "" ? "" : `?${search}`}`;
}

/** `path` under the selected backend's base with the defined query values encoded. */
export function apiUrl(path: string, query: Record<string, QueryValue> = {}): string {
  return withQuery(base, path, query);
}

/**
 * `path` on the native backend (the page's own origin), whichever backend the window selected: the connection
 * registry, app settings, network access and pins live there (spec "Connection registry").
 */
export function nativeUrl(path: string, query: Record<string, QueryValue> = {}): string {
  return withQuery(nativeBase, path, query);
}

let nativeBase = "";

/** Tests outside a browser page: the native backend's origin ("" = the page's own origin, always in the app). */
export function setNativeBase(url: string): void {
  nativeBase = url.replace(/\/+$/, "");
}

function errorText(body: unknown): string | null {
  if (typeof body === "object" && body !== null && "error" in body) {
    const error = (body as { error: unknown }).error;
    if (typeof error === "string" && error.trim() !== "") return error;
  }
  return null;
}

async function readBody(response: Response): Promise<unknown> {
  const text = await response.text();
  if (text === "") return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** One request to the selected backend. Resolves with the parsed JSON body; rejects with ApiError (or the abort error). */
export function request<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
  return send<T>(apiUrl(path, options.query), method, path, options);
}

/** One request to the native backend (see nativeUrl). */
export function nativeRequest<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
  return send<T>(nativeUrl(path, options.query), method, path, options);
}

async function send<T>(url: string, method: string, path: string, options: RequestOptions): Promise<T> {
  const label = `${method} ${path}`;
  const headers: Record<string, string> = { accept: "application/json" };
  const init: RequestInit = { method, headers };
  if (options.body !== undefined) {
    headers["content-type"] = "application/json";
    init.body = JSON.stringify(options.body);
  }
  if (options.signal) init.signal = options.signal;
  let response: Response;
  try {
    response = await fetch(url, init);
  } catch (error) {
    if (options.signal?.aborted) throw error;
    const detail = error instanceof Error && error.message ? ` (${error.message})` : "";
    throw new ApiError(0, `The backend cannot be reached${detail}.`, label);
  }
  const body = await readBody(response);
  if (!response.ok) {
    const text = errorText(body) ?? (typeof body === "string" && body.length < 200 && body.trim() !== "" ? body : null);
    throw new ApiError(
      response.status,
      text ?? `${label} answered ${response.status}${response.statusText ? ` ${response.statusText}` : ""}.`,
      label,
    );
  }
  return body as T;
}

export const http = {
  get: <T>(path: string, options?: Omit<RequestOptions, "body">) => request<T>("GET", path, options),
  post: <T>(path: string, body?: unknown, options?: Omit<RequestOptions, "body">) =>
    request<T>("POST", path, { ...options, body: body ?? {} }),
  patch: <T>(path: string, body?: unknown, options?: Omit<RequestOptions, "body">) =>
    request<T>("PATCH", path, { ...options, body: body ?? {} }),
  delete: <T>(path: string, options?: Omit<RequestOptions, "body">) => request<T>("DELETE", path, options),
};

/** The native backend's routes (/api/leyline/...), whatever backend the window selected. */
export const nativeHttp = {
  get: <T>(path: string, options?: Omit<RequestOptions, "body">) => nativeRequest<T>("GET", path, options),
  post: <T>(path: string, body?: unknown, options?: Omit<RequestOptions, "body">) =>
    nativeRequest<T>("POST", path, { ...options, body: body ?? {} }),
  put: <T>(path: string, body?: unknown, options?: Omit<RequestOptions, "body">) =>
    nativeRequest<T>("PUT", path, { ...options, body: body ?? {} }),
  patch: <T>(path: string, body?: unknown, options?: Omit<RequestOptions, "body">) =>
    nativeRequest<T>("PATCH", path, { ...options, body: body ?? {} }),
  delete: <T>(path: string, options?: Omit<RequestOptions, "body">) => nativeRequest<T>("DELETE", path, options),
};

/** Words for an error of any kind, for banners and toasts. */
export function errorMessage(error: unknown): string {
  if (error instanceof ApiError) return error.message;
  if (error instanceof Error) return error.message || error.name;
  return String(error);
}

/** Whether an error is a request that was aborted on purpose (a newer request replaced it). */
export function isAbort(error: unknown): boolean {
  return error instanceof Error && error.name === "AbortError";
}

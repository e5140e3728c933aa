/**
 * What the client knows about a backend: the GET /api/pi/info answer (spec "Backend information"), checked
 * at runtime because a saved backend may be another program or another version.
 */
export const EXPECTED_BACKEND_NAME = "Leyline";
export const EXPECTED_API_VERSION = 2;

export const CAPABILITY_NAMES = [
  "events",
  "exports",
  "research",
  "review",
  "reviewWatch",
  "terminal",
  "fileLinks",
  "sessionTree",
  "fullTextSearch",
  "piSettings",
  "tracing",
] as const;

export type CapabilityName = (typeof CAPABILITY_NAMES)[number];

export interface BackendInfo {
  name: string;
  version: string;
  apiVersion: number;
  capabilities: Record<CapabilityName, boolean>;
}

/** Human labels for the capability list. */
export const CAPABILITY_LABELS: Record<CapabilityName, string> = {
  events: "Live runtime events",
  exports: "Session export",
  research: "Deep research",
  review: "Git review",
  reviewWatch: "Automatic review stream",
  terminal: "Terminal",
  fileLinks: "Local file actions",
  sessionTree: "Session tree",
  fullTextSearch: "Full-text search",
  piSettings: "Models, providers & MCP settings",
  tracing: "Tracing",
};

export type BackendCheck = { ok: true; info: BackendInfo } | { ok: false; reason: string; info?: BackendInfo };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Decodes an /api/pi/info body and decides whether this client can use the backend. Missing flags are false. */
export function checkBackendInfo(body: unknown): BackendCheck {
  if (!isRecord(body)) return { ok: false, reason: "The backend did not answer with a JSON object." };
  const { name, version, apiVersion, capabilities } = body;
  if (typeof name !== "string" || typeof version !== "string" || typeof apiVersion !== "number") {
    return { ok: false, reason: "The backend's answer has no name, version or apiVersion." };
  }
  const flags = isRecord(capabilities) ? capabilities : {};
  const info: BackendInfo = {
    name,
    version,
    apiVersion,
    capabilities: Object.fromEntries(CAPABILITY_NAMES.map((key) => [key, flags[key] === true])) as Record<CapabilityName, boolean>,
  };
  if (name !== EXPECTED_BACKEND_NAME) return { ok: false, reason: `This is not a Leyline backend (name "${name}").`, info };
  if (apiVersion !== EXPECTED_API_VERSION) {
    return { ok: false, reason: `The backend speaks API version ${apiVersion}; this client needs ${EXPECTED_API_VERSION}.`, info };
  }
  return { ok: true, info };
}

/**
 * GET /api/pi/info: the backend identity the client checks before it selects a backend (spec: "Backend
 * information"). The client rejects a backend whose `name` or `apiVersion` differs from what it expects.
 */
import type { FastifyPluginAsync } from "fastify";
import { backendInfo as contract } from "../domain/contract/http-service.ts";

/**
 * The one place that says which optional features this backend serves. Each flag flips to `true` in the
 * change that lands its routes (and its tests); the client hides a feature whose flag is false.
 */
export const CAPABILITIES = {
  /** WS /api/pi/events (runtime roster, runtime events, extension UI). */
  events: true,
  /** Session export routes (GET /api/pi/sessions/:id/export). */
  exports: true,
  /** Deep research sessions (the research control). */
  research: true,
  /** Git review routes. */
  review: true,
  /** The automatic Git review stream. */
  reviewWatch: true,
  /** The browser terminal (node-pty over WebSocket). */
  terminal: true,
  /** Local file actions and the Files settings section. */
  fileLinks: true,
  /** The session tree (GET .../tree and .../branch, navigate, labels): Leyline's addition. */
  sessionTree: true,
  /** Full-text search over every message of every session (GET /api/pi/search): Leyline's addition. */
  fullTextSearch: true,
  /** Models & providers and MCP server settings. */
  piSettings: true,
  /** Trace capture and trace views. */
  tracing: true,
} as const satisfies Record<string, boolean>;

export type CapabilityName = keyof typeof CAPABILITIES;

export const BACKEND_NAME = "Leyline";
export const API_VERSION = 2;

export interface BackendInfo {
  name: typeof BACKEND_NAME;
  version: string;
  apiVersion: typeof API_VERSION;
  capabilities: Record<CapabilityName, boolean>;
}

export interface InfoRoutesOptions {
  /** Leyline's version (package.json). */
  version: string;
}

export function backendInfo(version: string): BackendInfo {
  return { name: BACKEND_NAME, version, apiVersion: API_VERSION, capabilities: { ...CAPABILITIES } };
}

export const infoRoutes: FastifyPluginAsync<InfoRoutesOptions> = async (app, options) => {
  const info = backendInfo(options.version);
  app.get(contract.url, { schema: contract.schema }, async () => info);
};

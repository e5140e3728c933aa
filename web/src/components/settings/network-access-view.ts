/**
 * The words and checks of Settings › Network access (NetworkAccessPanel.vue), apart from Vue: reading the port
 * field, deciding what Apply sends, and describing the sharing state (spec "Network access"). Pure: no DOM, no
 * requests.
 *
 * Rules kept:
 * - A port is a whole number from 0 through 65535 written in digits (0 = chosen automatically); anything else is
 *   refused here with a message, before a request is sent.
 * - Apply sends `{ port }` only when the port differs from the saved one.
 */
import type { NetworkAccess } from "../../api/network-access.ts";

export const PORT_MAX = 65535;

export type PortReading = { ok: true; port: number } | { ok: false; message: string };

/** The port field's text as a port, or why it is not one. */
export function readPort(text: string): PortReading {
  const trimmed = text.trim();
  if (trimmed === "") return { ok: false, message: `Enter a port from 0 to ${PORT_MAX} (0 picks a free port automatically).` };
  if (!/^\d+$/.test(trimmed)) return { ok: false, message: `The port must be a whole number from 0 to ${PORT_MAX}.` };
  const port = Number(trimmed);
  if (port > PORT_MAX) return { ok: false, message: `The port must be from 0 to ${PORT_MAX}; ${trimmed} is too large.` };
  return { ok: true, port };
}

/** What Apply does with the field's text: refuse it, nothing (same as saved), or send `{ port }`. */
export type PortApply = { kind: "invalid"; message: string } | { kind: "unchanged" } | { kind: "send"; port: number };

export function portApply(text: string, configuredPort: number): PortApply {
  const reading = readPort(text);
  if (!reading.ok) return { kind: "invalid", message: reading.message };
  return reading.port === configuredPort ? { kind: "unchanged" } : { kind: "send", port: reading.port };
}

/** The saved port in words. */
export function savedPortLabel(configuredPort: number): string {
  return configuredPort === 0 ? "Automatic" : String(configuredPort);
}

/** One line on the state of sharing, beside the switch. */
export function sharingSummary(state: NetworkAccess): string {
  if (state.enabled) {
    const port = state.port === null ? "" : ` on port ${state.port}`;
    return `On: shared${port}${state.configuredPort === 0 && state.port !== null ? " (chosen automatically)" : ""}.`;
  }
  return state.available ? "Off: not shared on the network." : "Off: sharing is not available.";
}

/** What to say when sharing is on but no address to share was found (null otherwise). */
export function noAddressNote(state: NetworkAccess): string | null {
  if (!state.enabled || state.urls.length > 0) return null;
  const port = state.port === null ? "its port" : `port ${state.port}`;
  return `No network address was found for this computer. Sharing listens on ${port}: use this computer's address with that port.`;
}

/** A request the panel is running. */
export type NetworkOperation = "load" | "enable" | "disable" | "port";

/** The progress words of a running request. */
export function operationLabel(operation: NetworkOperation): string {
  switch (operation) {
    case "load":
      return "Reading the sharing state…";
    case "enable":
      return "Turning sharing on…";
    case "disable":
      return "Turning sharing off…";
    case "port":
      return "Applying the port…";
  }
}

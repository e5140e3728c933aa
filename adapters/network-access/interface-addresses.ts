/**
 * The machine's network interface addresses (os.networkInterfaces(), flattened) as the network-access rules read
 * them. The table is a parameter so tests inject documentation addresses and never depend on the machine's own.
 */
import os from "node:os";
import type { InterfaceAddress } from "../../domain/native-app/network-access.ts";

/** One entry of os.networkInterfaces() (Node 18.0 to 18.3 reported `family` as a number). */
export interface InterfaceEntry {
  readonly address: string;
  readonly family: string | number;
  readonly internal: boolean;
}

/** The shape of os.networkInterfaces(). */
export type InterfaceTable = Readonly<Record<string, readonly InterfaceEntry[] | undefined>>;

/** Every IPv4 and IPv6 address of `table` (IPv6 without a zone suffix). */
export function interfaceAddresses(table: InterfaceTable): InterfaceAddress[] {
  const out: InterfaceAddress[] = [];
  for (const entries of Object.values(table)) {
    for (const entry of entries ?? []) {
      const family = entry.family === "IPv4" || entry.family === 4 ? "IPv4" : entry.family === "IPv6" || entry.family === 6 ? "IPv6" : null;
      if (family === null) continue;
      out.push({ address: entry.address.split("%", 1)[0] ?? entry.address, family, internal: entry.internal });
    }
  }
  return out;
}

/** os.networkInterfaces(), or none where the platform refuses to list them (some sandboxes throw). */
export function systemInterfaces(): InterfaceTable {
  try {
    return os.networkInterfaces();
  } catch {
    return {};
  }
}

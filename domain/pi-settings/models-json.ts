/**
 * Reading a parsed models.json defensively (it is the person's file): its provider entries and an entry's
 * custom model ids, with anything of another shape left out. Shared by the inventory, keyless providers and
 * the catalog view of the edit rules.
 */
import { isRecord } from "../transcript/message-content.ts";

export type ProviderEntryJson = Record<string, unknown>;

/** The `providers` object of a parsed models.json (an empty one for anything else). */
export function modelsJsonProviders(config: unknown): Record<string, ProviderEntryJson> {
  const providers = isRecord(config) ? config["providers"] : undefined;
  if (!isRecord(providers)) return {};
  return Object.fromEntries(Object.entries(providers).filter((entry): entry is [string, ProviderEntryJson] => isRecord(entry[1])));
}

/** The ids of a models.json provider entry's custom model definitions. */
export function customModelIds(entry: ProviderEntryJson | undefined): Set<string> {
  const models = entry?.["models"];
  if (!Array.isArray(models)) return new Set();
  return new Set(models.filter(isRecord).flatMap((model) => (typeof model["id"] === "string" ? [model["id"]] : [])));
}

/**
 * Custom providers without a key (a local OpenAI-compatible server: Ollama, llama.cpp, vLLM, LM Studio) are
 * usable without storing a placeholder key (spec "Provider configuration": "Omitting a key does not hide a saved
 * custom compatible model, and no placeholder key needs to be stored").
 *
 * pi 1.6 counts a provider as configured only with some credential (its docs suggest a dummy `apiKey`). Leyline
 * gives such a provider a runtime key instead, in memory, in every ModelRuntime it builds (the settings runtime,
 * conversation workers, state previews): `setRuntimeApiKey`, never written anywhere. It applies only to a
 * models.json provider that pi does not know otherwise (not built-in), with a base URL, no `apiKey`, no headers,
 * and no credential pi can find (auth.json, environment): a stored key always wins, because the runtime key is
 * set only while none is configured.
 */
import * as fs from "node:fs";
import type { ModelRuntime } from "@earendil-works/pi-coding-agent";
import { parseJsoncDocument } from "../../domain/pi-settings/jsonc-document.ts";
import { isRecord } from "../../domain/transcript/message-content.ts";
import { modelsJsonProviders } from "../../domain/pi-settings/models-json.ts";

/** The runtime key of a keyless provider (local servers ignore it; pi sends it as the bearer token). */
export const KEYLESS_RUNTIME_KEY = "leyline-no-key";

const keylessOf = new WeakMap<ModelRuntime, ReadonlySet<string>>();

/** The models.json providers that qualify (see the module comment), from the file's text. */
export function keylessCandidates(text: string, builtinIds: ReadonlySet<string>): string[] {
  const parsed = parseJsoncDocument(text, "jsonc", "models.json");
  if (!parsed.ok) return [];
  return Object.entries(modelsJsonProviders(parsed.value)).flatMap(([id, entry]) => {
    if (builtinIds.has(id)) return [];
    const hasKey = typeof entry["apiKey"] === "string" && entry["apiKey"] !== "";
    const hasHeaders = isRecord(entry["headers"]) && Object.keys(entry["headers"]).length > 0;
    const hasUrl = typeof entry["baseUrl"] === "string" && entry["baseUrl"] !== "";
    return hasUrl && !hasKey && !hasHeaders && entry["oauth"] === undefined ? [id] : [];
  });
}

/** Gives each qualifying provider of `runtime` its runtime key; returns their ids. */
export async function applyKeylessProviders(runtime: ModelRuntime, text: string, builtinIds: ReadonlySet<string>): Promise<string[]> {
  const applied: string[] = [];
  for (const id of keylessCandidates(text, builtinIds)) {
    if (runtime.getProvider(id) === undefined || runtime.hasConfiguredAuth(id)) continue;
    await runtime.setRuntimeApiKey(id, KEYLESS_RUNTIME_KEY);
    applied.push(id);
  }
  keylessOf.set(runtime, new Set(applied));
  return applied;
}

/** As above, reading models.json from its path (a missing or unreadable file: nothing to do). */
export async function applyKeylessProvidersFromFile(
  runtime: ModelRuntime,
  modelsPath: string,
  builtinIds: ReadonlySet<string>,
): Promise<string[]> {
  let text: string;
  try {
    text = fs.readFileSync(modelsPath, "utf8");
  } catch {
    return [];
  }
  return applyKeylessProviders(runtime, text, builtinIds);
}

/** Whether `providerId` runs on the keyless runtime key in `runtime`. */
export function isKeyless(runtime: ModelRuntime, providerId: string): boolean {
  return keylessOf.get(runtime)?.has(providerId) === true;
}

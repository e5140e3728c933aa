/**
 * The rules of PUT and DELETE /api/pi/settings/providers and /api/pi/settings/models (spec "Provider
 * configuration", "Model definitions and overrides") as pure functions from models.json's text to its new text.
 * The routes' service reads the file (a missing file is empty text), checks the revision, calls one of these, and
 * writes the text back atomically; these never touch the file, the clock or the runtime.
 *
 * Edits go through jsonc-edit.ts, so comments, formatting and every field the editor does not know survive;
 * only the named values change. After an edit, an override left empty is removed, an emptied `modelOverrides` goes
 * with it, and a provider entry with nothing left but empty `models`/`modelOverrides` is removed.
 *
 * Status choices where the spec names none: a create that collides with existing configuration (a provider that
 * exists, a model the catalog already has, a custom model that exists, an override of a custom model) is 409, like
 * a duplicate; a custom model on a provider without its own baseUrl and api in models.json is 409 too (the stored
 * configuration, not the request, is what is missing); a new override of a model the catalog lacks is 404.
 */
import { parseJsoncDocument } from "./jsonc-document.ts";
import { editJsoncDocument } from "./jsonc-edit.ts";
import type { JsoncEdit } from "./jsonc-edit.ts";
import {
  COST_RATES,
  THINKING_LEVELS,
  isPlainObject,
  validateModelValues,
  validateProviderValues,
  validateSettingsId,
} from "./models-config-validation.ts";
import type { EditFailureCode, ModelCostInput, ModelKind, ModelValues, ProviderValues } from "./models-config-validation.ts";

export {
  SUPPORTED_APIS,
  validateBaseUrl,
  validateModelValues,
  validateProviderValues,
  validateSettingsId,
} from "./models-config-validation.ts";
export type {
  EditFailureCode,
  ModelCostInput,
  ModelKind,
  ModelValues,
  ProviderValues,
  ThinkingLevelMapInput,
} from "./models-config-validation.ts";

export type ModelsEditResult = { ok: true; text: string } | { ok: false; code: EditFailureCode; message: string };

export interface ProviderEditRequest {
  id: string;
  create: boolean;
  values: ProviderValues;
}

export interface ModelEditRequest {
  providerId: string;
  modelId: string;
  kind: ModelKind;
  create: boolean;
  values: ModelValues;
}

export interface ModelDeleteRequest {
  providerId: string;
  modelId: string;
  kind: ModelKind;
}

export interface CatalogCost {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

/** What the runtime knows besides models.json (built-in and extension providers), so the rules can tell catalog models from custom ones. */
export interface CatalogView {
  provider(id: string): { models: ReadonlyArray<{ id: string; cost?: CatalogCost }> } | undefined;
}

export const RADIUS_MESSAGE =
  "Radius gateway URLs cannot be changed here: pi keeps the cached gateway URL after a reload. Use a different provider ID for a different gateway.";

type JsonObject = Record<string, unknown>;
type Path = ReadonlyArray<string | number>;
type Failure = { ok: false; code: EditFailureCode; message: string };

/** A provider's models.json entry, its shape checked. */
interface ProviderEntry {
  value: JsonObject;
  models: unknown[] | undefined;
  overrides: JsonObject | undefined;
}

const LABEL = "models.json";

function fail(code: EditFailureCode, message: string): Failure {
  return { ok: false, code, message };
}

function own(object: JsonObject | undefined, key: string): unknown {
  return object !== undefined && Object.hasOwn(object, key) ? object[key] : undefined;
}

function providerPath(providerId: string): Path {
  return ["providers", providerId];
}

// ---- reading ------------------------------------------------------------------------------------------------

/** The stored providers object (undefined when the file has none), or 409 for a file pi could not use. */
function readProviders(text: string): { ok: true; providers: JsonObject | undefined } | Failure {
  const parsed = parseJsoncDocument(text, "jsonc", LABEL);
  if (!parsed.ok) return fail("conflict", parsed.message);
  if (!isPlainObject(parsed.value)) return fail("conflict", `${LABEL} is not valid: the top level must be an object`);
  const providers = own(parsed.value, "providers");
  if (providers !== undefined && !isPlainObject(providers)) return fail("conflict", `${LABEL} is not valid: "providers" must be an object`);
  return { ok: true, providers };
}

/** A provider's entry (undefined when models.json has none), or 409 when the entry's own shape is broken. */
function readEntry(text: string, providerId: string): { ok: true; entry: ProviderEntry | undefined } | Failure {
  const read = readProviders(text);
  if (!read.ok) return read;
  const value = own(read.providers, providerId);
  if (value === undefined) return { ok: true, entry: undefined };
  const where = `${LABEL} is not valid: provider ${JSON.stringify(providerId)}`;
  if (!isPlainObject(value)) return fail("conflict", `${where} must be an object`);
  const models = own(value, "models");
  if (models !== undefined && !Array.isArray(models)) return fail("conflict", `${where} has "models" that is not an array`);
  const overrides = own(value, "modelOverrides");
  if (overrides !== undefined && !isPlainObject(overrides)) return fail("conflict", `${where} has "modelOverrides" that is not an object`);
  return { ok: true, entry: { value, models, overrides } };
}

/** The APIs already used on a provider: its own and its custom models'. */
function apisOf(entry: ProviderEntry | undefined): string[] {
  const apis = [own(entry?.value, "api"), ...(entry?.models ?? []).map((model) => (isPlainObject(model) ? own(model, "api") : undefined))];
  return apis.filter((api): api is string => typeof api === "string");
}

function isRadius(providerId: string, entry: ProviderEntry | undefined): boolean {
  return providerId === "radius" || own(entry?.value, "oauth") === "radius";
}

/** Indexes of the custom definitions of a model (pi lets the last one win; several are unusual). */
function customIndexes(entry: ProviderEntry | undefined, modelId: string): number[] {
  const indexes: number[] = [];
  (entry?.models ?? []).forEach((model, index) => {
    if (isPlainObject(model) && own(model, "id") === modelId) indexes.push(index);
  });
  return indexes;
}

/** A provider entry with nothing left but empty `models` or `modelOverrides`. */
function isOtherwiseEmpty(entry: JsonObject): boolean {
  return Object.entries(entry).every(
    ([key, value]) =>
      (key === "models" && Array.isArray(value) && value.length === 0) ||
      (key === "modelOverrides" && isPlainObject(value) && Object.keys(value).length === 0),
  );
}

// ---- writing ------------------------------------------------------------------------------------------------

function edit(text: string, edits: ReadonlyArray<JsoncEdit>): string {
  return edits.length === 0 ? text : editJsoncDocument(text, edits, "jsonc");
}

/**
 * Removes what an edit left empty on one provider: the model's override (when `overridesOf` names it), then an
 * emptied `modelOverrides`, then an otherwise empty provider entry. Each step reads the edited text again.
 */
function tidy(text: string, providerId: string, overridesOf?: string): string {
  let current = text;
  const entryAt = (): JsonObject | undefined => {
    const read = readProviders(current);
    const entry = read.ok ? own(read.providers, providerId) : undefined;
    return isPlainObject(entry) ? entry : undefined;
  };
  if (overridesOf !== undefined) {
    const overrides = own(entryAt(), "modelOverrides");
    const override = isPlainObject(overrides) ? own(overrides, overridesOf) : undefined;
    if (isPlainObject(override) && Object.keys(override).length === 0) {
      current = edit(current, [{ path: [...providerPath(providerId), "modelOverrides", overridesOf], value: undefined }]);
    }
    const remaining = own(entryAt(), "modelOverrides");
    if (isPlainObject(remaining) && Object.keys(remaining).length === 0) {
      current = edit(current, [{ path: [...providerPath(providerId), "modelOverrides"], value: undefined }]);
    }
  }
  const entry = entryAt();
  if (entry && isOtherwiseEmpty(entry)) current = edit(current, [{ path: providerPath(providerId), value: undefined }]);
  return current;
}

// ---- providers ----------------------------------------------------------------------------------------------

/** PUT /api/pi/settings/providers: create a custom provider, or change fields of a configured or runtime provider. */
export function editProvider(text: string, request: ProviderEditRequest, catalog: CatalogView): ModelsEditResult {
  const { id, create, values } = request;
  const idProblem = validateSettingsId(id, "provider");
  if (idProblem) return fail("invalid_request", idProblem);
  const read = readEntry(text, id);
  if (!read.ok) return read;
  const { entry } = read;
  const valuesProblem = validateProviderValues(values, { create, knownApis: apisOf(entry) });
  if (valuesProblem) return fail("invalid_request", valuesProblem);
  const known = entry !== undefined || catalog.provider(id) !== undefined;
  if (create && known) return fail("conflict", `Provider ${JSON.stringify(id)} already exists.`);
  if (!create && !known) return fail("settings_not_found", `Provider ${JSON.stringify(id)} was not found.`);
  if (isRadius(id, entry) && values.baseUrl !== undefined && values.baseUrl !== own(entry?.value, "baseUrl")) {
    return fail("conflict", RADIUS_MESSAGE);
  }
  if (!entry) {
    const created: JsonObject = {
      name: values.name,
      baseUrl: values.baseUrl,
      api: values.api,
      apiKey: values.apiKey ?? undefined,
      authHeader: values.authHeader,
      models: create ? [] : undefined,
    };
    if (Object.values(created).every((value) => value === undefined)) return { ok: true, text };
    return { ok: true, text: edit(text, [{ path: providerPath(id), value: created }]) };
  }
  const edits: JsoncEdit[] = [];
  for (const field of ["name", "baseUrl", "api", "apiKey", "authHeader"] as const) {
    const value = values[field];
    if (value !== undefined) edits.push({ path: [...providerPath(id), field], value: value ?? undefined });
  }
  return { ok: true, text: tidy(edit(text, edits), id) };
}

/** DELETE /api/pi/settings/providers: remove the whole models.json entry, custom models and overrides included. */
export function deleteProvider(text: string, id: string): ModelsEditResult {
  const idProblem = validateSettingsId(id, "provider");
  if (idProblem) return fail("invalid_request", idProblem);
  const read = readEntry(text, id);
  if (!read.ok) return read;
  const { entry } = read;
  if (!entry) return fail("settings_not_found", `Provider ${JSON.stringify(id)} has no configuration in ${LABEL}.`);
  if (isRadius(id, entry) && own(entry.value, "baseUrl") !== undefined) return fail("conflict", RADIUS_MESSAGE);
  return { ok: true, text: edit(text, [{ path: providerPath(id), value: undefined }]) };
}

// ---- models -------------------------------------------------------------------------------------------------

function modelRequestProblem(providerId: string, modelId: string, kind: ModelKind): string | null {
  if (kind !== "custom" && kind !== "override") return 'kind must be "custom" or "override".';
  return validateSettingsId(providerId, "provider") ?? validateSettingsId(modelId, "model");
}

/** PUT /api/pi/settings/models: create or change a custom model definition or a catalog model's override. */
export function editModel(text: string, request: ModelEditRequest, catalog: CatalogView): ModelsEditResult {
  const { providerId, modelId, kind, create, values } = request;
  const requestProblem = modelRequestProblem(providerId, modelId, kind);
  if (requestProblem) return fail("invalid_request", requestProblem);
  const read = readEntry(text, providerId);
  if (!read.ok) return read;
  const { entry } = read;
  const valuesProblem = validateModelValues(values, { kind, create, modelId });
  if (valuesProblem) return fail("invalid_request", valuesProblem);
  const catalogProvider = catalog.provider(providerId);
  const provider = JSON.stringify(providerId);
  const model = JSON.stringify(modelId);
  if (!entry && !catalogProvider) return fail("settings_not_found", `Provider ${provider} was not found.`);
  const customIndex = customIndexes(entry, modelId).at(-1);
  const catalogModel = catalogProvider?.models.find((candidate) => candidate.id === modelId);

  if (kind === "custom") {
    if (create) {
      if (customIndex !== undefined) return fail("conflict", `Model ${model} already has a custom definition on provider ${provider}.`);
      if (catalogModel)
        return fail(
          "conflict",
          `Model ${model} is a catalog model of provider ${provider}; save an override instead of a custom definition.`,
        );
      if (!entry || typeof own(entry.value, "baseUrl") !== "string" || typeof own(entry.value, "api") !== "string") {
        return fail("conflict", `Provider ${provider} needs its own baseUrl and api in ${LABEL} before it can have custom models.`);
      }
      const definition = { id: modelId, ...newModelFields(values) };
      const path = entry.models ? [...providerPath(providerId), "models", entry.models.length] : [...providerPath(providerId), "models"];
      return { ok: true, text: edit(text, [{ path, value: entry.models ? definition : [definition] }]) };
    }
    if (customIndex === undefined || !entry?.models)
      return fail("settings_not_found", `Model ${model} has no custom definition on provider ${provider}.`);
    const path = [...providerPath(providerId), "models", customIndex];
    const existing = entry.models[customIndex] as JsonObject;
    return { ok: true, text: edit(text, fieldEdits(path, existing, values, { kind: "custom", catalogCost: catalogModel?.cost })) };
  }

  if (customIndex !== undefined) {
    return fail("conflict", `Model ${model} has a custom definition on provider ${provider}; edit the definition instead of an override.`);
  }
  const override = own(entry?.overrides, modelId);
  const path = [...providerPath(providerId), "modelOverrides", modelId];
  if (create) {
    if (override !== undefined) return fail("conflict", `Model ${model} already has an override on provider ${provider}.`);
    if (!catalogModel) return fail("settings_not_found", `Model ${model} is not in the catalog of provider ${provider}.`);
    return { ok: true, text: edit(text, [{ path, value: newModelFields(values) }]) };
  }
  if (override === undefined) return fail("settings_not_found", `Model ${model} has no override on provider ${provider}.`);
  if (!isPlainObject(override))
    return fail("conflict", `${LABEL} is not valid: the override of model ${model} on provider ${provider} must be an object`);
  return { ok: true, text: tidy(edit(text, fieldEdits(path, override, values, { kind: "override" })), providerId, modelId) };
}

/** DELETE /api/pi/settings/models: remove a custom definition or a whole override, and a provider entry left empty. */
export function deleteModel(text: string, request: ModelDeleteRequest): ModelsEditResult {
  const { providerId, modelId, kind } = request;
  const requestProblem = modelRequestProblem(providerId, modelId, kind);
  if (requestProblem) return fail("invalid_request", requestProblem);
  const read = readEntry(text, providerId);
  if (!read.ok) return read;
  const { entry } = read;
  const provider = JSON.stringify(providerId);
  const model = JSON.stringify(modelId);
  if (!entry) return fail("settings_not_found", `Provider ${provider} has no configuration in ${LABEL}.`);
  if (kind === "custom") {
    const indexes = customIndexes(entry, modelId);
    if (indexes.length === 0) return fail("settings_not_found", `Model ${model} has no custom definition on provider ${provider}.`);
    const edits = indexes.reverse().map((index) => ({ path: [...providerPath(providerId), "models", index], value: undefined }));
    return { ok: true, text: tidy(edit(text, edits), providerId) };
  }
  if (own(entry.overrides, modelId) === undefined)
    return fail("settings_not_found", `Model ${model} has no override on provider ${provider}.`);
  const removed = edit(text, [{ path: [...providerPath(providerId), "modelOverrides", modelId], value: undefined }]);
  return { ok: true, text: tidy(removed, providerId, modelId) };
}

// ---- model fields -------------------------------------------------------------------------------------------

/** A thinking level map in the levels' order; undefined for `{}`, which means "no map". */
function thinkingLevelMapOf(map: ModelValues["thinkingLevelMap"]): JsonObject | undefined {
  if (map === undefined) return undefined;
  const ordered: JsonObject = {};
  for (const level of THINKING_LEVELS) if (map[level] !== undefined) ordered[level] = map[level];
  return Object.keys(ordered).length > 0 ? ordered : undefined;
}

function costOf(cost: ModelCostInput | undefined, fill: (rate: keyof ModelCostInput) => number | undefined): JsonObject | undefined {
  if (cost === undefined) return undefined;
  const rates: JsonObject = {};
  for (const rate of COST_RATES) rates[rate] = cost[rate] ?? fill(rate);
  return Object.values(rates).some((value) => value !== undefined) ? rates : undefined;
}

/**
 * The fields of a new custom definition (after its id) or a new override; resets add nothing. A new custom
 * definition's cost was checked complete; a new override's keeps only the supplied rates.
 */
function newModelFields(values: ModelValues): JsonObject {
  const flag = values.compat?.supportsDeveloperRole;
  return {
    name: values.name,
    reasoning: values.reasoning,
    input: values.input,
    contextWindow: values.contextWindow,
    maxTokens: values.maxTokens,
    cost: costOf(values.cost, () => undefined),
    thinkingLevelMap: thinkingLevelMapOf(values.thinkingLevelMap),
    compat: typeof flag === "boolean" ? { supportsDeveloperRole: flag } : undefined,
  };
}

function isRate(value: unknown): value is number {
  return typeof value === "number" && Number.isFinite(value);
}

/**
 * The edits that apply values to an existing custom definition or override at `path`. A custom definition's cost
 * keeps whole: missing rates come from the stored cost, then the catalog's, then 0; an override's cost merges only
 * the supplied rates.
 */
function fieldEdits(
  path: Path,
  existing: JsonObject,
  values: ModelValues,
  cost: { kind: ModelKind; catalogCost?: CatalogCost },
): JsoncEdit[] {
  const edits: JsoncEdit[] = [];
  const at = (...rest: Array<string | number>): Path => [...path, ...rest];
  for (const field of ["name", "reasoning", "input", "contextWindow", "maxTokens"] as const) {
    if (values[field] !== undefined) edits.push({ path: at(field), value: values[field] });
  }
  if (values.thinkingLevelMap !== undefined)
    edits.push({ path: at("thinkingLevelMap"), value: thinkingLevelMapOf(values.thinkingLevelMap) });
  const flag = values.compat?.supportsDeveloperRole;
  const storedCompat = own(existing, "compat");
  if (typeof flag === "boolean") {
    edits.push(
      isPlainObject(storedCompat)
        ? { path: at("compat", "supportsDeveloperRole"), value: flag }
        : { path: at("compat"), value: { supportsDeveloperRole: flag } },
    );
  } else if (flag === null && isPlainObject(storedCompat)) {
    const othersLeft = Object.keys(storedCompat).some((key) => key !== "supportsDeveloperRole");
    edits.push({ path: othersLeft ? at("compat", "supportsDeveloperRole") : at("compat"), value: undefined });
  }
  const supplied = COST_RATES.filter((rate) => values.cost?.[rate] !== undefined);
  if (supplied.length > 0) {
    const storedCost = own(existing, "cost");
    const fill = (rate: keyof ModelCostInput): number | undefined => (cost.kind === "custom" ? (cost.catalogCost?.[rate] ?? 0) : undefined);
    if (!isPlainObject(storedCost)) {
      edits.push({ path: at("cost"), value: costOf(values.cost, fill) });
    } else {
      for (const rate of COST_RATES) {
        const value = values.cost?.[rate] ?? (isRate(own(storedCost, rate)) ? undefined : fill(rate));
        if (value !== undefined) edits.push({ path: at("cost", rate), value });
      }
    }
  }
  return edits;
}

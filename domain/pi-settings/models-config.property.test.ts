/**
 * Laws of the models.json editor over generated hand-written files (comments, trailing commas, odd and mixed
 * indentation, inline and multi-line objects, blank lines, CRLF, unknown fields) and generated sequences of
 * provider and model requests:
 * - an accepted request always leaves a file pi can read (parseJsoncDocument ok);
 * - every provider entry the request does not name keeps its exact text;
 * - the rules are pure: the same request on the same text gives the same answer;
 * - a create followed by the matching delete restores an equivalent value (equal once empty `models`,
 *   empty `modelOverrides` and otherwise empty provider entries, which pi treats as absent, are dropped).
 */
import fc from "fast-check";
import { findNodeAtLocation, parseTree } from "jsonc-parser";
import { describe, expect, it } from "vitest";
import { parseJsoncDocument } from "./jsonc-document.ts";
import { deleteModel, deleteProvider, editModel, editProvider } from "./models-config.ts";
import type { CatalogView, ModelKind, ModelValues, ModelsEditResult, ProviderValues, ThinkingLevelMapInput } from "./models-config.ts";

const PROVIDER_IDS = ["ollama", "lmstudio", "openai", "anthropic", "radius", "corp"] as const;
const MODEL_IDS = ["m1", "org/m2", "gpt-5", "gpt-5-mini", "claude-sonnet-5", "radius-large"] as const;

const CATALOG: Record<
  string,
  { models: Array<{ id: string; cost?: { input: number; output: number; cacheRead: number; cacheWrite: number } }> }
> = {
  openai: { models: [{ id: "gpt-5", cost: { input: 1.25, output: 10, cacheRead: 0.125, cacheWrite: 0 } }, { id: "gpt-5-mini" }] },
  anthropic: { models: [{ id: "claude-sonnet-5" }] },
  radius: { models: [{ id: "radius-large" }] },
};
const catalog: CatalogView = { provider: (id) => (Object.hasOwn(CATALOG, id) ? CATALOG[id] : undefined) };

// ---- generated files --------------------------------------------------------------------------------------

const modelDefinition = fc.record(
  {
    id: fc.constantFrom(...MODEL_IDS),
    name: fc.constantFrom("A model", "B"),
    api: fc.constantFrom("custom-api", "openai-completions"),
    cost: fc.constant({ input: 1, output: 2, cacheRead: 0, cacheWrite: 0, tiers: [] }),
    compat: fc.constantFrom({ supportsDeveloperRole: false, supportsStore: true }, { supportsStore: true }),
    "x-extra": fc.constant({ keep: [1, "two"] }),
  },
  { requiredKeys: ["id"] },
);

const providerFields = fc.record(
  {
    name: fc.constantFrom("Local", "Proxy"),
    baseUrl: fc.constantFrom("http://localhost:11434/v1", "https://proxy.example.com/v1"),
    api: fc.constantFrom("openai-completions", "custom-api"),
    apiKey: fc.constantFrom("ollama", "$KEY"),
    headers: fc.constant({ "X-Team": "ops" }),
    "x-note": fc.constantFrom("keep me", 7),
    models: fc.uniqueArray(modelDefinition, { selector: (model) => model.id, maxLength: 3 }),
    modelOverrides: fc.dictionary(
      fc.constantFrom(...MODEL_IDS),
      fc.record({ name: fc.constantFrom("Renamed"), maxTokens: fc.constantFrom(1024), "x-o": fc.constant(true) }, { requiredKeys: [] }),
      { minKeys: 1, maxKeys: 2 },
    ),
  },
  { requiredKeys: [] },
);

/** One entry in ten is a Radius OAuth provider, whose base URL the editor may not change. */
const providerEntry = fc
  .tuple(providerFields, fc.nat(9))
  .map(([entry, die]) => (die === 0 ? { ...entry, oauth: "radius", baseUrl: "https://radius.example.com/v1" } : entry));

const fileValue = fc.record(
  {
    $schema: fc.constant("https://pi.dev/schemas/models.schema.json"),
    providers: fc.dictionary(fc.constantFrom(...PROVIDER_IDS), providerEntry, { maxKeys: 4 }),
    "x-root": fc.constant({ note: "unknown root field" }),
  },
  { requiredKeys: ["providers"] },
);

interface Layout {
  eol: "\n" | "\r\n";
  indent: string;
  trailingCommas: boolean;
  /** Choices consumed in turn (cyclically) while rendering: inline or not, comments, spacing, blank lines. */
  bits: boolean[];
}

const layout: fc.Arbitrary<Layout> = fc.record({
  eol: fc.constantFrom<Layout["eol"]>("\n", "\r\n"),
  indent: fc.constantFrom("  ", "    ", "\t", "   "),
  trailingCommas: fc.boolean(),
  bits: fc.array(fc.boolean(), { minLength: 1, maxLength: 40 }),
});

function isContainer(value: unknown): value is object {
  return typeof value === "object" && value !== null;
}

/** Renders a value as a hand-written models.json would look (always valid for the "jsonc" dialect). */
function render(value: unknown, style: Layout): string {
  let next = 0;
  const bit = (): boolean => style.bits[next++ % style.bits.length] === true;
  const { eol, indent } = style;
  const write = (item: unknown, depth: number, inlineParent: boolean): string => {
    if (!isContainer(item)) return JSON.stringify(item);
    const array = Array.isArray(item);
    const entries: Array<[string | undefined, unknown]> = array ? item.map((element) => [undefined, element]) : Object.entries(item);
    const [open, close] = array ? ["[", "]"] : ["{", "}"];
    if (entries.length === 0) return `${open}${close}`;
    const key = (name: string | undefined): string => (name === undefined ? "" : `${JSON.stringify(name)}${bit() ? ": " : " :  "}`);
    if (inlineParent || (depth > 0 && bit() && bit())) {
      const members = entries.map(([name, element]) => key(name) + write(element, depth + 1, true)).join(", ");
      return `${open} ${members}${style.trailingCommas && bit() ? "," : ""} ${close}`;
    }
    const pad = indent.repeat(depth + 1) + (bit() && bit() ? " " : "");
    const lines = entries.map(([name, element], index) => {
      const blank = index > 0 && bit() && bit() ? eol : "";
      const comment = bit() && bit() ? `${pad}// about ${index}${eol}` : "";
      const comma = index < entries.length - 1 || style.trailingCommas ? "," : "";
      const trailing = bit() && bit() ? " // after" : "";
      return `${blank}${comment}${pad}${key(name)}${write(element, depth + 1, false)}${comma}${trailing}`;
    });
    return `${open}${eol}${lines.join(eol)}${eol}${indent.repeat(depth)}${close}`;
  };
  return `${bit() ? `// models for pi${eol}` : ""}${write(value, 0, false)}${eol}`;
}

const file: fc.Arbitrary<string> = fc.oneof(
  { weight: 1, arbitrary: fc.constant("") },
  { weight: 6, arbitrary: fc.tuple(fileValue, layout).map(([value, style]) => render(value, style)) },
);

// ---- generated requests -----------------------------------------------------------------------------------

/** A request as run: IDs resolved against the current file. */
type Request =
  | { t: "provider"; id: string; create: boolean; values: ProviderValues }
  | { t: "deleteProvider"; id: string }
  | { t: "model"; providerId: string; modelId: string; kind: ModelKind; create: boolean; values: ModelValues }
  | { t: "deleteModel"; providerId: string; modelId: string; kind: ModelKind };

const providerValues: fc.Arbitrary<ProviderValues> = fc.record(
  {
    name: fc.constantFrom("Local", "Renamed"),
    baseUrl: fc.constantFrom("http://localhost:1234/v1", "https://gw.example.com/v1", "https://gw.example.com/v1", "ftp://nope"),
    api: fc.constantFrom("openai-completions", "anthropic-messages", "custom-api"),
    authHeader: fc.boolean(),
    apiKey: fc.constantFrom("$KEY", "!pass show key", null),
  },
  { requiredKeys: [] },
);

const modelValues: fc.Arbitrary<ModelValues> = fc.record(
  {
    name: fc.constantFrom("Model", "Renamed"),
    contextWindow: fc.constantFrom(8192, 200_000),
    maxTokens: fc.constant(4096),
    reasoning: fc.boolean(),
    input: fc.constantFrom<Array<"text" | "image">>(["text"], ["text", "image"]),
    thinkingLevelMap: fc.constantFrom<ThinkingLevelMapInput>({}, { high: "high", off: null }),
    compat: fc.constantFrom({ supportsDeveloperRole: true }, { supportsDeveloperRole: null }),
    cost: fc.constantFrom({ input: 1 }, { input: 1, output: 2, cacheRead: 0.1, cacheWrite: 0 }),
  },
  { requiredKeys: [] },
);

/**
 * A generated step: `provider` and `model` pick among the IDs the file (or catalog) has at run time as
 * `pick % (size + 1)`, the extra slot being an ID from the pools, so shrunk steps stay meaningful.
 */
interface Step {
  t: Request["t"];
  provider: number;
  model: number;
  kind: ModelKind;
  create: boolean;
  providerValues: ProviderValues;
  modelValues: ModelValues;
}

const step: fc.Arbitrary<Step> = fc.record({
  t: fc.constantFrom<Request["t"]>("provider", "deleteProvider", "model", "model", "deleteModel"),
  provider: fc.nat(),
  model: fc.nat(),
  kind: fc.constantFrom<ModelKind>("custom", "override"),
  create: fc.boolean(),
  providerValues,
  modelValues,
});

function pick(known: readonly string[], pool: readonly string[], index: number): string {
  const slot = index % (known.length + 1);
  return slot < known.length ? (known[slot] as string) : (pool[index % pool.length] as string);
}

/** The IDs a step chooses from: creates mostly name new IDs, edits and deletes mostly existing ones. */
function resolve(text: string, generated: Step): Request {
  const value = valueOf(text) as { providers?: Record<string, { models?: Array<{ id?: unknown }>; modelOverrides?: object }> };
  const providers = value.providers ?? {};
  const configured = Object.keys(providers);
  const { kind, create } = generated;
  if (generated.t === "provider" || generated.t === "deleteProvider") {
    const id =
      create && generated.t === "provider"
        ? pick([], PROVIDER_IDS, generated.provider)
        : pick(configured, PROVIDER_IDS, generated.provider);
    return generated.t === "provider" ? { t: "provider", id, create, values: generated.providerValues } : { t: "deleteProvider", id };
  }
  const providerId = pick([...configured, ...Object.keys(CATALOG)], PROVIDER_IDS, generated.provider);
  const entry = providers[providerId];
  const custom = (entry?.models ?? []).map((model) => String(model.id));
  const overrides = Object.keys(entry?.modelOverrides ?? {});
  const inCatalog = (catalog.provider(providerId)?.models ?? []).map((model) => model.id);
  const creating = generated.t === "model" && create;
  const known = creating ? (kind === "custom" ? [] : inCatalog) : kind === "custom" ? custom : overrides;
  const modelId = pick(known, MODEL_IDS, generated.model);
  if (generated.t === "deleteModel") return { t: "deleteModel", providerId, modelId, kind };
  return { t: "model", providerId, modelId, kind, create, values: generated.modelValues };
}

function run(text: string, step: Request): ModelsEditResult {
  switch (step.t) {
    case "provider":
      return editProvider(text, { id: step.id, create: step.create, values: step.values }, catalog);
    case "deleteProvider":
      return deleteProvider(text, step.id);
    case "model":
      return editModel(
        text,
        { providerId: step.providerId, modelId: step.modelId, kind: step.kind, create: step.create, values: step.values },
        catalog,
      );
    case "deleteModel":
      return deleteModel(text, { providerId: step.providerId, modelId: step.modelId, kind: step.kind });
  }
}

/** The provider a request names. */
function touched(step: Request): string {
  return step.t === "provider" || step.t === "deleteProvider" ? step.id : step.providerId;
}

/** The delete that undoes a create. */
function inverse(step: Request): Request | undefined {
  if (step.t === "provider" && step.create) return { t: "deleteProvider", id: step.id };
  if (step.t === "model" && step.create) return { t: "deleteModel", providerId: step.providerId, modelId: step.modelId, kind: step.kind };
  return undefined;
}

/** Each provider entry's exact text (key through value). */
function providerSpans(text: string): Map<string, string> {
  const spans = new Map<string, string>();
  const root = parseTree(text.replace(/^\uFEFF/, ""), [], { allowTrailingComma: true });
  const providers = root ? findNodeAtLocation(root, ["providers"]) : undefined;
  if (providers?.type !== "object") return spans;
  for (const property of providers.children ?? []) {
    const key = property.children?.[0]?.value;
    if (typeof key === "string") spans.set(key, text.slice(property.offset, property.offset + property.length));
  }
  return spans;
}

function valueOf(text: string): unknown {
  const parsed = parseJsoncDocument(text, "jsonc");
  if (!parsed.ok) throw new Error(parsed.message);
  return parsed.value;
}

/** The value with what pi treats as absent dropped: empty `models`, empty `modelOverrides`, entries left empty, an empty `providers`. */
function normalized(value: unknown): unknown {
  const copy = structuredClone(value) as { providers?: Record<string, Record<string, unknown>> };
  const providers = copy.providers ?? {};
  for (const [id, entry] of Object.entries(providers)) {
    if (!isContainer(entry)) continue;
    if (Array.isArray(entry.models) && entry.models.length === 0) delete entry.models;
    if (isContainer(entry.modelOverrides) && Object.keys(entry.modelOverrides).length === 0) delete entry.modelOverrides;
    if (Object.keys(entry).length === 0) delete providers[id];
  }
  if (copy.providers !== undefined && Object.keys(copy.providers).length === 0) delete copy.providers;
  return copy;
}

describe("models.json editing laws", () => {
  it("keeps files readable, leaves other providers' text alone, is pure, and a create's delete restores the value", () => {
    let accepted = 0;
    fc.assert(
      fc.property(file, fc.array(step, { minLength: 1, maxLength: 8 }), (initial, generated) => {
        let text = initial;
        for (const next of generated) {
          const step = resolve(text, next);
          const result = run(text, step);
          expect(run(text, step)).toEqual(result);
          if (!result.ok) {
            expect(["invalid_request", "settings_not_found", "conflict"]).toContain(result.code);
            continue;
          }
          accepted++;
          expect(parseJsoncDocument(result.text, "jsonc")).toMatchObject({ ok: true });
          const before = providerSpans(text);
          const after = providerSpans(result.text);
          for (const [id, span] of before) if (id !== touched(step)) expect(after.get(id), `provider ${id}`).toBe(span);
          const undo = inverse(step);
          if (undo) {
            const undone = run(result.text, undo);
            expect(undone.ok, JSON.stringify(undone)).toBe(true);
            if (undone.ok) expect(normalized(valueOf(undone.text))).toEqual(normalized(valueOf(text)));
          }
          text = result.text;
        }
      }),
      { numRuns: 150 },
    );
    // The generators must reach accepted edits, or the laws say nothing.
    expect(accepted).toBeGreaterThan(100);
  });
});

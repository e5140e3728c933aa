/**
 * The code under measurement, loaded lazily: a module that is missing or broken (a colleague's file not
 * landed yet) makes its figures "pending: <reason>" instead of failing the whole bench.
 */
import type { LogRecord } from "../../domain/session-log.ts";
import type { Projection } from "../../projections/projection.ts";
import { errorMessage } from "./figure.ts";

export type Loaded<M> = { readonly ok: true; readonly module: M } | { readonly ok: false; readonly reason: string };

export async function tryLoad<M>(label: string, load: () => Promise<M>): Promise<Loaded<M>> {
  try {
    return { ok: true, module: await load() };
  } catch (error) {
    return { ok: false, reason: `${label} not loadable: ${errorMessage(error)}` };
  }
}

export type AnyProjection = Projection<unknown, LogRecord>;

export interface CoreSubjects {
  readonly decoder: Loaded<typeof import("../../domain/session-decoder.ts")>;
  readonly projection: Loaded<typeof import("../../projections/projection.ts")>;
  readonly summary: Loaded<typeof import("../../projections/session-summary.projection.ts")>;
  readonly tree: Loaded<typeof import("../../projections/session-tree.projection.ts")>;
  readonly transcript: Loaded<typeof import("../../projections/transcript.projection.ts")>;
  readonly fileFold: Loaded<typeof import("../../adapters/projections/file-fold.ts")>;
  readonly reader: Loaded<typeof import("../../adapters/session-files/session-file-reader.ts")>;
}

export async function loadCoreSubjects(): Promise<CoreSubjects> {
  return {
    decoder: await tryLoad("domain/session-decoder.ts", () => import("../../domain/session-decoder.ts")),
    projection: await tryLoad("projections/projection.ts", () => import("../../projections/projection.ts")),
    summary: await tryLoad("projections/session-summary.projection.ts", () => import("../../projections/session-summary.projection.ts")),
    tree: await tryLoad("projections/session-tree.projection.ts", () => import("../../projections/session-tree.projection.ts")),
    transcript: await tryLoad("projections/transcript.projection.ts", () => import("../../projections/transcript.projection.ts")),
    fileFold: await tryLoad("adapters/projections/file-fold.ts", () => import("../../adapters/projections/file-fold.ts")),
    reader: await tryLoad(
      "adapters/session-files/session-file-reader.ts",
      () => import("../../adapters/session-files/session-file-reader.ts"),
    ),
  };
}

/** The first reason among `loaded` that failed, or null when all loaded. */
export function missing(...loaded: readonly Loaded<unknown>[]): string | null {
  for (const item of loaded) if (!item.ok) return item.reason;
  return null;
}

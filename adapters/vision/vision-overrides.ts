/**
 * Vision overrides in leyline.sqlite (`vision_overrides`): repository functions, `db` first. A row is
 * (scope, scope id) → model and thinking, either of which may be "" (that field is not set at this scope).
 * Scope ids are the subagent overrides' (adapters/subagents/subagent-overrides.ts `scopeIdOf`): "" for
 * global, the project id for project, the canonical session file for session.
 */
import type { Kysely } from "kysely";
import { normalizeVisionOverride } from "../../domain/vision/vision-resolution.ts";
import type { VisionOverrides, VisionScope } from "../../domain/vision/vision-types.ts";
import type { LeylineDatabase } from "../sqlite/leyline-database.ts";
import type { OverrideScopes } from "../subagents/subagent-overrides.ts";

export interface VisionOverrideRef {
  readonly scope: VisionScope;
  readonly scopeId: string;
}

/** Every override that applies in a context (global, its project, its session when there is one), by scope. */
export async function listVisionOverrides(db: Kysely<LeylineDatabase>, scopes: OverrideScopes): Promise<VisionOverrides> {
  const rows = await db
    .selectFrom("vision_overrides")
    .select(["scope", "model", "thinking"])
    .where((eb) => {
      const matches = [
        eb.and([eb("scope", "=", "global"), eb("scope_id", "=", "")]),
        eb.and([eb("scope", "=", "project"), eb("scope_id", "=", scopes.projectId)]),
      ];
      if (scopes.sessionFile !== null) matches.push(eb.and([eb("scope", "=", "session"), eb("scope_id", "=", scopes.sessionFile)]));
      return eb.or(matches);
    })
    .execute();
  const overrides: VisionOverrides = {};
  for (const row of rows) overrides[row.scope] = { model: row.model, thinking: row.thinking };
  return overrides;
}

/**
 * Stores one scope's values (trimmed), replacing what it had: an empty field is cleared at this scope, and when
 * both are empty the row is deleted. Answers whether a row remains.
 */
export async function setVisionOverride(
  db: Kysely<LeylineDatabase>,
  ref: VisionOverrideRef & { readonly model?: string | null; readonly thinking?: string | null; readonly now?: number },
): Promise<boolean> {
  const values = normalizeVisionOverride(ref.model, ref.thinking);
  if (values === null) {
    await deleteVisionOverride(db, ref);
    return false;
  }
  const updatedAt = ref.now ?? Date.now();
  await db
    .insertInto("vision_overrides")
    .values({ scope: ref.scope, scope_id: ref.scopeId, model: values.model, thinking: values.thinking, updated_at: updatedAt })
    .onConflict((oc) =>
      oc.columns(["scope", "scope_id"]).doUpdateSet({ model: values.model, thinking: values.thinking, updated_at: updatedAt }),
    )
    .execute();
  return true;
}

/** Deletes one scope's row; true when there was one. */
export async function deleteVisionOverride(db: Kysely<LeylineDatabase>, ref: VisionOverrideRef): Promise<boolean> {
  const result = await db
    .deleteFrom("vision_overrides")
    .where("scope", "=", ref.scope)
    .where("scope_id", "=", ref.scopeId)
    .executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/**
 * Copies the session-scope override of one session file to another (spec: "Session-level subagent and vision
 * overrides copy to the fork"), replacing the target's. Answers how many rows were copied (0 or 1). Pass
 * canonical session files (subagent-context.ts `canonicalPath`).
 */
export async function copySessionVisionOverride(
  db: Kysely<LeylineDatabase>,
  fromSessionFile: string,
  toSessionFile: string,
  now: number = Date.now(),
): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const row = await trx
      .selectFrom("vision_overrides")
      .select(["model", "thinking"])
      .where("scope", "=", "session")
      .where("scope_id", "=", fromSessionFile)
      .executeTakeFirst();
    if (row === undefined) return 0;
    await setVisionOverride(trx, { scope: "session", scopeId: toSessionFile, model: row.model, thinking: row.thinking, now });
    return 1;
  });
}

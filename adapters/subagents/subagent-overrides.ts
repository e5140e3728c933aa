/**
 * Subagent model overrides in leyline.sqlite (`subagent_model_overrides`): repository functions, `db` first.
 * A row is (agent key, scope, scope id) → model. Scope ids: "" for global, the project id for project, the
 * canonical session file for session (see `scopeIdOf`, subagent-context.ts).
 */
import type { Kysely } from "kysely";
import type { SubagentContext, SubagentModelOverrides, SubagentScope } from "../../domain/subagent/subagent-types.ts";
import type { LeylineDatabase } from "../sqlite/leyline-database.ts";

export interface OverrideRef {
  readonly agentKey: string;
  readonly scope: SubagentScope;
  readonly scopeId: string;
}

/** The scope ids that apply in one context: its project, and its session when there is one. */
export interface OverrideScopes {
  readonly projectId: string;
  readonly sessionFile: string | null;
}

/** The scope id of `scope` in `context`, or null for the session scope without a session. */
export function scopeIdOf(scope: SubagentScope, context: Pick<SubagentContext, "projectId" | "sessionFile">): string | null {
  switch (scope) {
    case "global":
      return "";
    case "project":
      return context.projectId;
    case "session":
      return context.sessionFile;
  }
}

/** Every override that applies in a context (of one agent when `agentKey` is given), by agent key. */
export async function listSubagentOverrides(
  db: Kysely<LeylineDatabase>,
  scopes: OverrideScopes,
  agentKey?: string,
): Promise<Record<string, SubagentModelOverrides>> {
  let query = db.selectFrom("subagent_model_overrides").select(["agent_key", "scope", "model"]);
  if (agentKey !== undefined) query = query.where("agent_key", "=", agentKey);
  const rows = await query
    .where((eb) => {
      const matches = [
        eb.and([eb("scope", "=", "global"), eb("scope_id", "=", "")]),
        eb.and([eb("scope", "=", "project"), eb("scope_id", "=", scopes.projectId)]),
      ];
      if (scopes.sessionFile !== null) {
        matches.push(eb.and([eb("scope", "=", "session"), eb("scope_id", "=", scopes.sessionFile)]));
      }
      return eb.or(matches);
    })
    .execute();
  const byAgent: Record<string, SubagentModelOverrides> = {};
  for (const row of rows) {
    const overrides = (byAgent[row.agent_key] ??= {});
    overrides[row.scope] = row.model;
  }
  return byAgent;
}

/** The overrides of one agent that apply in a context. */
export async function subagentOverridesOf(
  db: Kysely<LeylineDatabase>,
  agentKey: string,
  scopes: OverrideScopes,
): Promise<SubagentModelOverrides> {
  const one = await listSubagentOverrides(db, scopes, agentKey);
  return one[agentKey] ?? {};
}

/** Sets (inserts or replaces) one override. `model` must be non-empty (the routes check it). */
export async function setSubagentOverride(
  db: Kysely<LeylineDatabase>,
  ref: OverrideRef & { readonly model: string; readonly now?: number },
): Promise<void> {
  const updatedAt = ref.now ?? Date.now();
  await db
    .insertInto("subagent_model_overrides")
    .values({ agent_key: ref.agentKey, scope: ref.scope, scope_id: ref.scopeId, model: ref.model, updated_at: updatedAt })
    .onConflict((oc) => oc.columns(["agent_key", "scope", "scope_id"]).doUpdateSet({ model: ref.model, updated_at: updatedAt }))
    .execute();
}

/** Deletes one override; true when there was one. */
export async function deleteSubagentOverride(db: Kysely<LeylineDatabase>, ref: OverrideRef): Promise<boolean> {
  const result = await db
    .deleteFrom("subagent_model_overrides")
    .where("agent_key", "=", ref.agentKey)
    .where("scope", "=", ref.scope)
    .where("scope_id", "=", ref.scopeId)
    .executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/**
 * Copies the session-scope overrides of one session file to another (spec: "Session-level subagent and
 * vision overrides copy to the fork"); an override the target already has for the same agent is replaced.
 * Returns how many were copied. For the fork route: pass canonical session files (subagent-context.ts
 * `canonicalPath`).
 */
export async function copySessionOverrides(
  db: Kysely<LeylineDatabase>,
  fromSessionFile: string,
  toSessionFile: string,
  now: number = Date.now(),
): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const rows = await trx
      .selectFrom("subagent_model_overrides")
      .select(["agent_key", "model"])
      .where("scope", "=", "session")
      .where("scope_id", "=", fromSessionFile)
      .execute();
    for (const row of rows) {
      await setSubagentOverride(trx, { agentKey: row.agent_key, scope: "session", scopeId: toSessionFile, model: row.model, now });
    }
    return rows.length;
  });
}

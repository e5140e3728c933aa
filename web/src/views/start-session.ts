/**
 * Starting a session from the start screen: POST /api/pi/sessions { cwd, kind } creates the pi session and
 * its runtime (selected), then the chosen model and thinking level are applied through the scoped runtime
 * routes when they differ from the runtime's defaults. The stores get the new runtime snapshot, the list row
 * and the detail, so the workbench opens without another request.
 */
import type { Model } from "../../../domain/runtime/runtime-types.ts";
import type { SessionKind } from "../api/dto.ts";
import { createSession, setModel, setThinkingLevel } from "../api/runtime-actions.ts";
import { useOpenSessionStore } from "../stores/open-session.store.ts";
import { useRuntimesStore } from "../stores/runtimes.store.ts";
import { summaryOfDetail, useSessionsStore } from "../stores/sessions.store.ts";

export interface StartChoice {
  cwd: string;
  kind: SessionKind;
  /** Model to select when it differs from the new runtime's model. */
  model?: Pick<Model, "provider" | "id"> | null;
  /** Thinking level to select when it differs. */
  thinkingLevel?: string | null;
}

export interface StartResult {
  id: string;
  /** Choices that could not be applied (the session exists anyway), in words. */
  warnings: string[];
}

export function modelKey(model: Pick<Model, "provider" | "id">): string {
  return `${model.provider}/${model.id}`;
}

export async function startSession(choice: StartChoice): Promise<StartResult> {
  const runtimes = useRuntimesStore();
  const sessions = useSessionsStore();
  const openSession = useOpenSessionStore();

  const created = await createSession(choice.cwd, choice.kind);
  let active = created.active;
  const id = active.id || created.detail.session.id;
  const warnings: string[] = [];
  runtimes.applySnapshot(active);

  const wanted = choice.model ?? null;
  if (wanted !== null && (active.state.model === undefined || modelKey(active.state.model) !== modelKey(wanted))) {
    try {
      active = (await setModel(id, { provider: wanted.provider, id: wanted.id })).active;
      runtimes.applySnapshot(active);
    } catch (error) {
      warnings.push(`The model ${modelKey(wanted)} could not be selected: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  const level = choice.thinkingLevel ?? null;
  if (level !== null && level !== "" && level !== active.state.thinkingLevel && active.state.availableThinkingLevels.includes(level)) {
    try {
      active = (await setThinkingLevel(id, level)).active;
      runtimes.applySnapshot(active);
    } catch (error) {
      warnings.push(`The thinking level ${level} could not be selected: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  sessions.upsert(summaryOfDetail(created.detail.session));
  await openSession.open(id, { detail: created.detail, active });
  return { id, warnings };
}

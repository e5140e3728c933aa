/**
 * The scripted-reply file behind `LEYLINE_FAUX_RESPONSES=<file.json>` and the ONE script state every runtime
 * draws from (the control plane owns it; workers ask for turns over IPC).
 *
 * File format: a JSON array of turns `{ "match"?: string, "text"?: string, "thinking"?: string,
 * "toolCalls"?: [{ "name": string, "arguments": object }] }`. A turn needs at least one of text, thinking,
 * toolCalls; unknown fields are rejected so that typos surface at load time.
 *
 * Selection (`next(latestUserText)`): each turn is used at most once. First the earliest unused turn whose
 * `match` occurs (case-sensitive substring) in the request's latest user text; otherwise the earliest unused
 * turn without `match`; otherwise null (the worker then answers "No scripted reply"). Matched turns win
 * over unmatched ones, so parallel runtimes (subagents) get deterministic replies whatever their timing.
 */
import * as fs from "node:fs";
import type { Static } from "typebox";
import { contractChecker } from "../../domain/contract/contract-check.ts";
import { describeValue } from "../../domain/contract/path-failure.ts";
import { Type } from "../../domain/contract/schema-kit.ts";
import { type FauxToolCallSpec as FauxToolCallSpecSchema, FauxTurn as FauxTurnSchema } from "../../domain/contract/worker-ipc.ts";
import type { Checked } from "./runtime-protocol.ts";

/** One turn (domain/contract/worker-ipc.ts `FauxTurn`, also what a `faux_turn_reply` carries). */
export type FauxTurn = Static<typeof FauxTurnSchema>;
export type FauxToolCallSpec = Static<typeof FauxToolCallSpecSchema>;

/** Env var naming the script file. */
export const FAUX_RESPONSES_ENV = "LEYLINE_FAUX_RESPONSES";

const scriptChecker = contractChecker(Type.Array(FauxTurnSchema), "turn", { style: "path" });

export function parseFauxScript(value: unknown): Checked<FauxTurn[]> {
  if (!Array.isArray(value)) return { ok: false, error: `faux script must be a JSON array of turns (got ${describeValue(value)})` };
  const failure = scriptChecker.failure(value);
  return failure === null ? { ok: true, value: value as FauxTurn[] } : { ok: false, error: failure.message };
}

/** Reads and validates a script file; throws an Error naming the file and the first problem. */
export function loadFauxScriptFile(file: string): FauxTurn[] {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (error) {
    throw new Error(`${FAUX_RESPONSES_ENV}: cannot read ${file}: ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
    });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new Error(`${FAUX_RESPONSES_ENV}: ${file} is not valid JSON: ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
    });
  }
  const checked = parseFauxScript(parsed);
  if (!checked.ok) throw new Error(`${FAUX_RESPONSES_ENV}: ${file}: ${checked.error}`);
  return checked.value;
}

/** The shared script state: which turns are still unused. */
export class FauxScript {
  private readonly turns: readonly FauxTurn[];
  private readonly used: boolean[];

  constructor(turns: readonly FauxTurn[]) {
    this.turns = turns.map((turn) => structuredClone(turn));
    this.used = turns.map(() => false);
  }

  /** Loads `LEYLINE_FAUX_RESPONSES` from `env`, or returns null when it is unset or empty. */
  static fromEnv(env: NodeJS.ProcessEnv = process.env): FauxScript | null {
    const file = env[FAUX_RESPONSES_ENV];
    if (file === undefined || file.trim() === "") return null;
    return new FauxScript(loadFauxScriptFile(file));
  }

  /** Takes the turn for a request whose latest user prompt (or task) is `latestUserText`; null when none fits. */
  next(latestUserText: string): FauxTurn | null {
    let chosen = this.turns.findIndex(
      (turn, index) => !this.used[index] && turn.match !== undefined && latestUserText.includes(turn.match),
    );
    if (chosen === -1) chosen = this.turns.findIndex((turn, index) => !this.used[index] && turn.match === undefined);
    if (chosen === -1) return null;
    this.used[chosen] = true;
    const turn = this.turns[chosen];
    return turn === undefined ? null : structuredClone(turn);
  }

  /** Number of unused turns. */
  remaining(): number {
    return this.used.filter((used) => !used).length;
  }
}

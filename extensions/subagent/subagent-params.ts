/**
 * The `subagent` tool's parameters (design/architecture.md "Research tools the models see": keep the shape,
 * prompts and transcripts depend on it) and their reading into a run plan: exactly one of a single task
 * (`agent` + `task`), parallel `tasks` (at most four running at once, at most MAX_PARALLEL_TASKS per call), or
 * a sequential `chain` whose tasks may use `{previous}` for the previous step's final output.
 */
import { Type } from "typebox";

/** Tasks of one parallel call (more wait for a later batch of four; beyond this the call is refused). */
export const MAX_PARALLEL_TASKS = 12;
/** Parallel tasks running at once (spec/deep-research.md "Research workers"). */
export const MAX_CONCURRENT_TASKS = 4;

const TaskSchema = Type.Object({
  agent: Type.String({ description: "Agent name (researcher, or a user/project agent)" }),
  task: Type.String({ description: 'Task for the agent; for the researcher "<thread id>: <task>"' }),
  model: Type.Optional(Type.String({ description: 'Model as "provider/id" (default: the agent\'s, a researcher inherits yours)' })),
  thinking: Type.Optional(Type.String({ description: "Thinking level: off, minimal, low, medium, high, xhigh" })),
  cwd: Type.Optional(Type.String({ description: "Working directory (default: this session's)" })),
});

const ChainStepSchema = Type.Object({
  agent: Type.String({ description: "Agent name" }),
  task: Type.String({ description: "Task; {previous} is replaced by the previous step's final output" }),
  model: Type.Optional(Type.String()),
  thinking: Type.Optional(Type.String()),
  cwd: Type.Optional(Type.String()),
});

export const SubagentSchema = Type.Object({
  agent: Type.Optional(Type.String({ description: "Agent name (single mode)" })),
  task: Type.Optional(Type.String({ description: "Task (single mode)" })),
  model: Type.Optional(Type.String({ description: 'Model as "provider/id" (single mode)' })),
  thinking: Type.Optional(Type.String({ description: "Thinking level (single mode)" })),
  cwd: Type.Optional(Type.String({ description: "Working directory (single mode)" })),
  tasks: Type.Optional(Type.Array(TaskSchema, { description: "Parallel tasks; at most four run at once" })),
  chain: Type.Optional(Type.Array(ChainStepSchema, { description: "Sequential tasks" })),
});

export type SubagentMode = "single" | "parallel" | "chain";

/** One task to run, as given. `threadId` is read when a caller passes it (not advertised in the schema). */
export interface SubagentTaskSpec {
  agent: string;
  task: string;
  model?: string;
  thinking?: string;
  cwd?: string;
  threadId?: string;
}

export type SubagentPlan = { ok: true; mode: SubagentMode; tasks: SubagentTaskSpec[] } | { ok: false; error: string };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function taskSpec(value: unknown): SubagentTaskSpec | null {
  if (!isRecord(value)) return null;
  const agent = value["agent"];
  const task = value["task"];
  if (typeof agent !== "string" || agent.trim() === "" || typeof task !== "string" || task.trim() === "") return null;
  const spec: SubagentTaskSpec = { agent: agent.trim(), task };
  for (const key of ["model", "thinking", "cwd", "threadId"] as const) {
    const field = value[key];
    if (typeof field === "string" && field.trim() !== "") spec[key] = field.trim();
  }
  return spec;
}

/** The run plan of the tool's arguments. */
export function subagentPlan(params: unknown): SubagentPlan {
  if (!isRecord(params)) return { ok: false, error: "Invalid parameters" };
  const tasks = Array.isArray(params["tasks"]) ? params["tasks"] : [];
  const chain = Array.isArray(params["chain"]) ? params["chain"] : [];
  const single = typeof params["agent"] === "string" || typeof params["task"] === "string";
  const modes = Number(tasks.length > 0) + Number(chain.length > 0) + Number(single);
  if (modes !== 1) return { ok: false, error: "Provide exactly one mode: agent and task (single), tasks (parallel) or chain" };
  if (single) {
    const spec = taskSpec(params);
    return spec ? { ok: true, mode: "single", tasks: [spec] } : { ok: false, error: "Single mode needs a non-empty agent and task" };
  }
  const list = tasks.length > 0 ? tasks : chain;
  const mode: SubagentMode = tasks.length > 0 ? "parallel" : "chain";
  if (mode === "parallel" && list.length > MAX_PARALLEL_TASKS) {
    return { ok: false, error: `Too many parallel tasks (${list.length}); at most ${MAX_PARALLEL_TASKS} per call` };
  }
  const specs: SubagentTaskSpec[] = [];
  for (const [index, item] of list.entries()) {
    const spec = taskSpec(item);
    if (!spec) return { ok: false, error: `${mode === "parallel" ? "tasks" : "chain"}[${index}] needs a non-empty agent and task` };
    specs.push(spec);
  }
  return { ok: true, mode, tasks: specs };
}

/**
 * Builds a corpus of session files written by the REAL pi SDK (faux provider) inside a harness agent dir,
 * for the differential suites (`*.int.test.ts` here) that compare Leyline's read side with pi's own.
 *
 * The corpus:
 * - main: several prompts; assistant thinking + text + tool calls that really run (read, ls, bash) on the
 *   harness cwd; a custom entry (extension `appendEntry`), labels (set, and set-then-cleared), two session
 *   names; a thinking level change and a model change; a custom message (no turn) and one that triggers a
 *   turn; an aborted run; a manual compaction (the faux replies are the summaries); then in-place branching
 *   with `navigateTree` twice (once plain, once with a branch summary), each followed by a prompt; then pi
 *   1.x's own entries: a `usage` entry (cache warming) and `context_edit`s (an assistant attempt and its tool
 *   result omitted, a user message replaced), each followed by a prompt. pi 1.x stores its system messages by
 *   itself (the first prompt of every session, and patches).
 * - error: a run whose faux queue is empty (stopReason "error" persisted).
 * - fork: `SessionManager.createBranchedSession` of main at the compacted leaf (labels re-created,
 *   header `parentSession`).
 * - runtime fork: `AgentSessionRuntime.fork(userEntry)` of main (before a user message), then a prompt in it;
 *   and a clone (`position: "at"`).
 * - the two version-1 fixtures, copied into `sessions/--Users-badlogic-workspaces-pi-mono--/`.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { AgentSession, ExtensionAPI, SessionEntry } from "@earendil-works/pi-coding-agent";
import type { AssistantMessage, Context } from "@earendil-works/pi-ai";
import { createPiHarness, type PiHarness } from "../support/pi-harness.ts";
import { PI_SESSION_FIXTURES_DIR } from "../support/fixtures.ts";

export const V1_FIXTURE_DIR = PI_SESSION_FIXTURES_DIR;
export const V1_FIXTURES = ["v1-before-compaction.jsonl", "v1-large-session.jsonl"] as const;

export interface SessionCorpus {
  harness: PiHarness;
  /** Every session file in the harness sessions folder. */
  files: string[];
  /** The version-1 fixture copies (a subset of `files`). */
  v1Files: string[];
  mainFile: string;
}

function lastToolResultText(context: Context): string {
  for (let i = context.messages.length - 1; i >= 0; i--) {
    const message = context.messages[i];
    if (message?.role === "toolResult") {
      return message.content.map((block) => (block.type === "text" ? block.text : "")).join("");
    }
  }
  return "(no tool result)";
}

function requireFile(session: AgentSession): string {
  const file = session.sessionFile;
  if (!file || !fs.existsSync(file)) throw new Error(`session ${session.sessionId} has no file on disk`);
  return file;
}

function lastEntryOfType(session: AgentSession, predicate: (entry: SessionEntry) => boolean): SessionEntry {
  const entries = session.sessionManager.getEntries();
  for (let i = entries.length - 1; i >= 0; i--) {
    const entry = entries[i] as SessionEntry;
    if (predicate(entry)) return entry;
  }
  throw new Error("no matching entry");
}

function isUserMessage(text: string): (entry: SessionEntry) => boolean {
  return (entry) => entry.type === "message" && entry.message.role === "user" && JSON.stringify(entry.message.content).includes(text);
}

function isAssistant(entry: SessionEntry): boolean {
  return entry.type === "message" && entry.message.role === "assistant";
}

function expectQueueDrained(harness: PiHarness, step: string): void {
  const pending = harness.faux.getPendingResponseCount();
  if (pending !== 0) throw new Error(`${step}: ${pending} faux responses left unconsumed`);
}

export async function buildSessionCorpus(): Promise<SessionCorpus> {
  const harness = await createPiHarness({
    tempPrefix: "leyline-diff-",
    // A tiny keepRecentTokens so a manual compaction of a small session has something to summarize.
    settings: { compaction: { enabled: false, keepRecentTokens: 20 } },
  });
  try {
    return await populate(harness);
  } catch (error) {
    await harness.dispose();
    throw error;
  }
}

async function populate(harness: PiHarness): Promise<SessionCorpus> {
  const { ai, faux, pi } = harness;
  const say = (content: Parameters<typeof ai.fauxAssistantMessage>[0], stopReason?: AssistantMessage["stopReason"]) =>
    ai.fauxAssistantMessage(content, stopReason ? { stopReason } : {});

  fs.writeFileSync(path.join(harness.cwd, "notes.txt"), "Leyline notes: the tree has two branches.\n");
  fs.mkdirSync(path.join(harness.cwd, "src"));
  fs.writeFileSync(path.join(harness.cwd, "src", "index.ts"), "export const answer = 42;\n");

  let extension: ExtensionAPI | undefined;
  const api = (): ExtensionAPI => {
    if (!extension) throw new Error("extension factory did not run");
    return extension;
  };
  const main = await harness.createSession({
    thinkingLevel: "medium",
    extensionFactories: [
      (piApi) => {
        extension = piApi;
        piApi.on("session_start", () => {
          piApi.appendEntry("leyline-diff-state", { phase: "start" });
        });
      },
    ],
  });

  // 1. thinking + text + a real `read`, then a reply built from the tool result.
  faux.setResponses([
    say(
      [
        ai.fauxThinking("The user wants the notes; I will read the file first."),
        ai.fauxText("Reading the notes."),
        ai.fauxToolCall("read", { path: "notes.txt" }, { id: "call-read-1" }),
      ],
      "toolUse",
    ),
    (context) => say(`The notes say: ${lastToolResultText(context).trim()}`),
  ]);
  await main.prompt("Please read notes.txt and summarise it.");
  expectQueueDrained(harness, "prompt 1");
  const firstUser = lastEntryOfType(main, isUserMessage("Please read notes.txt"));
  api().appendEntry("leyline-diff-state", { phase: "after-read", count: 1 });
  api().setLabel(firstUser.id, "start");
  main.setSessionName("Differential main");

  // 2. two tools in one assistant message (ls + bash), then text.
  faux.setResponses([
    say(
      [
        ai.fauxText("Listing and echoing."),
        ai.fauxToolCall("ls", { path: "." }, { id: "call-ls-1" }),
        ai.fauxToolCall("bash", { command: "echo hello-from-bash" }, { id: "call-bash-1" }),
      ],
      "toolUse",
    ),
    (context) => say(`Done. Last tool said: ${lastToolResultText(context).trim()}`),
  ]);
  await main.prompt("List the folder and echo hello.");
  expectQueueDrained(harness, "prompt 2");
  const secondUser = lastEntryOfType(main, isUserMessage("List the folder"));

  // 3. thinking level and model change, a custom message outside a turn, then a turn on the new model.
  main.setThinkingLevel("high");
  await main.setModel(harness.model("faux-b"));
  await main.sendCustomMessage({
    customType: "leyline-note",
    content: "A custom note for the model.",
    display: true,
    details: { n: 1 },
  });
  faux.setResponses([say([ai.fauxThinking("A fact, then."), ai.fauxText("Octopuses have three hearts.")])]);
  await main.prompt("Tell me a fact.");
  expectQueueDrained(harness, "prompt 3");
  const thirdUser = lastEntryOfType(main, isUserMessage("Tell me a fact"));

  // 4. a custom message that triggers a turn.
  faux.setResponses([say("Noted the custom trigger.")]);
  await main.sendCustomMessage(
    { customType: "leyline-trigger", content: [{ type: "text", text: "Please react to this." }], display: false },
    { triggerTurn: true },
  );
  expectQueueDrained(harness, "custom trigger");

  // 5. an aborted run: the faux step aborts the session before it streams.
  let abortDone: Promise<void> | undefined;
  faux.setResponses([
    () => {
      abortDone = main.abort();
      return say("This reply is cut off by the abort.");
    },
  ]);
  await main.prompt("This run will be aborted.");
  await abortDone;
  const aborted = lastEntryOfType(main, isAssistant);
  if (aborted.type !== "message" || aborted.message.role !== "assistant" || aborted.message.stopReason !== "aborted") {
    throw new Error("the aborted run did not persist an aborted assistant message");
  }
  faux.setResponses([say("Back after the abort.")]);
  await main.prompt("Continue after the abort.");
  expectQueueDrained(harness, "prompt 5");

  // 6. a manual compaction; a split turn consumes a second reply, so queue two and clear the rest.
  faux.setResponses([say("Summary: notes read, folder listed, a fact told."), say("Turn prefix summary.")]);
  await main.compact();
  faux.setResponses([]);
  faux.setResponses([say("Answer after compaction.")]);
  await main.prompt("A question after the compaction.");
  expectQueueDrained(harness, "prompt 6");
  const compactedLeaf = lastEntryOfType(main, isAssistant);
  api().setLabel(compactedLeaf.id, "temporary");
  api().setLabel(compactedLeaf.id, undefined);
  api().setLabel(thirdUser.id, "fact");
  main.setSessionName("Differential main v2");

  // 7. branch in place: back to before the second prompt, then a new prompt.
  const nav1 = await main.navigateTree(secondUser.id);
  if (nav1.cancelled) throw new Error("navigateTree was cancelled");
  faux.setResponses([say("An alternative answer on a new branch.")]);
  await main.prompt("An alternative question.");
  expectQueueDrained(harness, "branch prompt");
  const alternativeUser = lastEntryOfType(main, isUserMessage("An alternative question"));

  // 8. branch again with a summary of the abandoned branch (the summary is one faux reply).
  faux.setResponses([say("Branch summary: an alternative answer was given.")]);
  const nav2 = await main.navigateTree(thirdUser.id, { summarize: true, label: "summarised" });
  if (nav2.cancelled || !nav2.summaryEntry) throw new Error("navigateTree with summary did not append one");
  faux.setResponses([say("Third branch reply.")]);
  await main.prompt("A third-branch question.");
  expectQueueDrained(harness, "third branch prompt");

  // 9. pi 1.x entries, through pi's own SessionManager writers: model work outside the conversation, then
  // context edits (as pi's auto-retry writes them: the failed attempt and its tool result omitted; and a
  // replacement an extension would write), each followed by a turn that sees them.
  const manager = main.sessionManager;
  const warmUsage = {
    input: 1200,
    output: 1,
    cacheRead: 0,
    cacheWrite: 1200,
    totalTokens: 2401,
    cost: { input: 0.0012, output: 0.00001, cacheRead: 0, cacheWrite: 0.0015, total: 0.00271 },
  };
  manager.appendUsage("cache_warm", harness.provider, "faux-b", warmUsage, "extension override");
  faux.setResponses([
    say([ai.fauxText("Trying the file."), ai.fauxToolCall("read", { path: "missing.txt" }, { id: "call-read-missing" })], "toolUse"),
    say("The file is missing; I will not retry."),
  ]);
  await main.prompt("Read missing.txt, please.");
  expectQueueDrained(harness, "prompt 9");
  const attempt = lastEntryOfType(
    main,
    (entry) => entry.type === "message" && entry.message.role === "assistant" && entry.message.stopReason === "toolUse",
  );
  const attemptResult = lastEntryOfType(main, (entry) => entry.type === "message" && entry.message.role === "toolResult");
  manager.appendContextEdit(attempt.id, null);
  manager.appendContextEdit(attemptResult.id, null);
  const longUser = lastEntryOfType(main, isUserMessage("Read missing.txt"));
  manager.appendContextEdit(longUser.id, { content: "[a request to read a missing file]" });
  faux.setResponses([say("Understood, moving on.")]);
  await main.prompt("A question after the context edits.");
  expectQueueDrained(harness, "prompt 10");
  const mainFile = requireFile(main);

  // Error session: nothing queued, so the faux provider answers with an error message.
  const errorSession = await harness.createSession({ modelId: "faux-b" });
  faux.setResponses([]);
  await errorSession.prompt("This prompt gets an error reply.");
  requireFile(errorSession);

  // Fork to a new file through the SessionManager, at the compacted leaf (a path holding the compaction).
  const forkManager = pi.SessionManager.open(mainFile, harness.sessionDir);
  const forkFile = forkManager.createBranchedSession(compactedLeaf.id);
  if (!forkFile || !fs.existsSync(forkFile)) throw new Error("createBranchedSession wrote no file");

  // Runtime fork before a user message of the alternative branch, then a prompt in the fork; and a clone.
  const runtime = await harness.createRuntime({ sessionManager: pi.SessionManager.open(mainFile, harness.sessionDir) });
  const fork = await runtime.fork(alternativeUser.id);
  if (fork.cancelled) throw new Error("runtime fork was cancelled");
  await runtime.session.bindExtensions({});
  faux.setResponses([say("Reply inside the runtime fork.")]);
  await runtime.session.prompt("A prompt inside the fork.");
  expectQueueDrained(harness, "runtime fork prompt");
  requireFile(runtime.session);
  await runtime.switchSession(mainFile);
  const clone = await runtime.fork(compactedLeaf.id, { position: "at" });
  if (clone.cancelled) throw new Error("runtime clone was cancelled");
  requireFile(runtime.session);

  // Version-1 fixtures, copied (they are read-only) into a folder of their own cwd.
  const v1Dir = path.join(harness.sessionsDir, "--Users-badlogic-workspaces-pi-mono--");
  fs.mkdirSync(v1Dir, { recursive: true });
  const v1Files = V1_FIXTURES.map((name) => {
    const target = path.join(v1Dir, name);
    fs.writeFileSync(target, fs.readFileSync(path.join(V1_FIXTURE_DIR, name)));
    return target;
  });

  return { harness, files: harness.listSessionFiles(), v1Files, mainFile };
}

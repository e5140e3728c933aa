/**
 * The data of the subagent marker entry (domain/subagent/subagent-marker.ts, which proves its interface equal to
 * this schema): checked where a child session is opened over IPC (worker-ipc.ts `open.new.child.marker`) and
 * where a session's entries are read. Its own file because the domain module checks with it: importing the
 * whole worker contract from there would make a cycle.
 */
import { Type } from "typebox";
import { failsWith } from "./schema-kit.ts";

const nullableString = failsWith(Type.Union([Type.String(), Type.Null()]), "must be a string or null");

export const SubagentMarkerData = failsWith(
  Type.Object(
    {
      version: failsWith(Type.Literal(1), "must be 1"),
      parentSessionId: nullableString,
      parentSessionPath: nullableString,
      toolCallId: nullableString,
      agent: nullableString,
      readOnlyBash: failsWith(Type.Boolean(), "must be a boolean"),
      /** The parent's trace (its run that made the tool call), when tracing captured it. */
      parentTraceId: Type.Optional(nullableString),
    },
    { additionalProperties: false, title: "SubagentMarkerData" },
  ),
  { type: "must be an object" },
);

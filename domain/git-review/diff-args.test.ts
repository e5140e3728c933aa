/** The review's diff commands: plumbing for working changes, literal pathspecs, fixed prefixes. */
import { describe, expect, it } from "vitest";
import { DIFF_READ_ARGS, stagedDiffArgs, workingDiffArgs } from "./diff-args.ts";

describe("review diff arguments", () => {
  it("reads working changes with diff-files and staged ones with diff --cached -M, paths as literal pathspecs", () => {
    expect(workingDiffArgs(["a*.txt"])).toEqual(["diff-files", "-p", ...DIFF_READ_ARGS, "--", ":(literal)a*.txt"]);
    expect(stagedDiffArgs(["new.txt", "old.txt"])).toEqual([
      "diff",
      "--cached",
      "-M",
      ...DIFF_READ_ARGS,
      "--",
      ":(literal)new.txt",
      ":(literal)old.txt",
    ]);
    expect(DIFF_READ_ARGS).toEqual(expect.arrayContaining(["--no-ext-diff", "--no-textconv", "--src-prefix=a/", "--dst-prefix=b/"]));
  });
});

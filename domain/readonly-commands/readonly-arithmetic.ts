/**
 * Arithmetic contexts of bash, where the text of a variable is evaluated as code.
 *
 * bash evaluates a variable's value as an arithmetic expression when the variable is used in arithmetic,
 * and arithmetic expressions may hold array subscripts with command substitutions: after
 * `x='a[$(rm -rf ~)]'` (or `x=$(curl ...)`), `echo $((x))` runs rm. The contexts, checked against bash 5:
 * `$((...))`, `$[...]`, `((...))`, `for ((...))`, `let`; the operands of `-eq -ne -lt -le -gt -ge` in
 * `[[ ]]`; array subscripts (`${a[i]}`, `a[i]=v`, `a=([i]=v)`); substring offsets (`${s:i:n}`);
 * variables declared with `-i`; indirect expansion `${!x}`; `-v` tests; and the prompt expansion
 * `${x@P}`. (The `test`/`[` builtin, printf `%d`, shift and the like read plain numbers only.)
 *
 * So in those places only literal numbers pass (and `$#`, `$?`, `$$`, `$!`, `${#name}`, which are numbers
 * by construction): `$((2 * 1024))` is fine, `$((n + 1))` and `[[ $n -gt 3 ]]` are refused.
 */
import type { ShellWord } from "../shell/shell-ast.ts";
import { shown } from "./readonly-rules.ts";

/** Parameters whose value is always a number. */
const NUMERIC_PARAMETERS = /\$[#?$!]|\$\{#[A-Za-z_][A-Za-z0-9_]*(\[[@*]\])?\}/g;

/** Whether an arithmetic expression refers to no variable (numbers, operators and parentheses only). */
export function isLiteralArithmetic(expression: string): boolean {
  const stripped = expression
    .replace(NUMERIC_PARAMETERS, "0")
    .replace(/\b\d+#[0-9A-Za-z@_]+/g, "0")
    .replace(/\b0[xX][0-9A-Fa-f]+\b/g, "0");
  return !/[A-Za-z_$`\\[\]"']/.test(stripped);
}

/** A number bash cannot evaluate as code: a literal integer, or a numeric special parameter. */
export function isSafeNumber(word: { value: string | null; raw: string }): boolean {
  if (word.value !== null) return /^\s*[+-]?(\d+|0[xX][0-9A-Fa-f]+|\d+#[0-9A-Za-z@_]+)\s*$/.test(word.value);
  return /^"?(\$[#?$!]|\$\{#[A-Za-z_][A-Za-z0-9_]*(\[[@*]\])?\})"?$/.test(word.raw);
}

/** Why a word's arithmetic or parameter expansions could evaluate a variable as code, or null. */
export function wordArithmeticIssue(word: ShellWord): string | null {
  for (const expression of word.arithmetic) {
    if (!isLiteralArithmetic(expression)) {
      return `arithmetic on variables (${shown(expression.trim())}) evaluates their contents as code, which cannot be checked`;
    }
  }
  for (const parameter of word.parameters) {
    const issue = parameterIssue(parameter);
    if (issue) return issue;
  }
  return null;
}

const PARAMETER = /^([A-Za-z_][A-Za-z0-9_]*|\d+|[@*#?$!-])(\[([^\]]*)\])?/;

/** Checks the text of one `${...}`. */
function parameterIssue(text: string): string | null {
  if (text.startsWith("!")) {
    // `${!prefix*}`, `${!prefix@}` and `${!array[@]}` list names or keys; anything else is indirection.
    if (/^![A-Za-z_][A-Za-z0-9_]*([*@]|\[[*@]\])$/.test(text)) return null;
    return `the indirect expansion \${${shown(text)}} evaluates a variable's value as a name, which cannot be checked`;
  }
  const body = text.startsWith("#") && text.length > 1 ? text.slice(1) : text;
  const match = PARAMETER.exec(body);
  if (!match) return null;
  const subscript = match[3];
  if (subscript !== undefined && subscript !== "@" && subscript !== "*" && !isLiteralArithmetic(subscript)) {
    return `the array subscript in \${${shown(text)}} is evaluated as arithmetic, which cannot be checked`;
  }
  const rest = body.slice(match[0].length);
  if (rest.startsWith("@P")) return `\${${shown(text)}} expands a value as a prompt, which can run commands`;
  if (rest.startsWith(":") && !/^:[-=+?]/.test(rest)) {
    const offsets = rest.slice(1).split(":").slice(0, 2);
    if (offsets.some((offset) => offset.trim() !== "" && !isLiteralArithmetic(offset))) {
      return `the substring offsets in \${${shown(text)}} are evaluated as arithmetic, which cannot be checked`;
    }
  }
  return null;
}

/** A variable name as set (`a`, `a[3]`): refused when it has a subscript that is not a literal number. */
export function subscriptIssue(name: string): string | null {
  const match = /^[A-Za-z_][A-Za-z0-9_]*\[(.*)\]$/.exec(name);
  if (!match) return null;
  return isLiteralArithmetic(match[1] ?? "")
    ? null
    : `the array subscript in ${shown(name)} is evaluated as arithmetic, which cannot be checked`;
}

const NUMERIC_OPERATORS = new Set(["-eq", "-ne", "-lt", "-le", "-gt", "-ge"]);

/**
 * The operands of a conditional (`[[ ... ]]` when `arithmetic`, `test`/`[` otherwise): numeric comparisons
 * in `[[ ]]` need literal numbers; `-v` needs a static name without a computed subscript.
 */
export function conditionalIssue(operands: readonly { value: string | null; raw: string }[], arithmetic: boolean): string | null {
  for (let i = 0; i < operands.length; i++) {
    const operator = operands[i]?.value ?? "";
    if (arithmetic && NUMERIC_OPERATORS.has(operator)) {
      const other = [operands[i - 1], operands[i + 1]].find((operand) => operand && !isSafeNumber(operand));
      if (other) return `the numeric test ${operator} evaluates ${shown(other.raw)} as arithmetic, which cannot be checked`;
    }
    if (operator === "-v") {
      const name = operands[i + 1];
      if (name && name.value === null) return `-v ${shown(name.raw)} tests a computed name, which cannot be checked`;
      const issue = name?.value ? subscriptIssue(name.value) : null;
      if (issue) return issue;
    }
  }
  return null;
}

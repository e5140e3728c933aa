/**
 * The usage of a one-token scripted reply, as pi writes it on an assistant message: what test session files put
 * in their assistant entries when the numbers do not matter.
 */
export const TINY_USAGE = {
  input: 1,
  output: 1,
  cacheRead: 0,
  cacheWrite: 0,
  totalTokens: 2,
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
} as const;

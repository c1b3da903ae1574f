/**
 * How deeply a request's input may nest. Real inputs nest a handful of levels; a body of
 * 100 000 nested arrays would overflow the stack of every recursive walk after parsing (zod,
 * JSON.stringify when storing it), which must end as a 422, never a 500.
 */
export const MAX_INPUT_DEPTH = 256;

/** Whether `value` nests deeper than `limit` levels; iterative, so it cannot overflow itself. */
export function nestsDeeperThan(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  for (let item = stack.pop(); item; item = stack.pop()) {
    const [current, depth] = item;
    if (current === null || typeof current !== "object") continue;
    if (depth > limit) return true;
    for (const child of Object.values(current)) stack.push([child, depth + 1]);
  }
  return false;
}

/** Exhaustiveness guard: a new union member does not compile until handled. */
export function unreachable(value: never): never {
  throw new Error(`unreachable: ${JSON.stringify(value)}`);
}

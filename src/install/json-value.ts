/** Deep equality of parsed config values (JSON, TOML): key order does not matter, array order does. */
export function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a instanceof Date || b instanceof Date) return a instanceof Date && b instanceof Date && a.toISOString() === b.toISOString();
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((item, i) => sameValue(item, b[i]));
  }
  if (typeof a === 'object' && typeof b === 'object' && a !== null && b !== null) {
    const ak = Object.keys(a);
    const bk = Object.keys(b);
    return (
      ak.length === bk.length && ak.every((key) => Object.hasOwn(b, key) && sameValue((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]))
    );
  }
  return false;
}

export const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);

/** A deep copy of a parsed value, so the intended result can be built without touching the original. */
export function cloneValue<T>(value: T): T {
  return structuredClone(value);
}

/** "hooks.Stop" for messages. */
export function pathText(at: readonly string[]): string {
  return at.map((key) => (/^[A-Za-z_][A-Za-z0-9_-]*$/.test(key) ? key : JSON.stringify(key))).join('.');
}

/** The value at a key path of a parsed document, or undefined when something on the way is not an object. */
export function valueAt(root: unknown, at: readonly string[]): unknown {
  let node = root;
  for (const key of at) node = isPlainObject(node) ? node[key] : undefined;
  return node;
}

/**
 * RFC 8785 JSON Canonicalization Scheme (JCS).
 *
 * Receipts are hashed (and later signed) over their canonical form, so two
 * implementations that agree on the data agree on the bytes. ECMAScript's own
 * JSON serialisation of strings and numbers is exactly what JCS prescribes;
 * what JCS adds is key order (by UTF-16 code units, which is what the default
 * `Array.prototype.sort` compares) and the refusal of values JSON cannot carry.
 */
export function canonicalize(value: unknown): string {
  return serialize(value, '$');
}

function serialize(value: unknown, where: string): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      if (!Number.isFinite(value)) {
        throw new TypeError(`JCS: ${where} is ${String(value)}; only finite numbers have a canonical form`);
      }
      return JSON.stringify(value);
    case 'string':
      return JSON.stringify(value);
    case 'object': {
      if (Array.isArray(value)) {
        return `[${value.map((item, i) => serialize(item, `${where}[${i}]`)).join(',')}]`;
      }
      const record = value as Record<string, unknown>;
      const keys = Object.keys(record)
        .filter((key) => record[key] !== undefined)
        .sort();
      const members = keys.map((key) => `${JSON.stringify(key)}:${serialize(record[key], `${where}.${key}`)}`);
      return `{${members.join(',')}}`;
    }
    default:
      throw new TypeError(`JCS: ${where} is a ${typeof value}; only JSON values have a canonical form`);
  }
}

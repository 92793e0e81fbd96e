/*
 * The little TOML the Codex entry needs: keys, basic strings, string arrays.
 * Basic strings may hold any character except ", \ and control characters
 * other than tab (U+0000-U+0008, U+000A-U+001F, U+007F), which are escaped.
 */

export function tomlString(value: string): string {
  let out = '"';
  for (const char of value) {
    const code = char.codePointAt(0)!;
    if (char === '"') out += '\\"';
    else if (char === '\\') out += '\\\\';
    else if (char === '\n') out += '\\n';
    else if (char === '\r') out += '\\r';
    else if (char === '\t') out += '\t';
    else if (code < 0x20 || code === 0x7f) out += `\\u${code.toString(16).padStart(4, '0')}`;
    else out += char;
  }
  return `${out}"`;
}

/** A bare key when it is one ([A-Za-z0-9_-]+), else a quoted key. */
export function tomlKey(key: string): string {
  return /^[A-Za-z0-9_-]+$/.test(key) ? key : tomlString(key);
}

export function tomlArray(values: readonly string[]): string {
  return `[${values.map(tomlString).join(', ')}]`;
}

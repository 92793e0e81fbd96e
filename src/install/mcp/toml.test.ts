import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { tomlArray, tomlKey, tomlString } from './toml.js';

/** Parsed by a real TOML parser (Python's tomllib), so the escaping is checked against the spec, not against itself. */
function parseToml(text: string): unknown {
  return JSON.parse(
    execFileSync('python3', ['-c', 'import sys, json, tomllib; print(json.dumps(tomllib.loads(sys.stdin.read())))'], { input: text }).toString(),
  );
}

describe('toml', () => {
  it('round-trips every awkward character through a real parser', () => {
    const values = [
      'plain',
      'quote " and \\ backslash',
      'tab\there',
      'line\nbreak\r',
      'nul\u0000 bell\u0007 esc\u001b del\u007f',
      'ünïcödé 🚀',
      "single ' quote",
      '',
    ];
    const text = `a = ${tomlArray(values)}\n${tomlKey('odd key.x')} = ${tomlString('v')}\n${tomlKey('bare_key-1')} = 1\n`;
    expect(parseToml(text)).toEqual({ a: values, 'odd key.x': 'v', 'bare_key-1': 1 });
  });

  it('quotes only keys that are not bare', () => {
    expect(tomlKey('vouch-ws_1')).toBe('vouch-ws_1');
    expect(tomlKey('a.b')).toBe('"a.b"');
  });
});

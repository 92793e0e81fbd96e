import { describe, expect, it } from 'vitest';
import { scriptReadsOnly } from './sed-script.js';

describe('scriptReadsOnly: a sed script that neither writes nor runs anything', () => {
  it.each([
    ['10,20p', true],
    ['s/a/b/g', true],
    ['s|/usr|/opt|2', true],
    ['/^#/d; s/x/y/p', true],
    ['1~2{p;n}', true],
    ['$!N; P; D', true],
    [':a;N;$!ba;s/\\n/ /g', true],
    ['y/abc/xyz/', true],
    ['/x/a appended text', true],
    ['r other.txt', true],
    ['0,/re/I s//X/', true],
    ['s/a\\/b/c/', true],
    ['# a comment\np', true],
    ['w out.txt', false],
    ['/x/W out.txt', false],
    ['s/a/b/w out.txt', false],
    ['s/a/b/gw out.txt', false],
    ['e', false],
    ['1e touch x', false],
    ['s/.*/rm -rf x/e', false],
    ['p;w out', false],
    ['s/a/b', false],
    ['v 4.2', false],
  ])('%j → %s', (script, expected) => {
    expect(scriptReadsOnly(script)).toBe(expected);
  });
});

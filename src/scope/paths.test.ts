import { describe, expect, it } from 'vitest';
import { checkGlob, checkRelativePath } from './paths.js';

describe('checkGlob', () => {
  it.each([
    ['/etc/**', /absolute/],
    ['~/secrets/*', /absolute/],
    ['C:/x/*', /absolute/],
    ['../sibling/**', /\.\./],
    ['src/../../x', /\.\./],
    ['src/{..,a}/x', /\.\./],
    ['src\\a.ts', /backslash/],
    ['.', /root itself/],
    ['a\0b', /NUL/],
  ])('refuses %j', (glob, why) => {
    const result = checkGlob(glob);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.why).toMatch(why);
  });

  it.each([
    ['src/**/*.ts', 'src/**/*.ts'],
    ['./src/a.ts', 'src/a.ts'],
    ['src//a.ts', 'src/a.ts'],
    ['file..name.ts', 'file..name.ts'],
  ])('accepts %j as %j', (glob, normal) => {
    expect(checkGlob(glob)).toEqual({ ok: true, value: normal });
  });
});

describe('checkRelativePath', () => {
  it('normalises the root to "."', () => {
    expect(checkRelativePath('./')).toEqual({ ok: true, value: '.' });
  });
  it('refuses an absolute cwd', () => {
    expect(checkRelativePath('/tmp').ok).toBe(false);
  });
});

import { describe, expect, it } from 'vitest';
import type { Sha256 } from '../core/digest.js';
import { manifestDigest, type ManifestFile } from '../scope/manifest.js';
import type { ScanResult } from '../scope/scan-types.js';
import { inputDetail, inputDrift, pinInputs } from './input-pins.js';

const A = 'a'.repeat(64) as Sha256;
const B = 'b'.repeat(64) as Sha256;
const scan = (files: [string, Sha256][]): ScanResult => {
  const manifest = { files: files.map(([path, sha]): ManifestFile => [path, sha, 1, 'input']), refused: [] };
  return { manifest, problems: [], manifestDigest: manifestDigest(manifest) };
};
const check = { inputs: ['package.json', 'pytest.ini'] };

describe('inputDrift', () => {
  it('is null while the inputs are as pinned, whatever order the globs are written in', () => {
    const pin = pinInputs(check, scan([['package.json', A]]));
    expect(inputDrift({ inputs: ['pytest.ini', 'package.json'] }, pin, scan([['package.json', A]]))).toBeNull();
  });

  it('names each file that appeared, changed or went away, in path order', () => {
    const pin = pinInputs(
      check,
      scan([
        ['package.json', A],
        ['sub/x', A],
      ]),
    );
    const drift = inputDrift(
      check,
      pin,
      scan([
        ['package.json', B],
        ['pytest.ini', A],
      ]),
    );
    expect(drift).toEqual({
      kind: 'changed',
      changes: [
        { path: 'package.json', change: 'changed' },
        { path: 'pytest.ini', change: 'appeared' },
        { path: 'sub/x', change: 'went away' },
      ],
    });
    expect(inputDetail('tests', drift!)).toBe(
      'package.json (changed), pytest.ini (appeared), sub/x (went away) decide what `tests` runs and changed since vouch.yaml was allowed; read the change, then `vouch allow`',
    );
  });

  it('is unpinned when there is no pin, or a pin of other globs: nothing of these inputs was allowed', () => {
    expect(inputDrift(check, undefined, scan([]))).toEqual({ kind: 'unpinned' });
    const other = pinInputs({ inputs: ['package.json'] }, scan([['package.json', A]]));
    expect(inputDrift(check, other, scan([['package.json', A]]))).toEqual({ kind: 'unpinned' });
    expect(inputDetail('tests', { kind: 'unpinned' })).toContain('were not pinned when vouch.yaml was allowed');
  });
});

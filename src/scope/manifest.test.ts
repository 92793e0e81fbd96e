import { describe, expect, it } from 'vitest';
import { digestJson, type Sha256 } from '../core/digest.js';
import { manifestDigest, type Manifest, type ManifestFile } from './manifest.js';

const sha = (n: number) => n.toString(16).padStart(64, '0') as Sha256;

describe('manifestDigest', () => {
  it('equals the generic canonical digest, for awkward paths too', () => {
    const files: ManifestFile[] = [
      ['a "quoted" \\ path', sha(1), 0, 'source'],
      ['control\u0001\n\ttab', sha(2), 12, 'test'],
      ['emoji/😀/x.ts', sha(3), 2 ** 40, 'artifact'],
      ['lone\ud800surrogate', sha(4), 7, 'source'],
      ['é/ü/ß', sha(5), 1, 'source'],
    ];
    const manifest: Manifest = {
      files,
      refused: [
        ['.env', 'credential'],
        ['fifo', 'not_regular_file'],
      ],
    };
    expect(manifestDigest(manifest)).toBe(digestJson({ v: 1, files: manifest.files, refused: manifest.refused }));
  });

  it('equals the generic digest across its internal chunk boundary', () => {
    const files: ManifestFile[] = Array.from({ length: 3000 }, (_, i) => [`dir${i % 37}/file-${i}-😀.ts`, sha(i), i, 'source']);
    const manifest: Manifest = { files, refused: [] };
    expect(manifestDigest(manifest)).toBe(digestJson({ v: 1, files, refused: [] }));
  });

  it('equals the generic digest when ASCII and non-ASCII chunks alternate', () => {
    const files: ManifestFile[] = Array.from({ length: 4000 }, (_, i) => [
      `dir/${i % 1500 === 7 ? 'é' : 'e'}-${i}${i === 3999 ? '"q"' : ''}.ts`,
      sha(i),
      i,
      'test',
    ]);
    const manifest: Manifest = { files, refused: [['naïve/.env', 'credential']] };
    expect(manifestDigest(manifest)).toBe(digestJson({ v: 1, files, refused: manifest.refused }));
    const plain = files.map((f, i): ManifestFile => [`plain/${i}.ts`, f[1], f[2], f[3]]);
    expect(manifestDigest({ files: plain, refused: [] })).toBe(digestJson({ v: 1, files: plain, refused: [] }));
  });

  it('equals the generic digest for an empty manifest', () => {
    expect(manifestDigest({ files: [], refused: [] })).toBe(digestJson({ v: 1, files: [], refused: [] }));
  });
});

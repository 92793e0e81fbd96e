import * as z from 'zod/mini';
import type { Problem } from '../core/problem.js';
import { err, ok, type Result } from '../core/result.js';

/*
 * The release manifest scripts/release.mjs writes beside the tarball
 * (`vouch-X.Y.Z.tgz.manifest.json`): the tarball's SHA-256 and every file
 * in it with its own, paths relative to the package root (what npm installs
 * as the package directory). `vouch verify-release` reads it.
 */

const sha256 = z.string().check(z.regex(/^[0-9a-f]{64}$/));
const size = z.int().check(z.minimum(0));

const manifestSchema = z.strictObject({
  kind: z.literal('vouch-release-manifest'),
  version: z.literal(1),
  package: z.strictObject({ name: z.string(), version: z.string() }),
  tarball: z.strictObject({
    file: z.string().check(z.minLength(1)),
    sha256,
    size,
    /** npm's own integrity string (SHA-512), to compare with the registry's `dist.integrity`. */
    npm_integrity: z.nullable(z.string()),
  }),
  files: z.array(z.strictObject({ path: z.string().check(z.minLength(1)), sha256, size, mode: z.int() })),
});

export type ReleaseManifest = z.output<typeof manifestSchema>;

export const MANIFEST_SUFFIX = '.manifest.json';

/** The manifest from its JSON text, or a problem saying where it is not what a manifest is. */
export function parseManifest(text: string, where: string): Result<ReleaseManifest, Problem> {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    return err({
      code: 'manifest_invalid',
      message: `the release manifest is not JSON: ${(error as Error).message}`,
      where,
      hint: 'give the manifest scripts/release.mjs wrote beside the tarball',
    });
  }
  const parsed = z.safeParse(manifestSchema, raw);
  if (parsed.success) {
    const seen = new Set<string>();
    const twice = parsed.data.files.find((f) => {
      if (seen.has(f.path)) return true;
      seen.add(f.path);
      return false;
    });
    if (twice) return err({ code: 'manifest_invalid', message: `the release manifest lists ${JSON.stringify(twice.path)} twice`, where });
    return ok(parsed.data);
  }
  const issue = parsed.error.issues[0]!;
  const at = issue.path.map(String).join('.') || '(top level)';
  return err({
    code: 'manifest_invalid',
    message: `the release manifest is not valid at ${at}: ${issue.message}`,
    where,
    expected:
      '{"kind": "vouch-release-manifest", "version": 1, "package", "tarball": {"file", "sha256", "size", "npm_integrity"}, "files": [{"path", "sha256", "size", "mode"}]}',
    hint: 'give the manifest scripts/release.mjs wrote beside the tarball',
  });
}

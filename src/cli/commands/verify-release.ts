import { readFileSync, statSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { fail } from '../../core/problem.js';
import { MANIFEST_SUFFIX, parseManifest } from '../../release/manifest.js';
import { verifyRelease } from '../../release/verify.js';
import { paint } from '../../render/color.js';
import { renderReleaseCheck } from '../../render/release.js';
import { parse } from '../args.js';
import { EXIT } from '../exit.js';
import { json, out, type Cli } from '../io.js';

export const help = `usage: vouch verify-release [TARBALL] [--manifest FILE] [--installed DIR] [--json]

Checks a release against its manifest (written by \`npm run release\`,
scripts/release.mjs, beside the tarball as TARBALL${MANIFEST_SUFFIX}): the
tarball's own SHA-256, then every file in it, recomputed from the tarball
without unpacking it; with --installed, every file of an installed copy too
(\`npm install -g\` puts it in $(npm root -g)/vouch). Exit 0 only when
everything matches; 1 naming every file that differs, is missing or is
extra (and any link, device or duplicate entry).

  --manifest FILE  the manifest (default: TARBALL${MANIFEST_SUFFIX}); needed
                   without a TARBALL
  --installed DIR  also check an installed copy. What the install makes
                   itself (build/, the native addon; dist/hot.js.cache, the
                   code cache it rewrites; node_modules/) is not in the
                   tarball, so it is listed as not verified, never passed
  --json           {"ok", "package", "tarball", "installed", "compared",
                   "not_verified", "findings": [{"where", "reason", "path",
                   "expected", "found", "detail"}]}

The manifest is only as good as where you got it: compare its tarball
sha256 with the one the release published.`;

function readable(path: string, what: string): void {
  try {
    statSync(path);
  } catch (error) {
    fail({ code: 'release_unreadable', message: `cannot read ${what}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`, where: path });
  }
}

export async function run(cli: Cli, args: readonly string[]): Promise<number> {
  const { values, positionals } = parse('verify-release', args, { manifest: { type: 'string' }, installed: { type: 'string' }, json: { type: 'boolean' } });
  const where = 'vouch verify-release';
  if (positionals.length > 1) return fail({ code: 'usage', message: `expected at most one tarball, got ${positionals.length}`, where });
  const tarball = positionals[0] !== undefined ? resolve(cli.io.cwd, positionals[0]) : undefined;
  if (tarball === undefined && values.manifest === undefined) {
    return fail({
      code: 'usage',
      message: 'give the tarball, or --manifest FILE with --installed DIR',
      where,
      expected: 'vouch verify-release vouch-X.Y.Z.tgz [--installed DIR]',
    });
  }
  if (tarball === undefined && values.installed === undefined)
    return fail({ code: 'usage', message: 'without a tarball there is nothing to check: give --installed DIR', where });
  const manifestPath = values.manifest !== undefined ? resolve(cli.io.cwd, values.manifest) : `${tarball!}${MANIFEST_SUFFIX}`;
  const installed = values.installed !== undefined ? resolve(cli.io.cwd, values.installed) : undefined;
  readable(manifestPath, 'the release manifest');
  if (tarball !== undefined) readable(tarball, 'the tarball');
  if (installed !== undefined) {
    readable(installed, 'the installed copy');
    if (!statSync(installed).isDirectory())
      return fail({ code: 'usage', message: '--installed is not a directory', where, found: installed, hint: 'the package directory: $(npm root -g)/vouch' });
  }
  const manifest = parseManifest(readFileSync(manifestPath, 'utf8'), manifestPath);
  if (!manifest.ok) return fail(manifest.error);

  const check = await verifyRelease(manifest.value, {
    ...(tarball !== undefined && { tarball: { path: tarball, display: basename(tarball) } }),
    ...(installed !== undefined && { installed }),
  });
  if (values.json) {
    json(cli, {
      ok: check.findings.length === 0,
      package: manifest.value.package,
      tarball: tarball !== undefined ? { path: tarball, sha256: check.tarball, expected: manifest.value.tarball.sha256 } : null,
      installed: installed ?? null,
      compared: check.compared,
      not_verified: check.unverified,
      findings: check.findings,
    });
  } else {
    out(cli, renderReleaseCheck(manifest.value, check, { tarball: tarball ?? null, installed: installed ?? null }, paint(cli.color)));
  }
  return check.findings.length === 0 ? EXIT.ok : EXIT.notOk;
}

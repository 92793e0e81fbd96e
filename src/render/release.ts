import { unreachable } from '../core/unreachable.js';
import type { ReleaseFinding, ReleaseReason } from '../release/finding.js';
import { INSTALL_OUTPUTS } from '../release/installed.js';
import type { ReleaseManifest } from '../release/manifest.js';
import type { ReleaseCheck } from '../release/verify.js';
import type { Paint } from './color.js';
import { table } from './table.js';

/** Every verify-release reason in words. Exhaustive: a new reason does not compile until it is explained. */
export function explainReleaseReason(reason: ReleaseReason): string {
  switch (reason) {
    case 'tarball_digest':
      return 'the tarball is not the one the manifest was made from';
    case 'tarball_unreadable':
      return "the tarball cannot be read as a gzip'd tar";
    case 'differs':
      return 'its bytes are not the released ones';
    case 'missing':
      return 'a released file is not there';
    case 'extra':
      return 'a file the release does not have';
    case 'not_a_file':
      return 'a link or special file where the release has a regular file';
    case 'duplicate':
      return 'the tarball holds this path twice';
    case 'outside_package':
      return 'a tarball entry outside package/';
    default:
      return unreachable(reason);
  }
}

/** The reason's word as the table shows it. */
function word(f: ReleaseFinding, p: Paint): string {
  return p.red(f.reason.toUpperCase());
}

export function renderReleaseCheck(
  manifest: ReleaseManifest,
  check: ReleaseCheck,
  where: { readonly tarball: string | null; readonly installed: string | null },
  p: Paint,
): string {
  const lines: string[] = [];
  const name = `${manifest.package.name} ${manifest.package.version}`;
  const what = [where.tarball ? `tarball ${where.tarball}` : null, where.installed ? `installed copy ${where.installed}` : null]
    .filter((x) => x !== null)
    .join(' and ');
  const counts = [
    check.compared.tarball !== null ? `${check.compared.tarball} files in the tarball` : null,
    check.compared.installed !== null ? `${check.compared.installed} files installed` : null,
  ].filter((x) => x !== null);
  if (check.findings.length === 0) {
    lines.push(`${p.green('release intact')}  ${name}: ${what}`);
    lines.push(
      `  every one of the manifest's ${manifest.files.length} files matches its SHA-256 (${counts.join(', ')})${check.tarball ? `; tarball ${check.tarball}` : ''}`,
    );
  } else {
    lines.push(`${p.red('release differs')}  ${name}: ${what}: ${check.findings.length} finding${check.findings.length === 1 ? '' : 's'}`);
    lines.push(table(check.findings.map((f) => [f.where, word(f, p), f.path, `${explainReleaseReason(f.reason)}: ${f.detail}`])));
  }
  if (check.unverified.length > 0) {
    lines.push(p.yellow('  not verified (made by the install, not in the tarball):'));
    lines.push(
      table(
        check.unverified.map((path) => [path, INSTALL_OUTPUTS.find((o) => o.path === path)?.why ?? '']),
        '    ',
      ),
    );
  }
  return lines.join('\n');
}

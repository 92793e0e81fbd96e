import { lstatSync, realpathSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { isCredentialPath } from '../scope/credentials.js';
import { hashFile } from '../scope/hash-file.js';
import { checkRelativePath } from '../scope/paths.js';
import { isInside } from '../scope/scan.js';
import type { BundleFinding } from './bundle-finding.js';

/**
 * Compares the files a statement names with the workspace as it is now.
 * The names come from a file someone handed over, so they get the same
 * care as a spec's globs: nothing outside the workspace, no credential-shaped
 * path, no symlink leading out, no FIFO or device, is ever opened.
 */
export function compareWithWorkspace(root: string, files: readonly { name: string; sha256: string }[]): BundleFinding[] {
  const findings: BundleFinding[] = [];
  const seen = new Set<string>();
  for (const file of files) {
    if (seen.has(file.name)) continue;
    seen.add(file.name);
    const finding = compareOne(root, file.name, file.sha256);
    if (finding) findings.push(finding);
  }
  return findings;
}

function compareOne(root: string, name: string, recorded: string): BundleFinding | undefined {
  const refused = (detail: string): BundleFinding => ({ code: 'file_refused', path: name, detail });
  const path = checkRelativePath(name);
  if (!path.ok || path.value !== name || name === '.')
    return refused(`not a plain workspace-relative path (${path.ok ? 'not normalised' : path.why}); not read`);
  if (isCredentialPath(name)) return refused('credential-shaped path; never read');
  const absolute = join(root, name);
  let real: string;
  try {
    lstatSync(absolute);
    real = realpathSync(absolute);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { code: 'file_missing', path: name, detail: 'no longer exists' };
    return refused(`cannot be resolved (${code ?? String(error)})`);
  }
  if (!isInside(root, real)) return refused(`resolves outside the workspace, to ${real}; not read`);
  if (isCredentialPath(relative(root, real).split(sep).join('/'))) return refused('resolves to a credential-shaped path; never read');
  const hashed = hashFile(real, root);
  if (!hashed.ok) return refused(hashed.detail);
  if (hashed.sha256 !== recorded)
    return { code: 'file_changed', path: name, detail: `sha256 now ${hashed.sha256.slice(0, 12)}…, recorded ${recorded.slice(0, 12)}…` };
  return undefined;
}

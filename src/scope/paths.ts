/**
 * Validation of operator-written paths and globs. Everything a spec names
 * must stay inside the workspace: absolute paths and `..` are refused when
 * the spec loads, before anything runs or is read.
 */

export type PathCheck = { ok: true; value: string } | { ok: false; why: string };

const PARENT_SEGMENT = /(^|[/{,])\.\.($|[/},])/;

function refuseCommon(input: string): string | undefined {
  if (input.includes('\0')) return 'contains a NUL byte';
  if (input.includes('\\')) return 'contains a backslash; use forward slashes';
  if (input.startsWith('/') || input.startsWith('~') || /^[A-Za-z]:/.test(input)) {
    return 'is absolute; paths and globs are relative to the workspace root';
  }
  if (PARENT_SEGMENT.test(input)) return 'contains "..", which could leave the workspace';
  return undefined;
}

function stripDotSegments(input: string): string {
  return input
    .split('/')
    .filter((segment) => segment !== '.' && segment !== '')
    .join('/');
}

/** A workspace-relative directory or file path; "." means the root. */
export function checkRelativePath(input: string): PathCheck {
  const why = refuseCommon(input);
  if (why) return { ok: false, why };
  const value = stripDotSegments(input);
  return { ok: true, value: value === '' ? '.' : value };
}

/** A workspace-relative glob. */
export function checkGlob(input: string): PathCheck {
  const why = refuseCommon(input);
  if (why) return { ok: false, why };
  const value = stripDotSegments(input);
  if (value === '') return { ok: false, why: 'names the workspace root itself, not files in it; use "**"' };
  return { ok: true, value };
}

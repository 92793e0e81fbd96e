import { checkGlob, checkRelativePath } from '../scope/paths.js';
import type { RawCheck, RawSpec } from './schema.js';

/** A rule violation, located by its path in the YAML document. */
export interface SpecIssue {
  readonly path: readonly (string | number)[];
  readonly message: string;
  readonly expected?: string;
  /** Point at the key rather than the value (e.g. a duplicate id). */
  readonly atKey?: boolean;
}

/**
 * Rules that relate fields or need more than a type: each is a small
 * function over one check (or the whole spec) returning issues.
 */
type CheckRule = (check: RawCheck, at: (string | number)[]) => SpecIssue[];

const shellNeedsString: CheckRule = (check, at) => {
  if (typeof check.run === 'string' && check.shell !== true) {
    return [
      {
        path: [...at, 'run'],
        message: 'a plain-string command is refused: it would need a shell to split it',
        expected: 'an argv list such as ["npm", "test"], or shell: true to run the string with /bin/sh -c',
      },
    ];
  }
  if (Array.isArray(check.run) && check.shell === true) {
    return [
      {
        path: [...at, 'run'],
        message: 'with shell: true, run must be one string (the script for /bin/sh -c)',
        expected: 'a string such as "npm test | tee log"',
      },
    ];
  }
  return [];
};

const needsScope: CheckRule = (check, at) => {
  const count = (check.sources?.length ?? 0) + (check.tests?.length ?? 0) + (check.artifacts?.length ?? 0);
  if (count > 0) return [];
  return [
    {
      path: at,
      message: `check "${check.id}" declares no scope, so no PASS could ever go STALE`,
      expected: 'at least one of sources, tests or artifacts with at least one glob',
    },
  ];
};

const safeGlobs: CheckRule = (check, at) => {
  const issues: SpecIssue[] = [];
  for (const group of ['sources', 'tests', 'artifacts', 'inputs', 'exclude'] as const) {
    (check[group] ?? []).forEach((glob, index) => {
      const result = checkGlob(glob);
      if (!result.ok) {
        issues.push({
          path: [...at, group, index],
          message: `glob ${result.why}`,
          expected: 'a workspace-relative glob such as "src/**/*.ts"',
        });
      }
    });
  }
  return issues;
};

const safeCwd: CheckRule = (check, at) => {
  if (check.cwd === undefined) return [];
  const result = checkRelativePath(check.cwd);
  return result.ok ? [] : [{ path: [...at, 'cwd'], message: `cwd ${result.why}`, expected: 'a workspace-relative directory such as "." or "packages/app"' }];
};

const validExpectation: CheckRule = (check, at) => {
  const expect = check.expect;
  if (expect === undefined || typeof expect === 'string') return [];
  if ('regex' in expect) {
    try {
      new RegExp(expect.regex);
    } catch (error) {
      return [
        {
          path: [...at, 'expect', 'regex'],
          message: `not a valid regular expression: ${(error as Error).message}`,
          expected: 'a JavaScript regular expression',
        },
      ];
    }
  }
  if ('file_exists' in expect) {
    const result = checkRelativePath(expect.file_exists);
    if (!result.ok || result.value === '.') {
      return [
        {
          path: [...at, 'expect', 'file_exists'],
          message: `file_exists path ${result.ok ? 'names the workspace root' : result.why}`,
          expected: 'a workspace-relative file path such as "dist/app.zip"',
        },
      ];
    }
  }
  return [];
};

const CHECK_RULES: readonly CheckRule[] = [shellNeedsString, needsScope, safeGlobs, safeCwd, validExpectation];

function uniqueIds(spec: RawSpec): SpecIssue[] {
  const seen = new Map<string, number>();
  const issues: SpecIssue[] = [];
  spec.checks.forEach((check, index) => {
    const first = seen.get(check.id);
    if (first === undefined) {
      seen.set(check.id, index);
      return;
    }
    issues.push({
      path: ['checks', index, 'id'],
      message: `duplicate check id "${check.id}" (first used by checks[${first}])`,
      expected: 'ids unique within the spec',
    });
  });
  return issues;
}

/** Requiring remote receipts means nothing without the verifier's key pinned beside it. */
function remoteNeedsKey(spec: RawSpec): SpecIssue[] {
  if (spec.gate?.require_remote !== true || spec.verifier_key !== undefined) return [];
  return [
    {
      path: ['gate', 'require_remote'],
      message: 'require_remote needs the verifier key pinned in vouch.yaml: without it no remote receipt could be told from a forged one',
      expected: "verifier_key: the verifier service's public key as 64 hex characters",
    },
  ];
}

/** A password in vouch.yaml would be committed with it; the environment is where credentials go. */
function ledgerWithoutPassword(spec: RawSpec): SpecIssue[] {
  if (spec.ledger === undefined) return [];
  let password = '';
  try {
    password = new URL(spec.ledger).password;
  } catch {
    return [{ path: ['ledger'], message: 'not a URL', expected: 'postgres://user@host:5432/database' }];
  }
  if (password === '') return [];
  return [
    {
      path: ['ledger'],
      // At the key: the value (the password) is not quoted back.
      atKey: true,
      message: 'the ledger URL carries a password, which would be committed with vouch.yaml',
      expected: 'a URL without a password; put one with credentials in the VOUCH_LEDGER environment variable (it overrides ledger:), or use ~/.pgpass',
    },
  ];
}

/** `protect:` globs stay inside the workspace, like every other glob. */
function safeProtect(spec: RawSpec): SpecIssue[] {
  return (spec.protect ?? []).flatMap((glob, index) => {
    const result = checkGlob(glob);
    return result.ok ? [] : [{ path: ['protect', index], message: `glob ${result.why}`, expected: 'a workspace-relative glob such as "test/**"' }];
  });
}

/**
 * `network: true` gives a hermetic check its network back; on a check that
 * is not hermetic it would read as a promise that the others have none.
 */
function networkNeedsHermetic(spec: RawSpec): SpecIssue[] {
  return spec.checks.flatMap((check, index) =>
    check.network === true && (check.hermetic ?? spec.hermetic ?? false) !== true
      ? [
          {
            path: ['checks', index, 'network'],
            message: `network: true has no effect on check "${check.id}", which is not hermetic: a check that is not hermetic always has the network`,
            expected: 'hermetic: true on the check (or at the top level), or no network key',
          },
        ]
      : [],
  );
}

/**
 * `exec:`: a host list needs a proxy that lets those hosts through and no
 * other, which vouch exec does not have yet; refused rather than read as
 * either "all" or "none". Writable paths stay inside the workspace or HOME.
 */
function execRules(spec: RawSpec): SpecIssue[] {
  const exec = spec.exec;
  if (exec === undefined) return [];
  const issues: SpecIssue[] = [];
  if (Array.isArray(exec.network)) {
    issues.push({
      path: ['exec', 'network'],
      message:
        'a list of hosts is not supported yet: vouch exec has no proxy that lets some hosts through and not others, so the list could only be read as all or none',
      expected: 'false (loopback only) or true (the host network)',
    });
  }
  (exec.writable ?? []).forEach((path, index) => {
    const checked = path === '~' || path.startsWith('~/') ? checkRelativePath(path === '~' ? '.' : path.slice(2)) : checkRelativePath(path);
    if (!checked.ok)
      issues.push({
        path: ['exec', 'writable', index],
        message: `writable path ${checked.why}`,
        expected: 'a workspace-relative path such as "src" or ".", or a path under HOME such as "~/.cache"',
      });
  });
  return issues;
}

export function applyRules(spec: RawSpec): SpecIssue[] {
  const issues: SpecIssue[] = [
    ...safeProtect(spec),
    ...ledgerWithoutPassword(spec),
    ...remoteNeedsKey(spec),
    ...networkNeedsHermetic(spec),
    ...execRules(spec),
  ];
  spec.checks.forEach((check, index) => issues.push(...checkRules(check, index)));
  issues.push(...uniqueIds(spec));
  return issues;
}

/**
 * The rules of one check that has the right shape. Run on the well-shaped
 * checks of a spec whose shape is wrong elsewhere too, so that one pass
 * names every problem rather than the first kind only.
 */
export function checkRules(check: RawCheck, index: number): SpecIssue[] {
  return CHECK_RULES.flatMap((rule) => rule(check, ['checks', index]));
}

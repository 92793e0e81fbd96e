import { fail, type Problem } from '../core/problem.js';
import { checkGlob } from '../scope/paths.js';
import type { VerifyMode } from './model.js';
import { SCRIPT_NAME_PATTERN } from './script.js';

/** Attempts a card gets when its opener names none: enough for a fix or two, few enough that a loop stops and asks. */
export const DEFAULT_BUDGET_ATTEMPTS = 5;

/** What `card open` (or `card reprove`) was given, before it is checked. */
export interface ProofInput {
  /** Check ids of the allowed spec. */
  readonly proof: readonly string[];
  /** A proof script's file name under .vouch/cards/<card>/. */
  readonly proofScript?: string | undefined;
  /** Globs a script proof covers (default: the artifact). */
  readonly scope?: readonly string[] | undefined;
  /** Seconds a script proof may run. */
  readonly timeout?: number | undefined;
}

export interface OpenInput extends ProofInput {
  readonly goal?: string | undefined;
  readonly artifact?: string | undefined;
  readonly doneWhen?: string | undefined;
  readonly landsAt?: string | undefined;
  readonly budgetAttempts?: number | undefined;
  readonly budgetTokens?: number | undefined;
  readonly verify?: VerifyMode | undefined;
}

const text = (value: string | undefined) => (value === undefined ? '' : value.trim());

/**
 * Checks a contract: a card needs a goal, an artifact, a done-when and a
 * proof, all at once, or it is refused with every missing part named.
 */
export function checkOpenInput(input: OpenInput): { artifact: string; scope: readonly string[] } {
  const problems: Problem[] = [];
  const missing = (flag: string, what: string) => problems.push({ code: 'card_incomplete', message: `${flag} is missing`, where: flag, expected: what });
  if (text(input.goal) === '') missing('--goal', 'what this card is for, in words');
  if (text(input.artifact) === '') missing('--artifact', 'the file (or glob) the work changes, workspace-relative');
  if (text(input.doneWhen) === '') missing('--done-when', 'when it is done, in plain language');
  problems.push(...proofProblems(input));
  let artifact = text(input.artifact);
  if (artifact !== '') {
    const checked = checkGlob(artifact);
    if (checked.ok) artifact = checked.value;
    else
      problems.push({
        code: 'card_incomplete',
        message: `--artifact ${checked.why}`,
        where: '--artifact',
        expected: 'a workspace-relative path or glob',
        found: artifact,
      });
  }
  const scope = scopeOf(input, artifact, problems);
  if (problems.length > 0) {
    return fail({
      code: 'card_incomplete',
      message: `the card is not opened: its contract is incomplete (${problems.length} problem${problems.length === 1 ? '' : 's'})`,
      where: 'vouch card open',
      hint: 'a card needs --goal, --artifact, --done-when and a proof (--proof CHECK_ID... or --proof-script NAME)',
      more: problems,
    });
  }
  return { artifact, scope };
}

/** The proof part of a contract: exactly one kind of proof, well formed. */
export function proofProblems(input: ProofInput): Problem[] {
  const problems: Problem[] = [];
  const hasChecks = input.proof.length > 0;
  const script = input.proofScript;
  if (!hasChecks && script === undefined) {
    problems.push({
      code: 'card_incomplete',
      message: '--proof is missing',
      where: '--proof',
      expected: 'the checks whose PASS proves it done (--proof CHECK_ID, repeatable) or a script the verifier writes (--proof-script NAME)',
    });
  }
  if (hasChecks && script !== undefined) {
    problems.push({
      code: 'card_incomplete',
      message: '--proof and --proof-script both given: a card has one proof',
      where: '--proof-script',
      expected: 'one of them',
    });
  }
  if (script !== undefined && !SCRIPT_NAME_PATTERN.test(script)) {
    problems.push({
      code: 'card_incomplete',
      message: '--proof-script is not a file name',
      where: '--proof-script',
      expected: 'a name of 1-64 characters from A-Z a-z 0-9 . _ -, no slash',
      found: script,
    });
  }
  if (script === undefined && (input.scope?.length ?? 0) > 0) {
    problems.push({
      code: 'card_incomplete',
      message: '--scope applies to a script proof only (a check proof covers what vouch.yaml declares)',
      where: '--scope',
    });
  }
  if (script === undefined && input.timeout !== undefined) {
    problems.push({
      code: 'card_incomplete',
      message: '--timeout applies to a script proof only (a check proof has the timeout vouch.yaml declares)',
      where: '--timeout',
    });
  }
  if (input.timeout !== undefined && (input.timeout < 1 || input.timeout > 3600)) {
    problems.push({
      code: 'card_incomplete',
      message: '--timeout is out of range',
      where: '--timeout',
      expected: 'an integer number of seconds from 1 to 3600',
      found: String(input.timeout),
    });
  }
  return problems;
}

/** The globs a script proof fingerprints: --scope, else the artifact. */
export function scopeOf(input: ProofInput, artifact: string, problems: Problem[]): readonly string[] {
  if (input.proofScript === undefined) return [];
  const given = input.scope && input.scope.length > 0 ? input.scope : artifact === '' ? [] : [artifact];
  return given.flatMap((glob) => {
    const checked = checkGlob(glob);
    if (checked.ok) return [checked.value];
    problems.push({ code: 'card_incomplete', message: `--scope ${checked.why}`, where: '--scope', expected: 'a workspace-relative glob', found: glob });
    return [];
  });
}

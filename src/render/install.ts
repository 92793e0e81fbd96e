import { unreachable } from '../core/unreachable.js';
import type { EditOutcome, RefusalCode } from '../install/intent.js';
import type { Paint } from './color.js';

/** Every refusal in words: what kind of problem it is. */
export function refusalTitle(code: RefusalCode): string {
  switch (code) {
    case 'invalid_file':
      return 'the file cannot be read exactly';
    case 'unexpected_shape':
      return 'the file has a shape vouch does not edit';
    case 'conflict':
      return 'the place is already taken';
    case 'verify_mismatch':
      return 'the edit, checked before writing, would change something else';
    case 'io_error':
      return 'a file could not be read or written';
    default:
      return unreachable(code);
  }
}

/** One outcome for people. A refusal says why, where, and the steps to do it by hand. */
export function renderOutcome(outcome: EditOutcome, p: Paint): string {
  switch (outcome.kind) {
    case 'written': {
      const how = outcome.how === 'applied' ? 'edited' : outcome.how === 'restored' ? 'restored to its bytes before vouch' : 'removed what vouch added to';
      return `${p.green('✓')} ${how} ${outcome.path}${outcome.backup && outcome.how === 'applied' ? p.dim(` (backup: ${outcome.backup})`) : ''}`;
    }
    case 'unchanged':
      return `${p.dim('·')} ${outcome.path}: nothing to do (${outcome.why})`;
    case 'refused': {
      const lines = [
        `${p.red('✗ refused:')} ${refusalTitle(outcome.refusal.code)}: ${outcome.refusal.message}`,
        `  path: ${outcome.path}`,
        '  nothing was written. To make the change by hand:',
        // A step may carry a snippet on the lines after it: indented under the step.
        ...outcome.refusal.manual.map((step) => `    - ${step.split('\n').join('\n      ')}`),
        `  ${p.cyan('agents:')} ask the person before editing this file yourself; do not work around the refusal.`,
      ];
      return lines.join('\n');
    }
  }
}

export function outcomeJson(outcome: EditOutcome): Record<string, unknown> {
  switch (outcome.kind) {
    case 'written':
      return { path: outcome.path, outcome: 'written', how: outcome.how, backup: outcome.backup };
    case 'unchanged':
      return { path: outcome.path, outcome: 'unchanged', why: outcome.why };
    case 'refused':
      return { path: outcome.path, outcome: 'refused', refusal: outcome.refusal };
  }
}

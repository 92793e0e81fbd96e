import type { Problem } from '../core/problem.js';
import type { LedgerError } from '../ledger/ledger.js';

// Its own module so that main.ts can render a ledger problem without
// loading the ledger (and SQLite) on every start: `vouch --version` must not.
export function ledgerProblem(error: LedgerError): Problem {
  switch (error.kind) {
    case 'corrupt':
      return {
        code: 'ledger_corrupt',
        message: `the ledger is corrupt: ${error.message}; no status can be given from it`,
        where: error.path,
        hint: 'move the file aside to keep it for inspection; vouch starts a new ledger on the next verify',
      };
    case 'unreadable':
      return { code: 'ledger_unreadable', message: error.message, where: error.path, hint: 'check the permissions of .vouch/ and that the disk is not full' };
    case 'read_only':
      return {
        code: 'ledger_unreadable',
        message: error.message,
        where: error.path,
        hint: "run it outside the agent's box (a person's terminal), or let the gate run the checks at the stop",
      };
    case 'too_new':
      return { code: 'ledger_too_new', message: error.message, where: error.path, hint: 'upgrade vouch' };
    case 'schema_behind':
      return {
        code: 'ledger_schema_behind',
        message: `the PostgreSQL ledger is not ready: ${error.message}`,
        where: error.path,
        hint: 'an operator runs `vouch db migrate` (with the same VOUCH_LEDGER or ledger:) once per schema and after each vouch upgrade',
      };
  }
}

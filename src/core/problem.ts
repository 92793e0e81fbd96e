/**
 * A problem that stops a command: bad usage, an invalid spec, an unreadable
 * ledger. Problems are data; the CLI renders them in one place and decides
 * the exit code from `code` in one place (see cli/exit.ts).
 */
export type ProblemCode =
  /** The command line itself is wrong (unknown flag, missing argument). */
  | 'usage'
  /** No vouch.yaml in this directory or any parent. */
  | 'workspace_not_found'
  /** vouch.yaml could not be read. */
  | 'spec_unreadable'
  /** vouch.yaml is not valid YAML or does not match the schema. */
  | 'spec_invalid'
  /** A named check id is not in the spec. */
  | 'check_not_found'
  /** A receipt id (or prefix) matched nothing, or more than one receipt. */
  | 'receipt_not_found'
  | 'receipt_ambiguous'
  /** `show --log`: the receipt has no stored log (recorded before vouch kept logs, or never ran), or its file is gone or damaged. */
  | 'log_not_found'
  /** The ledger file is damaged or is not a vouch ledger. */
  | 'ledger_corrupt'
  /** The ledger could not be opened (permissions, missing directory, lock). */
  | 'ledger_unreadable'
  /** The ledger was written by a newer vouch. */
  | 'ledger_too_new'
  /** A PostgreSQL ledger's schema is older than this vouch (or absent): `vouch db migrate`. */
  | 'ledger_schema_behind'
  /** The trust store under VOUCH_HOME could not be read or written. */
  | 'trust_store'
  /** `init --write` found a spec already there. */
  | 'spec_exists'
  /** `init` found nothing in the project to propose a check from. */
  | 'nothing_detected'
  /** `init --write`: a glob of the proposed spec would match no file, or only files of another group; nothing was written. */
  | 'proposal_scope_empty'
  /** A file vouch needed to write could not be written. */
  | 'write_failed'
  /** A named signing key is not under VOUCH_HOME/keys. */
  | 'key_not_found'
  /** `keys generate` would overwrite an existing key. */
  | 'key_exists'
  /** A key file (or a --key value) is not an Ed25519 key vouch can use. */
  | 'key_invalid'
  /** A private key is readable by others, or lies inside the workspace. */
  | 'key_unsafe'
  /** The spec requires signatures but no signing key is selected. */
  | 'signing_key_required'
  /** `export` was asked for receipts it cannot vouch for (damaged, unsigned, signed by another key). */
  | 'export_refused'
  /** An exported bundle could not be read or holds no envelope. */
  | 'bundle_invalid'
  /** vouch.yaml (as it is now) was never allowed, or was edited since; what needs it (freezing a card's proof) is refused. */
  | 'spec_not_allowed'
  // Task cards (src/cards). Input problems:
  /** No card with this id in the ledger. */
  | 'card_not_found'
  /** `card open` (or a follow-up) lacks part of the contract: goal, artifact, done-when or proof; or a contract value is malformed. */
  | 'card_incomplete'
  /** An event of the card no longer matches its hash (or its signature): the card is not acted on. */
  | 'card_damaged'
  // Refusals by the card's contract (exit 4):
  /** complete: no verdict of the card's current proof has been recorded. */
  | 'card_no_verdict'
  /** complete: the newest verdict of the proof is FAIL or UNKNOWN, or its receipt no longer counts. */
  | 'card_not_passing'
  /** complete: the newest PASS was recorded before the newest claim: the work since is unproven. */
  | 'card_pass_before_claim'
  /** claim: another holder holds the card (one writer per card) and this is not the owner's or a coordinator's reassign. */
  | 'card_claimed'
  /** complete: a check of the proof FAILed after the PASS (outside the card, or in an audit). */
  | 'card_failed_since'
  /** complete: the files the PASS covered (or the proof script) changed since: the PASS is STALE. */
  | 'card_stale'
  /** complete: an agent recorded a write of the proof's scope after the PASS began: the PASS is older than the last change. */
  | 'card_changed_since'
  /** complete: the card names --lands-at BRANCH and the PASS was not taken on a clean commit that is on it. */
  | 'card_not_landed'
  /** complete: an independent card's PASS was run by a role that may not vouch for it (the worker). */
  | 'card_pass_not_independent'
  /** complete: the PASS was recorded inside an agent run: evidence made inside an agent's run never closes a card. */
  | 'card_pass_self_made'
  /** The acting role may not do this on this card. */
  | 'card_role_refused'
  /** A person's act on a card (reprove, decide, complete --force) attempted inside an agent run. */
  | 'card_agent_run'
  /** A person's act (allow, deny, init --write, install, uninstall, keys generate, gc, dispatch grade) attempted inside an agent run. */
  | 'agent_run'
  /** verify: the card has used every attempt of its budget; it stops and asks. */
  | 'card_over_budget'
  /** The card is closed (done, owner_close, split, abandoned). */
  | 'card_closed'
  /** The gate, at a card worker's stop, runs only a proof script a verifier bound: this one's hash is not bound yet. */
  | 'card_script_unbound'
  /** verify: the proof script's SHA-256 is not the bound one, and no revise-script decision authorised it. */
  | 'card_script_changed'
  /** verify: the proof script is missing, not a regular file, or has no #! line. */
  | 'card_script_unusable'
  /** rescope (or any decision but the owner's reprove) tried to move the proof. */
  | 'card_proof_frozen'
  /** A decision that does not apply to this card as it is (nothing to revise, nothing to change). */
  | 'card_decision_invalid'
  /** decide: a coordinator's second decision with no event of the card since its first (one decision per card event). */
  | 'card_decision_taken'
  /** audit: the card is not done, so there is nothing to re-check. */
  | 'card_not_done'
  /** No dispatch with that id (or unique prefix). */
  | 'dispatch_not_found'
  /** The dispatch's state does not allow that transition (grade before report, report after terminated...). */
  | 'illegal_transition'
  /** The dispatch's record cannot be believed (altered bytes, an impossible sequence): it is not graded. */
  | 'dispatch_damaged'
  /** vouch.yaml changed since the dispatch pinned it: grading is refused, not done against the new spec. */
  | 'pin_drift'
  /** The process asking to grade is the one that relayed the claim: nothing grades itself. */
  | 'grader_is_claimant'
  /** An agent's claim (the report JSON) is not valid. */
  | 'claim_invalid'
  /** A verifier worker cannot confine the checks it would run (no bubblewrap, or a layer that did not hold) and was not told --allow-unconfined. */
  | 'sandbox_unavailable'
  /** `verify-release`: the release manifest is not JSON, or not the shape scripts/release.mjs writes. */
  | 'manifest_invalid'
  /** `verify-release`: the tarball, the manifest or the installed directory cannot be read at all. */
  | 'release_unreadable'
  /** `checks --trace`: no tracer here (strace is not installed), or it cannot trace (ptrace forbidden). */
  | 'tracer_unavailable';

export interface Problem {
  readonly code: ProblemCode;
  /** One sentence: what went wrong. */
  readonly message: string;
  /** Where: a path, optionally with :line:column. */
  readonly where?: string;
  /** What was expected there. */
  readonly expected?: string;
  /**
   * What was found instead. Text is quoted by the renderer; a number, a
   * boolean or null (a value read from YAML or JSON) is shown as itself, so
   * `timeout: 5` is reported as found 5, not "5".
   */
  readonly found?: string | number | boolean | null;
  /** What to do next. */
  readonly hint?: string;
  /** Further problems of the same kind (every spec error, not just the first). */
  readonly more?: readonly Problem[];
}

/**
 * Carries a Problem from deep inside a command to the one top-level catch.
 * Used only where returning a value through every layer would add noise;
 * library code that can fail in expected ways returns results instead.
 */
export class VouchProblem extends Error {
  constructor(readonly problem: Problem) {
    super(problem.message);
    this.name = 'VouchProblem';
  }
}

export function fail(problem: Problem): never {
  throw new VouchProblem(problem);
}

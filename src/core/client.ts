/** An agent client vouch gates through its hooks: whose hook wrote a ledger entry. */
export type Client = 'claude-code' | 'codex';

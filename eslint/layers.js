// The architecture as lint rules: which folders of src/ may not import
// which. Each folder under src/ is one layer; a layer names the layers above
// it that it must never reach. docs/decisions/architecture.md says why.
//
// One config object per folder (ESLint lets the last no-restricted-imports
// for a file win, so each folder's bans are gathered into one rule).

/** Everything that decides for a person or an agent, or talks to one. */
const FRONT = ['cli', 'hooks', 'mcp', 'session', 'stop', 'render', 'report', 'service', 'init'];
/** The domain: gate, fleet, cards, and what is built from receipts. */
const DOMAIN = ['gate', 'fleet', 'cards', 'audit', 'export'];

/** layer -> the layers it must not import (cli is banned everywhere but in cli/ itself). */
export const LAYER_BANS = {
  core: ['*'],
  receipt: [...FRONT, ...DOMAIN, 'engine', 'ledger', 'scope', 'cache', 'trust', 'crypto', 'remote'],
  runner: [...FRONT, ...DOMAIN, 'engine', 'ledger', 'scope', 'cache', 'trust', 'crypto', 'remote'],
  workspace: [...FRONT, ...DOMAIN, 'engine', 'ledger', 'scope', 'cache', 'trust', 'crypto', 'remote', 'spec'],
  install: [...FRONT, ...DOMAIN, 'engine', 'ledger', 'scope', 'cache', 'trust', 'crypto', 'remote'],
  spec: [...FRONT, ...DOMAIN, 'engine', 'ledger', 'cache', 'trust', 'crypto', 'remote'],
  scope: [...FRONT, ...DOMAIN, 'engine', 'ledger', 'trust', 'crypto', 'remote', 'spec'],
  cache: [...FRONT, ...DOMAIN, 'engine', 'ledger', 'trust', 'crypto', 'remote', 'scope', 'spec'],
  archive: [...FRONT, ...DOMAIN, 'engine', 'ledger', 'trust', 'crypto', 'remote'],
  trust: [...FRONT, ...DOMAIN, 'engine', 'ledger', 'crypto', 'remote'],
  ledger: [...FRONT, ...DOMAIN, 'engine', 'crypto', 'remote', 'trust'],
  crypto: [...FRONT, ...DOMAIN, 'engine', 'remote'],
  logs: [...FRONT, ...DOMAIN, 'engine', 'remote', 'trust', 'crypto'],
  sandbox: [...FRONT, ...DOMAIN, 'engine', 'ledger', 'scope', 'cache', 'trust', 'crypto', 'remote', 'spec', 'hermetic', 'runner'],
  hermetic: [...FRONT, ...DOMAIN, 'engine', 'ledger', 'trust', 'crypto', 'remote'],
  trace: [...FRONT, ...DOMAIN, 'engine', 'ledger', 'cache', 'trust', 'crypto', 'remote', 'spec', 'runner', 'hermetic'],
  engine: [...FRONT, ...DOMAIN, 'remote'],
  remote: [...FRONT, ...DOMAIN],
  gate: FRONT,
  fleet: FRONT,
  cards: FRONT,
  audit: FRONT,
  export: FRONT,
  render: ['cli', 'hooks', 'mcp', 'session', 'stop', 'report', 'service', 'init'],
  init: ['cli', 'hooks', 'mcp', 'session', 'stop', 'report', 'service'],
  session: ['cli', 'hooks', 'mcp', 'stop', 'report', 'service', 'render'],
  stop: ['cli', 'hooks', 'mcp', 'session', 'report', 'service'],
  service: ['cli', 'hooks', 'mcp', 'session', 'stop', 'report', 'render'],
  report: ['cli', 'hooks', 'mcp', 'session', 'stop', 'service'],
  hooks: ['cli', 'mcp', 'report', 'service'],
  mcp: ['cli', 'hooks', 'report', 'service'],
};

/**
 * A relative import that climbs out of its folder (at least one `..`, with
 * any `./` mixed in: `./../gate/` is `../gate/`) into src/<layer>/.
 */
function importsOf(layers) {
  const names = layers.includes('*') ? '[^./][^/]*' : `(${layers.join('|')})`;
  return `^(\\.{1,2}/)*\\.\\./(\\.{1,2}/)*${names}/`;
}

export const layerConfigs = Object.entries(LAYER_BANS).map(([layer, banned]) => {
  const all = banned.includes('*') ? banned : [...new Set([...banned, 'cli'])];
  return {
    name: `vouch/layers/${layer}`,
    files: [`src/${layer}/**/*.ts`],
    ignores: ['**/*.test.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: importsOf(all),
              message: all.includes('*')
                ? `src/core/ imports nothing from the rest of vouch: every other layer stands on it.`
                : `src/${layer}/ may not import ${all.map((l) => `${l}/`).join(', ')}: they stand above it (eslint/layers.js).`,
            },
          ],
        },
      ],
    },
  };
});

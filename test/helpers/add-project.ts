// The small project both real-client suites (Claude Code, Codex) drive:
// add() in src/add.js, a test of it the worker may not touch, one check.

export const ADD_SPEC = `version: 1
checks:
  - id: tests
    run: ["node", "test/add.test.js"]
    sources: ["src/**"]
    tests: ["test/**"]
protect: ["test/**"]
`;
export const ADD_GOOD = 'module.exports = (a, b) => a + b;\n';
export const ADD_BROKEN = 'module.exports = (a, b) => a - b;\n';
export const ADD_TEST = `const add = require('../src/add.js');
const got = add(2, 2);
if (got !== 4) { console.error('add(2, 2) returned ' + got + ', expected 4'); process.exit(1); }
console.log('ok');
`;

// Every command, code-split (dist/esm/main.js): each command loads its own
// chunks. The launcher (src/entry/launch.ts) starts this for every command
// the hot bundle does not answer.
import { runProcess } from '../cli/process.js';

await runProcess(new URL('./hash-worker.js', import.meta.url));

// The install step (package.json "install"): builds vouch's optional native
// stat path (binding.gyp, native/lstat_batch.c) with node-gyp. Never fails
// the install: without a compiler, headers or network for node-gyp's header
// download, vouch uses its JavaScript fallback (src/scope/stat-batch.ts),
// which gives the same answers, only slower. VOUCH_SKIP_NATIVE=1 skips it.
import { spawnSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const say = (message) => process.stderr.write(`vouch: ${message}\n`);

function nodeGyp() {
  // npm names the node-gyp it bundles; outside npm, one on PATH.
  const bundled = process.env.npm_config_node_gyp;
  return bundled && existsSync(bundled) ? [process.execPath, bundled] : ['node-gyp'];
}

if (process.env.VOUCH_SKIP_NATIVE === '1') {
  say('VOUCH_SKIP_NATIVE=1: the native stat path is not built (the JavaScript fallback is used)');
} else if (!existsSync(join(root, 'binding.gyp'))) {
  // Nothing to build (a bundle without the sources).
} else {
  const [command, ...args] = nodeGyp();
  const result = spawnSync(command, [...args, 'rebuild', '--release'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], timeout: 300_000 });
  // Success is the addon on disk: a node-gyp stand-in can exit 0 having built nothing.
  if (result.status === 0 && existsSync(join(root, 'build', 'Release', 'vouch_native.node'))) {
    // Only the addon is needed at run time: the object files can go.
    rmSync(join(root, 'build', 'Release', 'obj.target'), { recursive: true, force: true });
  } else {
    const why = result.error ? result.error.message : result.status === 0 ? 'node-gyp built no addon' : `node-gyp exited ${result.status ?? result.signal}`;
    const last = `${result.stderr ?? ''}`
      .trim()
      .split('\n')
      .filter((line) => /ERR!/.test(line))
      .slice(0, 3)
      .join('; ');
    say(`the native stat path was not built (${why}${last ? `: ${last}` : ''}); vouch works without it, using its JavaScript fallback`);
    rmSync(join(root, 'build'), { recursive: true, force: true });
  }
}
// Always 0: a failed optional build must not fail `npm ci` or a global install.
process.exitCode = 0;

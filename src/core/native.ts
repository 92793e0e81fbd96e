import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

/**
 * vouch's optional native addon (binding.gyp: native/lstat_batch.c and
 * native/digest.c), built at install. Every function in it has a
 * JavaScript fallback that gives the same answers; the addon only makes
 * the hot paths cheaper. Found beside the package root, loaded once.
 */
export interface NativeAddon {
  readonly lstatBatch: (root: string, texts: Buffer[], starts: Uint32Array[], out: BigInt64Array, errs: Int32Array) => number;
  readonly isatty: (fd: number) => boolean;
  /** Absent when the running Node does not export its OpenSSL (native/digest.c). */
  readonly sha256?: (parts: Uint8Array[]) => Buffer;
  readonly hmacSha256?: (key: Uint8Array, parts: Uint8Array[]) => Buffer;
}

/** Which implementation answers: the addon, or the JavaScript fallback and why. */
export type NativePath = 'native' | 'js:disabled' | 'js:absent' | 'js:failed';

const ADDON = 'vouch_native.node';
// From src/core/ (tests), dist/ (the hot bundle), dist/esm/ and dist/esm/chunks/ (the split build) to the package root.
const CANDIDATES = ['../../build/Release/', '../build/Release/', '../../../build/Release/'];

let loaded: { addon: NativeAddon | undefined; path: NativePath } | undefined;

/** The addon and how it was found; VOUCH_NATIVE=0 in `env` turns it off (the fallbacks answer). */
export function nativeAddon(env: NodeJS.ProcessEnv = process.env): { addon: NativeAddon | undefined; path: NativePath } {
  if (env.VOUCH_NATIVE === '0') return { addon: undefined, path: 'js:disabled' };
  if (loaded) return loaded;
  const require = createRequire(import.meta.url);
  let path: NativePath = 'js:absent';
  for (const dir of CANDIDATES) {
    const file = fileURLToPath(new URL(dir + ADDON, import.meta.url));
    if (!existsSync(file)) continue;
    try {
      const addon = require(file) as Partial<NativeAddon>;
      if (typeof addon.lstatBatch === 'function' && typeof addon.isatty === 'function') return (loaded = { addon: addon as NativeAddon, path: 'native' });
      path = 'js:failed';
    } catch {
      // Built for another Node ABI, or damaged: the fallback answers.
      path = 'js:failed';
    }
  }
  return (loaded = { addon: undefined, path });
}

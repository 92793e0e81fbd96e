/**
 * The code cache file (dist/hot.js.cache): V8's data behind a header naming
 * the build of the bundle it was made from. V8 itself checks a cache only
 * against the source's length, so a cache beside another bundle of the same
 * length would be taken and run the other build's bytecode; the header
 * binds it to its build, whose id is the bundle's first line
 * (`// vouch build <id>`, written by scripts/build.mjs).
 *
 *   0   "VOUCHCC1"
 *   8   the build id, 32 ASCII hex digits
 *   40  V8's cached data
 */
const MAGIC = 'VOUCHCC1';
const HEADER = 40;
const FIRST_LINE = /^\/\/ vouch build ([0-9a-f]{32})\n/;

/** The build id the bundle names on its first line, or undefined. */
export function bundleBuild(source: string): string | undefined {
  return FIRST_LINE.exec(source)?.[1];
}

/** The file's bytes for V8's data made from a bundle of this build. */
export function encodeCodeCache(build: string, data: Buffer): Buffer {
  return Buffer.concat([Buffer.from(`${MAGIC}${build}`, 'latin1'), data]);
}

/** V8's data, when the file was made for this build; undefined otherwise (then the bundle is compiled from source). */
export function decodeCodeCache(file: Buffer, build: string | undefined): Buffer | undefined {
  if (build === undefined || file.length <= HEADER || file.toString('latin1', 0, HEADER) !== `${MAGIC}${build}`) return undefined;
  return file.subarray(HEADER);
}

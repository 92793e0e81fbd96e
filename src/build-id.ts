declare const __VOUCH_BUILD__: string | undefined;

/**
 * Names the exact build (scripts/build.mjs defines it from the sources), so
 * that anything cached from a computation of this code (a parsed spec) is
 * never reused by other code. Undefined when running from source (unit
 * tests), where nothing of the kind is cached.
 */
export const BUILD_ID: string | undefined = typeof __VOUCH_BUILD__ === 'string' ? __VOUCH_BUILD__ : undefined;

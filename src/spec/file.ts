/** The spec's file name at a workspace root. Its own module: finding a workspace must not load the YAML parser. */
export const SPEC_FILE = 'vouch.yaml';

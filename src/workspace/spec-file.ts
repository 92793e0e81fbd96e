/** The spec's file name, at the workspace root. Its own module so that finding a workspace loads no parser. */
export const SPEC_FILE = 'vouch.yaml';

/**
 * Credential-shaped paths are never opened, whatever a glob says: a check's
 * scope is the operator's choice, but a stray `**` must not make vouch read
 * (and record hashes of) keys and tokens. Such paths are listed as refused.
 */
const SECRET_DIRS = new Set(['.ssh', '.gnupg', '.aws']);

const SECRET_NAMES = new Set(['auth.json', '.npmrc', '.netrc', '.pypirc', '.git-credentials', '.htpasswd']);

const SECRET_PATTERNS: readonly RegExp[] = [
  /^\.env($|\.)/, // .env, .env.local, .env.production ...
  /\.(pem|key|p12|pfx|jks|keystore)$/,
  /^id_(rsa|dsa|ecdsa|ed25519)/,
];

/** True when a workspace-relative path looks like it holds a credential. */
export function isCredentialPath(relativePath: string): boolean {
  const segments = relativePath.split('/');
  for (let i = 0; i < segments.length - 1; i++) {
    if (SECRET_DIRS.has(segments[i]!.toLowerCase())) return true;
  }
  const name = (segments[segments.length - 1] ?? '').toLowerCase();
  return SECRET_NAMES.has(name) || SECRET_PATTERNS.some((pattern) => pattern.test(name));
}

/** The rule, in words, for README and refusal messages. */
export const CREDENTIAL_RULE =
  '.env*, *.pem, *.key, *.p12, *.pfx, *.jks, *.keystore, id_rsa*/id_dsa*/id_ecdsa*/id_ed25519*, auth.json, .npmrc, .netrc, .pypirc, .git-credentials, .htpasswd, and anything under .ssh/, .gnupg/ or .aws/';

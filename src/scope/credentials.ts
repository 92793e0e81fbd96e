/**
 * Credential-shaped paths are never opened, whatever a glob says: a check's
 * scope is the operator's choice, but a stray `**` must not make vouch read
 * (and record hashes of) keys and tokens. Such paths are listed as refused.
 */
const SECRET_DIR = /(?:^|\/)(?:\.ssh|\.gnupg|\.aws)\//i;

const SECRET_NAMES = new Set(['auth.json', '.npmrc', '.netrc', '.pypirc', '.git-credentials', '.htpasswd']);

const SECRET_NAME = new RegExp(
  [
    /^\.env($|\.)/.source, // .env, .env.local, .env.production ...
    /\.(pem|key|p12|pfx|jks|keystore)$/.source,
    /^id_(rsa|dsa|ecdsa|ed25519)/.source,
  ].join('|'),
);

/** True when a workspace-relative path looks like it holds a credential. */
export function isCredentialPath(relativePath: string): boolean {
  // Runs for every file of every scan: two regular expressions, no split.
  if (SECRET_DIR.test(relativePath)) return true;
  const name = relativePath.slice(relativePath.lastIndexOf('/') + 1).toLowerCase();
  return SECRET_NAMES.has(name) || SECRET_NAME.test(name);
}

/** The rule, in words, for README and refusal messages. */
export const CREDENTIAL_RULE =
  '.env*, *.pem, *.key, *.p12, *.pfx, *.jks, *.keystore, id_rsa*/id_dsa*/id_ecdsa*/id_ed25519*, auth.json, .npmrc, .netrc, .pypirc, .git-credentials, .htpasswd, and anything under .ssh/, .gnupg/ or .aws/';

/**
 * Credential-shaped paths are never opened, whatever a glob says: a check's
 * scope is the operator's choice, but a stray `**` must not make vouch read
 * (and record hashes of) keys and tokens. Such paths are listed as refused.
 */
const SECRET_DIR = /(?:^|\/)(?:\.ssh|\.gnupg|\.aws)\//i;

const SECRET_NAME = new RegExp(
  [
    /^\.env(?:$|\.)/.source, // .env, .env.local, .env.production ...
    /\.(?:pem|key|p12|pfx|jks|keystore)$/.source,
    /^id_(?:rsa|dsa|ecdsa|ed25519)/.source,
    /^(?:auth\.json|\.npmrc|\.netrc|\.pypirc|\.git-credentials|\.htpasswd)$/.source,
  ].join('|'),
  'i',
);

/** True when a workspace-relative path looks like it holds a credential. */
export function isCredentialPath(relativePath: string): boolean {
  // Runs for every file of every scan: the name first; the directories
  // only when some segment starts with a dot.
  const slash = relativePath.lastIndexOf('/');
  if (SECRET_NAME.test(slash < 0 ? relativePath : relativePath.slice(slash + 1))) return true;
  return slash > 0 && (relativePath.charCodeAt(0) === 46 || relativePath.includes('/.')) && SECRET_DIR.test(relativePath);
}

/** The rule, in words, for README and refusal messages. */
export const CREDENTIAL_RULE =
  '.env*, *.pem, *.key, *.p12, *.pfx, *.jks, *.keystore, id_rsa*/id_dsa*/id_ecdsa*/id_ed25519*, auth.json, .npmrc, .netrc, .pypirc, .git-credentials, .htpasswd, and anything under .ssh/, .gnupg/ or .aws/';

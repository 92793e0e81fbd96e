/**
 * The environment a check runs with: enough to find programs and behave
 * (PATH, HOME, locale, temp), where to find extra certificate authorities,
 * plus the names the operator listed. Nothing else crosses: tokens, proxies
 * and agent switches in the caller's environment stay out of the check.
 *
 * The default list is small and fixed on purpose
 * (docs/decisions/the-check-environment-and-set-up.md, docs/security.md): each name is non-secret and at most makes TLS trust a
 * root or fail. Proxies are not on it: a proxy URL can carry user:password,
 * and it decides where a check's traffic goes.
 */
const BASE_NAMES = ['PATH', 'HOME', 'USER', 'LOGNAME', 'SHELL', 'LANG', 'LANGUAGE', 'TZ', 'TMPDIR', 'TMP', 'TEMP'];

/**
 * Where TLS clients look for certificate authorities: without them a check
 * behind a TLS-inspecting proxy or a private registry fails with
 * SELF_SIGNED_CERT_IN_CHAIN and nothing points at the environment.
 */
const CERTIFICATE_NAMES = ['NODE_EXTRA_CA_CERTS', 'SSL_CERT_FILE', 'SSL_CERT_DIR', 'REQUESTS_CA_BUNDLE', 'CURL_CA_BUNDLE', 'GIT_SSL_CAINFO', 'PIP_CERT'];

/** Every name that reaches a check without being listed in its `env:` (besides LC_*). */
export const DEFAULT_ENV_NAMES: readonly string[] = [...BASE_NAMES, ...CERTIFICATE_NAMES];

function isDefault(name: string): boolean {
  return DEFAULT_ENV_NAMES.includes(name) || name.startsWith('LC_');
}

/**
 * Set in every check's environment, so that what Python runs is the
 * interpreter's own library and the check's declared files, not files
 * outside the proof: PYTHONNOUSERSITE keeps the user's site-packages
 * (~/.local/lib/python3.X/site-packages, where a `.pth` line runs at every
 * start, e.g. `os._exit(0)` when VOUCH_CHECK_ID is set) off sys.path;
 * PYTHONSAFEPATH (Python 3.11+) keeps the working directory or the script's
 * own off its front, so a sourceless `pytest.pyc` at the workspace root is
 * not imported by `python3 -m pytest`. A check whose `env:` lists one of
 * them gets the caller's value instead (none, when the caller has none).
 */
export const PYTHON_DEFAULTS: Readonly<Record<string, string>> = { PYTHONNOUSERSITE: '1', PYTHONSAFEPATH: '1' };

export function checkEnvironment(source: NodeJS.ProcessEnv, allowed: readonly string[], extra: Readonly<Record<string, string>> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(PYTHON_DEFAULTS)) if (!allowed.includes(name)) env[name] = value;
  for (const [name, value] of Object.entries(source)) {
    if (value === undefined) continue;
    if (isDefault(name) || allowed.includes(name)) env[name] = value;
  }
  env.PATH ??= '/usr/local/bin:/usr/bin:/bin';
  return { ...env, ...extra };
}

/**
 * Names in the caller's environment that only describe the caller's own
 * shell, terminal or agent, or are vouch's own: never the reason a check
 * failed, so not worth naming when one does.
 */
const NOISE = new Set(['_', 'PWD', 'OLDPWD', 'SHLVL', 'TERM', 'COLORTERM', 'NO_COLOR', 'FORCE_COLOR', 'DISPLAY', 'HOSTNAME', 'CLAUDECODE', 'AI_AGENT']);
const NOISE_PREFIXES = ['VOUCH_', 'TERM_', 'SSH_', 'XDG_', 'CODEX_', 'CURSOR_', 'GEMINI_'];

/**
 * The caller's variables that did not reach a check (sorted names, never
 * values), leaving out the noise above: what a failing check may have
 * missed. The operator decides which to add to `env:`.
 */
export function withheldEnvironment(source: NodeJS.ProcessEnv, allowed: readonly string[]): string[] {
  return Object.keys(source)
    .filter((name) => source[name] !== undefined && !isDefault(name) && !allowed.includes(name))
    .filter((name) => !NOISE.has(name) && !/^PS\d$/.test(name) && !NOISE_PREFIXES.some((prefix) => name.startsWith(prefix)))
    .sort();
}

/**
 * Whether a withheld name may be offered as the example of what to add to
 * `env:`: not one that reads like a credential, nor a proxy (its URL can
 * carry user:password). It may still be the one needed; the operator decides.
 */
export function suggestable(name: string): boolean {
  return !looksSecret(name);
}

function looksSecret(name: string): boolean {
  return /TOKEN|SECRET|PASSW|PASSPHRASE|CREDENTIAL|AUTH|COOKIE|SESSION|(^|_)KEY($|_)|PRIVATE|_PAT$|_PASS$/i.test(name) || /PROXY/i.test(name);
}

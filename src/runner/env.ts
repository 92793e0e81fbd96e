/**
 * The environment a check runs with: enough to find programs and behave
 * (PATH, HOME, locale, temp), plus the names the operator listed. Nothing
 * else crosses: tokens, proxies and agent switches in the caller's
 * environment stay out of the check.
 */
const BASE_NAMES = ['PATH', 'HOME', 'USER', 'LOGNAME', 'SHELL', 'LANG', 'LANGUAGE', 'TZ', 'TMPDIR', 'TMP', 'TEMP'];

export function checkEnvironment(
  source: NodeJS.ProcessEnv,
  allowed: readonly string[],
  extra: Readonly<Record<string, string>> = {},
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(source)) {
    if (value === undefined) continue;
    if (BASE_NAMES.includes(name) || name.startsWith('LC_') || allowed.includes(name)) env[name] = value;
  }
  env.PATH ??= '/usr/local/bin:/usr/bin:/bin';
  return { ...env, ...extra };
}

export const BASE_ENV_DESCRIPTION = `${BASE_NAMES.join(', ')}, LC_*`;

/**
 * Where the command word is in argv: the first word that is not an option
 * or the value of -C/--dir; -1 when there is none. main() and the launcher
 * (which picks the bundle by the command) both find it here, so they cannot
 * disagree about which command a command line runs.
 */
export function commandIndex(argv: readonly string[]): number {
  return argv.findIndex((arg, i) => !arg.startsWith('-') && argv[i - 1] !== '-C' && argv[i - 1] !== '--dir');
}

/**
 * The directory -C/--dir names (`-C DIR`, `--dir DIR`, `--dir=DIR`), before
 * the command word or after it, as main() reads it: the one before wins.
 * Undefined when there is none.
 */
export function dirOption(argv: readonly string[]): string | undefined {
  const at = commandIndex(argv);
  const before = at < 0 ? argv : argv.slice(0, at);
  return optionIn(before) ?? (at < 0 ? undefined : optionIn(argv.slice(at + 1)));
}

/** The value of the first -C/--dir in `args`, or undefined. */
export function optionIn(args: readonly string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if ((arg === '-C' || arg === '--dir') && i + 1 < args.length) return args[i + 1];
    if (arg.startsWith('--dir=')) return arg.slice('--dir='.length);
  }
  return undefined;
}

/**
 * Where the command word is in argv: the first word that is not an option
 * or the value of -C/--dir; -1 when there is none. main() and the launcher
 * (which picks the bundle by the command) both find it here, so they cannot
 * disagree about which command a command line runs.
 */
export function commandIndex(argv: readonly string[]): number {
  return argv.findIndex((arg, i) => !arg.startsWith('-') && argv[i - 1] !== '-C' && argv[i - 1] !== '--dir');
}

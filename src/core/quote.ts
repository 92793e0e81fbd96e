const PLAIN = /^[A-Za-z0-9_/.:=@%+,-]+$/;

/** One argument for a POSIX shell: as is when that is safe, else single-quoted. */
export function shellQuote(arg: string): string {
  if (PLAIN.test(arg)) return arg;
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}

/** A command line for a POSIX shell from an argv. */
export function shellLine(argv: readonly string[]): string {
  return argv.map(shellQuote).join(' ');
}

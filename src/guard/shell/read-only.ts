import type { Word } from './tokenize.js';

/**
 * How a command that only reads takes its arguments: every option known not
 * to write a file or run a program. A command counts as read-only only when
 * each option it was given is in its list; an option the list does not know
 * (`sort --compress-program=CMD`, `rg --pre CMD`, `tree -R`) makes the call
 * an opaque write, whatever the command's name. Options that name a file the
 * command writes (`sort -o F`, `tree -o F`) and operands that are outputs
 * (`uniq IN OUT`) are reported as write targets, so the guard can deny them.
 */
interface Reader {
  /** Short options that take no value, as letters (clustered: `-la`). */
  readonly flags?: string;
  /** Short options that take a value, attached (`-n5`) or as the next word. */
  readonly valued?: string;
  /** Long options without a value. */
  readonly long?: readonly string[];
  /** Long options with a value (`--key=V` or `--key V`). */
  readonly longValued?: readonly string[];
  /** Long options whose value is optional and only ever attached (`--color`, `--color=always`). */
  readonly longOptional?: readonly string[];
  /** Long options with two values (`jq --arg NAME VALUE`). */
  readonly longTwo?: readonly string[];
  /** Options whose value is a file the command writes (`-o`, `--output`). */
  readonly output?: readonly string[];
  /** The operand at this position (0-based) is a file the command writes: `uniq IN OUT`, `xxd IN OUT`. */
  readonly outputOperand?: number;
  /** At most this many operands (`hostname NAME` sets the host name). */
  readonly maxOperands?: number;
  /** `-NUM` is an option (`head -5`, `grep -3`) or a number operand (`seq -5 5`). */
  readonly numeric?: true;
  /** Every operand must start with this (`date +FORMAT`; another operand sets the clock). */
  readonly operandPrefix?: string;
  /** Any word at all: the command has no option that writes or runs anything (echo, printf, test). */
  readonly anyWords?: true;
}

const HELP = ['--help', '--version'];
const SUMS: Reader = {
  flags: 'bctwz',
  long: ['--binary', '--check', '--tag', '--text', '--zero', '--ignore-missing', '--quiet', '--status', '--strict', '--warn'],
};
const GREP: Reader = {
  flags: 'EFGPiyvwxcLloqsbHhnTZzaIrRU',
  valued: 'efmABCdD',
  numeric: true,
  long: [
    '--extended-regexp',
    '--fixed-strings',
    '--basic-regexp',
    '--perl-regexp',
    '--ignore-case',
    '--no-ignore-case',
    '--word-regexp',
    '--line-regexp',
    '--null-data',
    '--no-messages',
    '--invert-match',
    '--byte-offset',
    '--line-number',
    '--no-line-number',
    '--line-buffered',
    '--with-filename',
    '--no-filename',
    '--only-matching',
    '--quiet',
    '--silent',
    '--text',
    '--recursive',
    '--dereference-recursive',
    '--files-without-match',
    '--files-with-matches',
    '--count',
    '--initial-tab',
    '--null',
  ],
  longValued: [
    '--regexp',
    '--file',
    '--max-count',
    '--label',
    '--binary-files',
    '--directories',
    '--devices',
    '--include',
    '--exclude',
    '--exclude-from',
    '--exclude-dir',
    '--before-context',
    '--after-context',
    '--context',
  ],
  longOptional: ['--color', '--colour'],
};

/**
 * The commands known to only read, each with the options that keep it so
 * (GNU coreutils, grep, ripgrep, tree, jq). Not here, so never read-only:
 * pagers (less runs LESSOPEN and `!cmd`), awk (`system()`, `print > f`),
 * interpreters, and anything else. sed is read by its script (sed-script.ts).
 */
const READERS: Readonly<Record<string, Reader>> = {
  cat: { flags: 'AbeEnstTuv', long: ['--show-all', '--number-nonblank', '--show-ends', '--number', '--squeeze-blank', '--show-tabs', '--show-nonprinting'] },
  tac: { flags: 'br', valued: 's', long: ['--before', '--regex'], longValued: ['--separator'] },
  nl: {
    flags: 'p',
    valued: 'bdfhilnsvw',
    long: ['--no-renumber'],
    longValued: [
      '--body-numbering',
      '--section-delimiter',
      '--footer-numbering',
      '--header-numbering',
      '--line-increment',
      '--join-blank-lines',
      '--number-format',
      '--number-separator',
      '--starting-line-number',
      '--number-width',
    ],
  },
  head: { flags: 'qvz', valued: 'cn', numeric: true, long: ['--quiet', '--silent', '--verbose', '--zero-terminated'], longValued: ['--bytes', '--lines'] },
  tail: {
    flags: 'fFqvz',
    valued: 'cns',
    numeric: true,
    long: ['--retry', '--quiet', '--silent', '--verbose', '--zero-terminated'],
    longValued: ['--bytes', '--lines', '--pid', '--sleep-interval', '--max-unchanged-stats'],
    longOptional: ['--follow'],
  },
  wc: { flags: 'clmwL', long: ['--bytes', '--chars', '--lines', '--words', '--max-line-length'], longValued: ['--files0-from', '--total'] },
  ls: {
    flags: 'aAbBcCdDfFgGhHiklLmnNopqQrRsStuUvxXZ1',
    valued: 'ITw',
    long: [
      '--all',
      '--almost-all',
      '--author',
      '--escape',
      '--ignore-backups',
      '--directory',
      '--dired',
      '--file-type',
      '--full-time',
      '--group-directories-first',
      '--no-group',
      '--human-readable',
      '--si',
      '--dereference-command-line',
      '--dereference-command-line-symlink-to-dir',
      '--inode',
      '--kibibytes',
      '--dereference',
      '--literal',
      '--numeric-uid-gid',
      '--hide-control-chars',
      '--show-control-chars',
      '--quote-name',
      '--reverse',
      '--recursive',
      '--size',
      '--context',
      '--zero',
    ],
    longValued: [
      '--block-size',
      '--format',
      '--hide',
      '--indicator-style',
      '--ignore',
      '--quoting-style',
      '--sort',
      '--time',
      '--time-style',
      '--tabsize',
      '--width',
    ],
    longOptional: ['--color', '--classify', '--hyperlink'],
  },
  grep: GREP,
  egrep: GREP,
  fgrep: GREP,
  rg: {
    // Not: --pre and --pre-glob (run a program on each file), -z/--search-zip (runs decompressors found on PATH), --hostname-bin.
    flags: 'abcFHhIiLlNnoPpqSsUuVvwx0',
    valued: 'ABCdEefgjMmrTt',
    long: [
      '--binary',
      '--block-buffered',
      '--byte-offset',
      '--case-sensitive',
      '--column',
      '--count',
      '--count-matches',
      '--crlf',
      '--debug',
      '--files',
      '--files-with-matches',
      '--files-without-match',
      '--fixed-strings',
      '--follow',
      '--glob-case-insensitive',
      '--heading',
      '--no-heading',
      '--hidden',
      '--ignore-case',
      '--ignore-file-case-insensitive',
      '--include-zero',
      '--invert-match',
      '--json',
      '--line-buffered',
      '--line-number',
      '--line-regexp',
      '--max-columns-preview',
      '--mmap',
      '--multiline',
      '--multiline-dotall',
      '--no-config',
      '--no-ignore',
      '--no-ignore-dot',
      '--no-ignore-exclude',
      '--no-ignore-files',
      '--no-ignore-global',
      '--no-ignore-messages',
      '--no-ignore-parent',
      '--no-ignore-vcs',
      '--no-line-number',
      '--no-messages',
      '--no-mmap',
      '--no-pcre2-unicode',
      '--no-require-git',
      '--no-unicode',
      '--null',
      '--null-data',
      '--one-file-system',
      '--only-matching',
      '--passthru',
      '--pcre2',
      '--pcre2-version',
      '--pretty',
      '--quiet',
      '--smart-case',
      '--stats',
      '--stop-on-nonmatch',
      '--text',
      '--trim',
      '--type-list',
      '--unrestricted',
      '--vimgrep',
      '--with-filename',
      '--no-filename',
      '--word-regexp',
    ],
    longValued: [
      '--after-context',
      '--before-context',
      '--context',
      '--color',
      '--colors',
      '--context-separator',
      '--dfa-size-limit',
      '--encoding',
      '--engine',
      '--field-context-separator',
      '--field-match-separator',
      '--glob',
      '--iglob',
      '--ignore-file',
      '--max-columns',
      '--max-count',
      '--max-depth',
      '--max-filesize',
      '--path-separator',
      '--regex-size-limit',
      '--regexp',
      '--replace',
      '--sort',
      '--sortr',
      '--threads',
      '--type',
      '--type-not',
      '--type-add',
      '--type-clear',
      '--file',
    ],
  },
  sort: {
    // Not: -T/--temporary-directory (writes there), --compress-program (runs it).
    flags: 'bdfgiMhnRrVcCmsuz',
    valued: 'kSto',
    output: ['-o', '--output'],
    long: [
      '--ignore-leading-blanks',
      '--dictionary-order',
      '--ignore-case',
      '--general-numeric-sort',
      '--ignore-nonprinting',
      '--month-sort',
      '--human-numeric-sort',
      '--numeric-sort',
      '--random-sort',
      '--reverse',
      '--version-sort',
      '--debug',
      '--merge',
      '--stable',
      '--unique',
      '--zero-terminated',
    ],
    longValued: ['--random-source', '--sort', '--batch-size', '--files0-from', '--key', '--buffer-size', '--field-separator', '--parallel', '--output'],
    longOptional: ['--check'],
  },
  uniq: {
    flags: 'cdDiuz',
    valued: 'fsw',
    outputOperand: 1,
    long: ['--count', '--repeated', '--ignore-case', '--unique', '--zero-terminated'],
    longValued: ['--skip-fields', '--skip-chars', '--check-chars'],
    longOptional: ['--all-repeated', '--group'],
  },
  cut: {
    flags: 'nsz',
    valued: 'bcdf',
    long: ['--complement', '--only-delimited', '--zero-terminated'],
    longValued: ['--bytes', '--characters', '--delimiter', '--fields', '--output-delimiter'],
  },
  tr: { flags: 'cCdst', long: ['--complement', '--delete', '--squeeze-repeats', '--truncate-set1'] },
  paste: { flags: 'sz', valued: 'd', long: ['--serial', '--zero-terminated'], longValued: ['--delimiters'] },
  join: { flags: 'iz', valued: '12aejotv', long: ['--ignore-case', '--check-order', '--nocheck-order', '--header', '--zero-terminated'] },
  comm: { flags: '123z', long: ['--check-order', '--nocheck-order', '--total', '--zero-terminated'], longValued: ['--output-delimiter'] },
  fold: { flags: 'bs', valued: 'w', long: ['--bytes', '--spaces'], longValued: ['--width'] },
  column: { flags: 'tx', valued: 'cso' },
  rev: {},
  od: {
    flags: 'bcdfilosvx',
    valued: 'AjNStw',
    long: ['--output-duplicates', '--traditional'],
    longValued: ['--address-radix', '--skip-bytes', '--read-bytes', '--strings', '--format', '--width', '--endian'],
  },
  hexdump: { flags: 'bcCdovx', valued: 'eFfns' },
  xxd: { flags: 'abCdEeiprRu', valued: 'cglnos', outputOperand: 1 },
  strings: {
    flags: 'adfw',
    valued: 'eTnot',
    long: ['--all', '--data', '--print-file-name', '--include-all-whitespace'],
    longValued: ['--bytes', '--radix', '--encoding', '--target', '--output-separator'],
  },
  sha1sum: SUMS,
  sha224sum: SUMS,
  sha256sum: SUMS,
  sha384sum: SUMS,
  sha512sum: SUMS,
  md5sum: SUMS,
  b2sum: { ...SUMS, valued: 'l', longValued: ['--length'] },
  cksum: { ...SUMS, valued: 'al', longValued: ['--algorithm', '--length'], long: [...SUMS.long!, '--base64', '--raw', '--untagged'] },
  cmp: {
    flags: 'blsz',
    valued: 'in',
    long: ['--print-bytes', '--verbose', '--quiet', '--silent', '--zero-terminated'],
    longValued: ['--ignore-initial', '--bytes'],
  },
  diff: {
    flags: 'abBcdeEfilnNpqrsStTuwyZ',
    valued: 'CDFILSUWxX',
    numeric: true,
    long: [
      '--normal',
      '--brief',
      '--report-identical-files',
      '--ed',
      '--rcs',
      '--side-by-side',
      '--left-column',
      '--suppress-common-lines',
      '--show-c-function',
      '--expand-tabs',
      '--initial-tab',
      '--suppress-blank-empty',
      '--recursive',
      '--no-dereference',
      '--new-file',
      '--unidirectional-new-file',
      '--ignore-file-name-case',
      '--no-ignore-file-name-case',
      '--ignore-case',
      '--ignore-tab-expansion',
      '--ignore-trailing-space',
      '--ignore-space-change',
      '--ignore-all-space',
      '--ignore-blank-lines',
      '--text',
      '--strip-trailing-cr',
      '--minimal',
      '--speed-large-files',
    ],
    longValued: [
      '--width',
      '--show-function-line',
      '--label',
      '--tabsize',
      '--exclude',
      '--exclude-from',
      '--starting-file',
      '--from-file',
      '--to-file',
      '--ignore-matching-lines',
      '--horizon-lines',
      '--palette',
      '--line-format',
      '--old-line-format',
      '--new-line-format',
      '--unchanged-line-format',
      '--old-group-format',
      '--new-group-format',
      '--changed-group-format',
      '--unchanged-group-format',
      '--ifdef',
    ],
    longOptional: ['--context', '--unified', '--color'],
  },
  stat: { flags: 'LftZ', valued: 'c', long: ['--dereference', '--file-system', '--terse'], longValued: ['--format', '--printf', '--cached'] },
  // Not: -C (compiles a magic file, writing it), -z/-Z (decompress, possibly with external programs).
  file: {
    flags: 'bdhiklLNnprsS0',
    valued: 'eFfmP',
    long: [
      '--brief',
      '--mime',
      '--mime-type',
      '--mime-encoding',
      '--dereference',
      '--no-dereference',
      '--keep-going',
      '--raw',
      '--special-files',
      '--no-pad',
      '--no-buffer',
      '--print0',
      '--extension',
      '--apple',
      '--preserve-date',
    ],
    longValued: ['--exclude', '--separator', '--files-from', '--magic-file', '--parameter'],
  },
  du: {
    flags: 'a0bcDhHklLmPsSx',
    valued: 'BdtX',
    long: [
      '--all',
      '--apparent-size',
      '--bytes',
      '--total',
      '--dereference-args',
      '--human-readable',
      '--inodes',
      '--dereference',
      '--count-links',
      '--no-dereference',
      '--separate-dirs',
      '--si',
      '--summarize',
      '--one-file-system',
      '--null',
    ],
    longValued: ['--block-size', '--max-depth', '--files0-from', '--threshold', '--time-style', '--exclude-from', '--exclude'],
    longOptional: ['--time'],
  },
  df: {
    flags: 'ahHiklPTx',
    valued: 'BtX',
    long: ['--all', '--human-readable', '--si', '--inodes', '--local', '--no-sync', '--portability', '--print-type', '--sync', '--total'],
    longValued: ['--block-size', '--type', '--exclude-type'],
    longOptional: ['--output'],
  },
  // Not: -R (runs tree again in every directory, each writing 00Tree.html). -o FILE writes FILE.
  tree: {
    flags: 'adlfxiqNQpugshDFvtcUrnCASJX',
    valued: 'LPIHTo',
    output: ['-o'],
    long: [
      '--prune',
      '--noreport',
      '--si',
      '--du',
      '--inodes',
      '--device',
      '--dirsfirst',
      '--filesfirst',
      '--nolinks',
      '--matchdirs',
      '--ignore-case',
      '--gitignore',
      '--metafirst',
      '--fromfile',
      '--condense',
      '--noindent',
    ],
    longValued: ['--filelimit', '--charset', '--timefmt', '--sort', '--gitfile', '--hintro', '--houtro'],
  },
  jq: {
    // jq has no way to write a file or run a program; -L adds a module search path (read).
    flags: 'acCeMnrjRsSh0',
    valued: 'fL',
    long: [
      '--seq',
      '--stream',
      '--stream-errors',
      '--slurp',
      '--raw-input',
      '--null-input',
      '--compact-output',
      '--tab',
      '--color-output',
      '--monochrome-output',
      '--ascii-output',
      '--unbuffered',
      '--sort-keys',
      '--raw-output',
      '--raw-output0',
      '--join-output',
      '--exit-status',
      '--args',
      '--jsonargs',
    ],
    longValued: ['--indent', '--from-file'],
    longTwo: ['--arg', '--argjson', '--slurpfile', '--rawfile'],
  },
  basename: { flags: 'az', valued: 's', long: ['--multiple', '--zero'], longValued: ['--suffix'] },
  dirname: { flags: 'z', long: ['--zero'] },
  realpath: {
    flags: 'eLmPqsz',
    long: ['--canonicalize-existing', '--canonicalize-missing', '--logical', '--physical', '--quiet', '--strip', '--no-symlinks', '--zero'],
    longValued: ['--relative-to', '--relative-base'],
  },
  readlink: {
    flags: 'efmnqsvz',
    long: ['--canonicalize', '--canonicalize-existing', '--canonicalize-missing', '--no-newline', '--quiet', '--silent', '--verbose', '--zero'],
  },
  which: { flags: 'as', long: ['--all'] },
  type: { flags: 'afptP' },
  pwd: { flags: 'LP', long: ['--logical', '--physical'] },
  printenv: { flags: '0', long: ['--null'] },
  whoami: {},
  id: { flags: 'agGnruzZ', long: ['--context', '--group', '--groups', '--name', '--real', '--user', '--zero'] },
  uname: {
    flags: 'asnrvmpio',
    long: [
      '--all',
      '--kernel-name',
      '--nodename',
      '--kernel-release',
      '--kernel-version',
      '--machine',
      '--processor',
      '--hardware-platform',
      '--operating-system',
    ],
  },
  hostname: {
    flags: 'AdfiIsy',
    long: ['--all-fqdns', '--domain', '--fqdn', '--long', '--ip-address', '--all-ip-addresses', '--short', '--yp', '--nis'],
    maxOperands: 0,
  },
  // Not: -s/--set, or an operand that is not +FORMAT (both set the clock).
  date: {
    flags: 'uR',
    valued: 'dfr',
    numeric: true,
    operandPrefix: '+',
    long: ['--utc', '--universal', '--rfc-email', '--debug', '--resolution'],
    longValued: ['--date', '--file', '--reference', '--rfc-3339'],
    longOptional: ['--iso-8601'],
  },
  seq: { valued: 'fs', flags: 'w', numeric: true, long: ['--equal-width'], longValued: ['--format', '--separator'] },
  sleep: {},
  echo: { anyWords: true },
  printf: { anyWords: true },
  test: { anyWords: true },
  '[': { anyWords: true },
  true: { anyWords: true },
  false: { anyWords: true },
  expr: { anyWords: true },
  yes: { anyWords: true },
  ':': { anyWords: true },
};

/**
 * Variables that may be set in front of a read-only command without making
 * it run anything else (locale, time zone, colours, terminal size). Any
 * other assignment may: `LD_PRELOAD=x.so cat f`, `LESSOPEN=...`,
 * `RIPGREP_CONFIG_PATH=...` (whose file can hold `--pre`).
 */
const HARMLESS_ASSIGNMENTS =
  /^(LC_[A-Z_]+|LANG|LANGUAGE|TZ|NO_COLOR|FORCE_COLOR|CLICOLOR(_FORCE)?|COLUMNS|LINES|TERM|TIME_STYLE|QUOTING_STYLE|LS_COLORS|GREP_COLORS?|POSIXLY_CORRECT)=/;

/** Whether the variables set for a command (`A=b cmd`, `env A=b cmd`) leave what it runs as it is. */
export function assignmentsHarmless(assignments: readonly Word[]): boolean {
  return assignments.every((word) => !word.opaque && HARMLESS_ASSIGNMENTS.test(word.text));
}

/** What a known read-only command writes: nothing, or the files its output options and output operands name. */
export interface ReadOnlyUse {
  readonly outputs: readonly { readonly word: Word; readonly via: string }[];
}

/**
 * Reads a call of a command known to only read: its outputs when every
 * option it was given is known not to write or run a program, or null when
 * the call is not known read-only (an unknown command, an unknown option, a
 * word whose value is unknown where an option could be).
 */
export function readOnlyUse(name: string, args: readonly Word[]): ReadOnlyUse | null {
  if (!Object.hasOwn(READERS, name)) return null;
  const reader = READERS[name]!;
  if (reader.anyWords) return { outputs: [] };
  const outputs: { word: Word; via: string }[] = [];
  const operands: Word[] = [];
  let ended = false;
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    if (ended || word.text === '-' || (!word.text.startsWith('-') && !word.opaque)) {
      // An operand whose value is unknown after `--` is still an operand.
      if (word.opaque && !ended) return null;
      operands.push(word);
      continue;
    }
    // A word whose value is unknown could be any option (`sort $OPTS`).
    if (word.opaque) return null;
    if (word.text === '--') {
      ended = true;
      continue;
    }
    if (reader.numeric && /^-[0-9]+$/.test(word.text)) continue;
    const taken = word.text.startsWith('--') ? longOption(reader, args, i) : shortOptions(reader, args, i);
    if (taken === null) return null;
    if (taken.output) outputs.push({ word: taken.output.word, via: `${name} ${taken.output.option}` });
    i += taken.skip;
  }
  if (reader.maxOperands !== undefined && operands.length > reader.maxOperands) return null;
  if (reader.operandPrefix !== undefined && operands.some((word) => !word.text.startsWith(reader.operandPrefix!))) return null;
  const out = reader.outputOperand === undefined ? undefined : operands[reader.outputOperand];
  if (out !== undefined && out.text !== '-') outputs.push({ word: out, via: name });
  return { outputs };
}

interface Taken {
  /** How many following words were its values. */
  readonly skip: number;
  /** The value, when the option names a file the command writes, and the option as written in the list. */
  readonly output?: { readonly word: Word; readonly option: string };
}

function longOption(reader: Reader, args: readonly Word[], i: number): Taken | null {
  const text = args[i]!.text;
  const eq = text.indexOf('=');
  const name = eq < 0 ? text : text.slice(0, eq);
  const output = reader.output?.includes(name) === true;
  if (HELP.includes(name) && eq < 0) return { skip: 0 };
  if (reader.long?.includes(name)) return eq < 0 ? { skip: 0 } : null;
  if (reader.longOptional?.includes(name)) return { skip: 0 };
  if (reader.longTwo?.includes(name)) return eq < 0 && i + 2 < args.length ? { skip: 2 } : null;
  if (reader.longValued?.includes(name)) {
    if (eq >= 0) return { skip: 0, ...(output && { output: { word: { ...args[i]!, text: text.slice(eq + 1) }, option: name } }) };
    const value = args[i + 1];
    if (value === undefined) return null;
    return { skip: 1, ...(output && { output: { word: value, option: name } }) };
  }
  return null;
}

/** A cluster of short options (`-la`, `-n5`, `-o FILE`): each letter known, a valued one taking the rest or the next word. */
function shortOptions(reader: Reader, args: readonly Word[], i: number): Taken | null {
  const text = args[i]!.text;
  for (let j = 1; j < text.length; j++) {
    const letter = text[j]!;
    if (reader.valued?.includes(letter)) {
      const option = `-${letter}`;
      const output = reader.output?.includes(option) === true;
      if (j + 1 < text.length) return { skip: 0, ...(output && { output: { word: { ...args[i]!, text: text.slice(j + 1) }, option } }) };
      const value = args[i + 1];
      if (value === undefined) return null;
      return { skip: 1, ...(output && { output: { word: value, option } }) };
    }
    if (!reader.flags?.includes(letter)) return null;
  }
  return { skip: 0 };
}

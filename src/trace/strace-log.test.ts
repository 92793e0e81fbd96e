import { describe, expect, it } from 'vitest';
import { fileEvents } from './strace-log.js';

describe('reading an strace -ff -y log', () => {
  it.each([
    [
      'an opened file, by the path the kernel resolved',
      'openat(AT_FDCWD</w>, "package.json", O_RDONLY|O_CLOEXEC) = 19</w/package.json>',
      [{ path: '/w/package.json', how: 'read' }],
    ],
    [
      'a file opened for writing only',
      'openat(AT_FDCWD</w>, "out.txt", O_WRONLY|O_CREAT|O_TRUNC, 0666) = 3</w/out.txt>',
      [{ path: '/w/out.txt', how: 'write' }],
    ],
    ['a directory listing is no file', 'openat(AT_FDCWD</w>, "src", O_RDONLY|O_NONBLOCK|O_CLOEXEC|O_DIRECTORY) = 4</w/src>', []],
    ['a failed open is nothing', 'openat(AT_FDCWD</w>, "pytest.ini", O_RDONLY|O_CLOEXEC) = -1 ENOENT (No such file or directory)', []],
    [
      'a stat relative to the cwd descriptor',
      'newfstatat(AT_FDCWD</w>, "SKIP", {st_mode=S_IFREG|0644, st_size=0, ...}, 0) = 0',
      [{ path: '/w/SKIP', how: 'look' }],
    ],
    [
      'a stat of a descriptor already opened is not counted twice',
      'statx(19</w/package.json>, "", AT_STATX_SYNC_AS_STAT|AT_EMPTY_PATH, STATX_ALL, {stx_mask=STATX_ALL}) = 0',
      [],
    ],
    ['an exec, by its path', 'execve("/usr/bin/node", ["node", "--test"], 0x7ffc /* 35 vars */) = 0', [{ path: '/usr/bin/node', how: 'exec' }]],
    ['a relative exec, from the cwd given', 'execve("./run.sh", ["./run.sh"], 0x7ffc /* 3 vars */) = 0', [{ path: '/cwd/run.sh', how: 'exec' }]],
    [
      'escapes in a name',
      'openat(AT_FDCWD</w>, "a\\"b\\\\c\\303\\251.txt", O_RDONLY) = 3</w/a"b\\\\c\\303\\251.txt>',
      [{ path: '/w/a"b\\cé.txt', how: 'read' }],
    ],
    ['signals and exits are not calls', '--- SIGCHLD {si_signo=SIGCHLD, si_code=CLD_EXITED} ---\n+++ exited with 0 +++', []],
    ['a call strace cannot decode fully is skipped, not guessed', 'readlinkat(AT_FDCWD</w>, 0x7ffe, 0x7ffe, 1023) = 4', []],
  ])('%s', (_name, log, events) => {
    expect(fileEvents(log, '/cwd')).toEqual(events);
  });

  it('an escaped name read from an argument is decoded (octal UTF-8, hex)', () => {
    expect(fileEvents('stat("/w/caf\\303\\251\\x21", {st_mode=S_IFREG|0644}) = 0', '/')).toEqual([{ path: '/w/café!', how: 'look' }]);
  });
});

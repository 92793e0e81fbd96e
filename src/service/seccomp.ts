/**
 * The seccomp filter bubblewrap loads for every check (`bwrap --seccomp FD`
 * takes a compiled classic-BPF program, an array of `struct sock_filter`).
 *
 * A deny-list: the system calls that only serve to reach past the sandbox
 * or into the kernel, none of which a build or a test needs. Capabilities
 * are dropped as well, so most of these would fail anyway; the filter holds
 * even where a capability is left by mistake, and shuts the paths that need
 * none (io_uring, userfaultfd, bpf, perf, keyrings). Denied calls fail with
 * EPERM. Calls of another ABI (i386 or x32 on x86_64, arm32 on aarch64) are
 * denied whole: their numbers differ, and a deny-list over the wrong table
 * would deny nothing.
 */

/** Bumped whenever the list changes; receipts name the version that held. */
export const SECCOMP_POLICY = 'vouch-deny-1';

/** Denied calls, with their numbers on x86_64 and on aarch64 (the generic table). */
const DENIED: readonly (readonly [name: string, x86_64: number, aarch64: number])[] = [
  // Escaping by file handle past the mount namespace (the "shocker" attack).
  ['open_by_handle_at', 304, 265],
  ['name_to_handle_at', 303, 264],
  // Reading or steering other processes.
  ['ptrace', 101, 117],
  ['process_vm_readv', 310, 270],
  ['process_vm_writev', 311, 271],
  ['pidfd_getfd', 438, 438],
  // Rearranging mounts and namespaces.
  ['mount', 165, 40],
  ['umount2', 166, 39],
  ['pivot_root', 155, 41],
  ['chroot', 161, 51],
  ['open_tree', 428, 428],
  ['move_mount', 429, 429],
  ['fsopen', 430, 430],
  ['fsconfig', 431, 431],
  ['fsmount', 432, 432],
  ['fspick', 433, 433],
  ['mount_setattr', 442, 442],
  ['unshare', 272, 97],
  ['setns', 308, 268],
  // Kernel attack surface no check needs.
  ['keyctl', 250, 219],
  ['add_key', 248, 217],
  ['request_key', 249, 218],
  ['bpf', 321, 280],
  ['perf_event_open', 298, 241],
  ['userfaultfd', 323, 282],
  ['io_uring_setup', 425, 425],
  ['io_uring_enter', 426, 426],
  ['io_uring_register', 427, 427],
  ['lookup_dcookie', 212, 18],
  ['syslog', 103, 116],
  // The machine itself.
  ['kexec_load', 246, 104],
  ['kexec_file_load', 320, 294],
  ['init_module', 175, 105],
  ['finit_module', 313, 273],
  ['delete_module', 176, 106],
  ['reboot', 169, 142],
  ['swapon', 167, 224],
  ['swapoff', 168, 225],
  ['acct', 163, 89],
  ['quotactl', 179, 60],
];

const AUDIT_ARCH = { x64: 0xc000003e, arm64: 0xc00000b7 } as const;
/** x32 system calls on x86_64 carry this bit in their number. */
const X32_SYSCALL_BIT = 0x40000000;

// Classic BPF opcodes (linux/filter.h, linux/bpf_common.h) and seccomp return values (linux/seccomp.h).
const LD_W_ABS = 0x20;
const JMP_JEQ_K = 0x15;
const JMP_JGE_K = 0x35;
const RET_K = 0x06;
const RET_ALLOW = 0x7fff0000;
const RET_ERRNO_EPERM = 0x00050000 | 1;
// Offsets in struct seccomp_data.
const NR = 0;
const ARCH = 4;

export interface SeccompFilter {
  /** e.g. "vouch-deny-1/x64". */
  readonly policy: string;
  /** The compiled program, as bubblewrap reads it from its --seccomp FD. */
  readonly program: Buffer;
  readonly denied: readonly string[];
}

/** The filter for this machine's architecture; undefined where none is defined (then no filter is claimed). */
export function denyListFilter(arch: string = process.arch): SeccompFilter | undefined {
  if (arch !== 'x64' && arch !== 'arm64') return undefined;
  const numbers = DENIED.map(([, x86, a64]) => (arch === 'x64' ? x86 : a64));
  // Laid out: load arch, check it; load nr; (x86_64: refuse x32); one test per denied number; allow; deny.
  type Jump = 'deny' | 0;
  const body: { code: number; k: number; jt: Jump; jf: Jump }[] = [
    { code: LD_W_ABS, k: ARCH, jt: 0, jf: 0 },
    { code: JMP_JEQ_K, k: AUDIT_ARCH[arch], jt: 0, jf: 'deny' },
    { code: LD_W_ABS, k: NR, jt: 0, jf: 0 },
    ...(arch === 'x64' ? [{ code: JMP_JGE_K, k: X32_SYSCALL_BIT, jt: 'deny' as const, jf: 0 as const }] : []),
    ...numbers.map((nr) => ({ code: JMP_JEQ_K, k: nr, jt: 'deny' as const, jf: 0 as const })),
  ];
  const allowAt = body.length;
  const denyAt = allowAt + 1;
  const program = Buffer.alloc((body.length + 2) * 8);
  const write = (i: number, code: number, jt: number, jf: number, k: number) => {
    program.writeUInt16LE(code, i * 8);
    program.writeUInt8(jt, i * 8 + 2);
    program.writeUInt8(jf, i * 8 + 3);
    program.writeUInt32LE(k >>> 0, i * 8 + 4);
  };
  // A jump's offset counts instructions after the next one; "deny" is the last instruction.
  const offset = (i: number, to: Jump) => (to === 'deny' ? denyAt - (i + 1) : 0);
  body.forEach((insn, i) => write(i, insn.code, offset(i, insn.jt), offset(i, insn.jf), insn.k));
  write(allowAt, RET_K, 0, 0, RET_ALLOW);
  write(denyAt, RET_K, 0, 0, RET_ERRNO_EPERM);
  return { policy: `${SECCOMP_POLICY}/${arch}`, program, denied: DENIED.map(([name]) => name) };
}

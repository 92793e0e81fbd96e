import type { LeaseLoss } from '../../service/jobs.js';
import { runWorker, type WorkerEvent } from '../../service/worker.js';
import { signerFor } from '../../crypto/signature.js';
import { vouchHome } from '../../workspace/home.js';
import { parse } from '../args.js';
import { EXIT } from '../exit.js';
import { err, type Cli } from '../io.js';
import { pgTarget } from '../pg-target.js';
import { describeSandbox, positiveFlag, SANDBOX_FLAGS, serviceKey, servicePool, UNPACK_MS, workerSandbox } from '../service-setup.js';

export const help = `usage: vouch worker --key NAME [--ledger URL] [--lease-seconds N]
                    [--poll-ms N] [--max-tree-mb N] [--max-attempts N] [--max-jobs N]
                    [--allow-unconfined] [--job-memory-mb N] [--job-processes N] [--job-file-mb N]
                    [--job-disk-mb N]

Runs jobs submitted to \`vouch serve\`, one at a time: claims the next job
(fair between clients: the client with the fewest jobs running goes first,
then the oldest job; any number of workers on any number of machines share
one queue), unpacks its tree into a fresh temporary directory (a tmpfs of
its own when the worker is root), checks that its vouch.yaml is one this server allowed (\`vouch
serve allow\`, in this worker's VOUCH_HOME), runs exactly those checks, and
records their receipts signed with --key in the same transaction that ends
the job, only while it still holds the job's lease.

  --key NAME          the server's signing key under VOUCH_HOME/keys (required)
  --ledger URL        the service's PostgreSQL ledger (default VOUCH_LEDGER,
                      else ledger: in vouch.yaml)
  --lease-seconds N   a claim lasts N s without a heartbeat (default 30); a
                      worker that dies loses its job after that, and another
                      retries it
  --poll-ms N         how often an idle worker looks for work (default 250)
  --max-tree-mb N     largest archive once inflated, headers included (default 1024)
  --max-attempts N    a job started N times without finishing fails (default 3)
  --max-jobs N        exit after N jobs (default: run until SIGINT/SIGTERM)
  --allow-unconfined  run checks even where a layer of the sandbox does not hold
  --job-memory-mb N   memory of the whole job: anonymous, shared and tmpfs pages
                      together, no swap (a cgroup per job), and writable
                      memory per process (RLIMIT_DATA) (default 4096)
  --job-processes N   processes and threads of the whole job at once (cgroup)
                      and of each check (RLIMIT_NPROC) (default 1024)
  --job-file-mb N     largest file a check may write (default 1024); /tmp and
                      /dev/shm hold at most 512 MiB each, or this if smaller
  --job-disk-mb N     the job directory's tmpfs (default 2048; a root worker)

Each check runs in bubblewrap: a user namespace, as nobody on the host when
the worker is root (setpriv), no capabilities, a seccomp deny-list, the
limits above (prlimit and the job's cgroup), no network, a fresh /proc, no
descriptor of the worker's, the system and / read-only, only the job
directory, /tmp and /dev/shm writable (each sized), nothing of the host's
homes or this VOUCH_HOME visible. Links a check makes are never followed
by the worker. Git never runs on an upload. The worker probes this at
start and prints what held; every receipt records it. A worker that cannot
confine its checks refuses to start (sandbox_unavailable, exit 2) unless
--allow-unconfined, and then every receipt says what did not hold.

SIGINT/SIGTERM: the running check is stopped and its job goes back to the
queue for another worker. exit: 0 after --max-jobs jobs, 130/143 stopped by
SIGINT/SIGTERM, 2 usage, key, database or sandbox problem`;

export async function run(cli: Cli, args: readonly string[]): Promise<number> {
  const { values } = parse(
    'worker',
    args,
    {
      key: { type: 'string' },
      ledger: { type: 'string' },
      'lease-seconds': { type: 'string' },
      'poll-ms': { type: 'string' },
      'max-tree-mb': { type: 'string' },
      'max-attempts': { type: 'string' },
      'max-jobs': { type: 'string' },
      ...SANDBOX_FLAGS,
    },
    false,
  );
  const home = vouchHome(cli.io.env);
  const key = serviceKey(home, values.key, 'worker');
  const at = pgTarget(cli, values.ledger, 'worker');
  const maxJobs = values['max-jobs'] === undefined ? undefined : positiveFlag('worker', 'max-jobs', values['max-jobs'], 1);
  const maxTreeBytes = positiveFlag('worker', 'max-tree-mb', values['max-tree-mb'], 1024) * 1024 * 1024;
  // Before the database: a worker that cannot confine its checks takes no job at all.
  const { sandbox, closed } = await workerSandbox('worker', home, key, values, maxTreeBytes);
  const pool = await servicePool(at, 2);
  err(cli, `vouch worker: ledger ${at.display}, key ${key.name} (${key.publicKey.keyid.slice(0, 16)})`);
  err(cli, `vouch worker: sandbox: ${describeSandbox(sandbox)}`);
  if (closed.length > 0) err(cli, `vouch worker: closed descriptors ${closed.join(', ')} (inherited without close-on-exec: no check gets them)`);
  const stop = cli.io.signal ?? new AbortController().signal;
  try {
    await runWorker(
      {
        pool,
        home,
        sign: signerFor(key),
        sandbox,
        maxTreeBytes,
        maxUnpackMs: UNPACK_MS,
        leaseSeconds: positiveFlag('worker', 'lease-seconds', values['lease-seconds'], 30),
        maxAttempts: positiveFlag('worker', 'max-attempts', values['max-attempts'], 3),
        pollMs: positiveFlag('worker', 'poll-ms', values['poll-ms'], 250),
        ...(maxJobs !== undefined && { maxJobs }),
        onEvent: (event) => err(cli, describe(event)),
      },
      stop,
    );
  } finally {
    await pool.end();
  }
  return EXIT.ok;
}

/** One line per event on stderr, for the operator's log. */
export function describe(event: WorkerEvent): string {
  switch (event.kind) {
    case 'claimed':
      return `job ${event.job}: claimed by ${event.worker} (attempt ${event.attempt})`;
    case 'completed':
      return `job ${event.job}: done, ${event.receipts.length} receipt${event.receipts.length === 1 ? '' : 's'} ${event.receipts.join(' ')}`;
    case 'refused':
      return `job ${event.job}: refused (${event.code}): ${event.message}`;
    case 'incomplete':
      return `job ${event.job}: failed (no_receipt): ${event.message}; recorded ${event.receipts.length} receipt${event.receipts.length === 1 ? '' : 's'} ${event.receipts.join(' ')}`;
    case 'lease_lost':
      return `job ${event.job}: ${leaseLossText(event.loss)}; nothing recorded by this worker`;
    case 'released':
      return `job ${event.job}: stopped; back in the queue`;
    case 'swept':
      return `worker: removed ${event.path}, left by a worker no longer running (or by this one, when its job ended)`;
    case 'left':
      return `worker: could not remove ${event.path} (${event.detail}); the next sweep tries again`;
    case 'error':
      return `${event.job ? `job ${event.job}` : 'worker'}: error: ${event.message} (retrying)`;
  }
}

function leaseLossText(loss: LeaseLoss): string {
  switch (loss.kind) {
    case 'expired':
      return "this worker's own lease ran out before it was renewed (no heartbeat in time)";
    case 'taken':
      return `lease lost: another worker (${loss.by}) took the job over after this worker's lease ran out`;
    case 'ended':
      return `lease lost: the job ended meanwhile (${loss.state})`;
  }
}

/**
 * The background watcher an agent can leave running (python3): it finds a
 * check's process by VOUCH_CHECK_ID in /proc (its cwd inside `root`),
 * writes `base/good.js` over `root/src/add.js`, marks `swapped`, waits for
 * the test to mark `loaded`, then puts the broken bytes back and marks
 * `restored`. The marks make the order deterministic: no timing margin
 * decides the outcome. With `pidFile`, it first writes its pid to
 * `base/w.pid` (for a test that must kill it after an agent started it).
 */
export function swapWatcher(options: { pidFile: boolean }): string {
  const pid = options.pidFile ? "open(os.path.join(base, 'w.pid'), 'w').write(str(os.getpid()))\n" : '';
  return SCRIPT.replace('@PID@\n', pid);
}

const SCRIPT = `import os, sys, time
root, base = sys.argv[1], sys.argv[2]
@PID@
target = os.path.join(root, 'src', 'add.js')
good = open(os.path.join(base, 'good.js'), 'rb').read()
mark = lambda name: os.path.join(base, name)
seen = set()
def checks():
    found = []
    for pid in os.listdir('/proc'):
        if not pid.isdigit() or pid in seen:
            continue
        try:
            env = open('/proc/%s/environ' % pid, 'rb').read()
            cwd = os.readlink('/proc/%s/cwd' % pid)
        except OSError:
            continue
        if b'VOUCH_CHECK_ID=' in env and (cwd + '/').startswith(root + '/'):
            found.append(pid)
    return found
def wait(name):
    while not os.path.exists(mark(name)):
        time.sleep(0.005)
while True:
    found = [] if os.path.exists(mark('swapped')) else checks()
    if not found:
        time.sleep(0.005)
        continue
    seen.update(found)
    broken = open(target, 'rb').read()
    with open(target, 'wb') as f:
        f.write(good)
    open(mark('swapped'), 'w').close()
    wait('loaded')
    with open(target, 'wb') as f:
        f.write(broken)
    open(mark('restored'), 'w').close()
`;

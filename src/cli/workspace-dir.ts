import type { Workspace } from '../workspace/find.js';

/**
 * Makes the workspace root the working directory for the rest of the
 * command, as git does with its work tree: files are then named to the
 * kernel by shorter, relative paths. Everything vouch keeps is named by
 * absolute path, and the caller's directory stays in `cli.io.cwd` for
 * messages. False when it cannot (a worker thread, a vanished directory).
 * The CLI alone does this: a server's calls share one working directory.
 */
export function enterWorkspace(workspace: Workspace): boolean {
  try {
    process.chdir(workspace.root);
    return process.cwd() === workspace.root;
  } catch {
    return false;
  }
}

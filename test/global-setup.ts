import { execFileSync } from 'node:child_process';

/** The end-to-end tests drive the built CLI, as users do: build it once. */
export default function setup(): void {
  execFileSync(process.execPath, ['scripts/build.mjs'], { stdio: 'inherit' });
}

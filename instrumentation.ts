/**
 * Runs once when a Next server starts. The access check on an exposed server
 * lives in the server `npm start` runs in front of Next (lib/server); a Next
 * server started some other way and reachable from other machines would have
 * none, so it stops here, saying how to start it instead.
 */
export async function register() {
  if (process.env.NEXT_RUNTIME !== 'nodejs') return;
  const { unguardedExposure } = await import('@/lib/access/current');
  const problem = unguardedExposure(process.env, process.argv);
  if (problem) {
    console.error(`\n  Longctx did not start.\n\n  ${problem.split('\n').join('\n  ')}\n`);
    process.exit(1);
  }
}

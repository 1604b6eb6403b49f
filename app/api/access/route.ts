import { clientKey, processSignInLimiter } from '@/lib/access/attempts';
import { currentAccessPolicy } from '@/lib/access/current';
import { handleSignIn, handleSignOut } from '@/lib/access/signIn';
import { serverDeps } from '../_lib/serverDeps';

/** POST /api/access: sign in with the access secret (a form from /signin, or JSON from a script). DELETE: sign out. */
export async function POST(request: Request): Promise<Response> {
  const { env } = serverDeps();
  return handleSignIn(request, {
    env,
    policy: currentAccessPolicy(env, process.argv),
    limiter: processSignInLimiter(),
    client: clientKey(request.headers),
    now: Date.now(),
  });
}

export async function DELETE(request: Request): Promise<Response> {
  return handleSignOut(request, { env: serverDeps().env });
}

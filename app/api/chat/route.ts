import { guardRequest } from '@/lib/http/requestGuard';
import { handleChat } from '@/lib/providers/streamHandlers';
import { serverDeps } from '../_lib/serverDeps';

// Long conversations can take a while to answer; platforms that cap durations read this.
export const maxDuration = 300;

/** POST /api/chat: stream one assistant reply for the given context (see docs/providers.md). */
export async function POST(request: Request): Promise<Response> {
  const deps = serverDeps();
  return guardRequest(request, 'json-post', deps.env) ?? handleChat(request, deps);
}

import { guardRequest } from '@/lib/http/requestGuard';
import { handleSummarize } from '@/lib/providers/streamHandlers';
import { serverDeps } from '../_lib/serverDeps';

export const maxDuration = 300;

/** POST /api/summarize: stream a summary for compaction or branch summarisation (see docs/providers.md). */
export async function POST(request: Request): Promise<Response> {
  const deps = serverDeps();
  return guardRequest(request, 'json-post', deps.env) ?? handleSummarize(request, deps);
}

import { processSignInLimiter } from '@/lib/access/attempts';
import { gateRequest } from '@/lib/access/gate';
import type { AccessPolicy } from '@/lib/access/policy';
import type { Gate } from './httpServer';

/**
 * The access check as the server runs it in front of Next: the policy read
 * at start, and the process's count of wrong secrets, shared with the sign-in
 * route (a separate module graph, hence the count on globalThis).
 */
export function accessGate(policy: AccessPolicy, now: () => number = Date.now): Gate {
  const limiter = processSignInLimiter();
  return (req, client) => gateRequest(req, { policy, now: now(), limiter, client });
}

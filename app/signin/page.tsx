import type { Metadata } from 'next';
import { redirect } from 'next/navigation';
import { connection } from 'next/server';
import { SignInForm } from '@/components/access/SignInForm';
import { currentAccessPolicy } from '@/lib/access/current';
import { safeNextPath } from '@/lib/access/gate';

// same-origin: the form's POST then carries this page's Origin (under the app-wide no-referrer it would say "null").
export const metadata: Metadata = { title: 'Sign in — Longctx', referrer: 'same-origin' };

type Search = Record<string, string | string[] | undefined>;
const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);

/** /signin: the access passphrase, asked once per browser when the server is exposed (lib/access). */
export default async function SignInPage({ searchParams }: { searchParams: Promise<Search> }) {
  // Per request: the CSP nonce, and the policy may change with the environment between starts.
  await connection();
  const params = await searchParams;
  const next = safeNextPath(one(params.next));
  if (!currentAccessPolicy(process.env, process.argv).required) redirect(next);
  const retry = Number(one(params.retry));
  return <SignInForm next={next} error={one(params.error) ?? null} retryS={Number.isFinite(retry) && retry > 0 ? retry : null} />;
}

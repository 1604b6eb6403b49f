import { connection } from 'next/server';
import { AppShell } from '@/components/app/AppShell';

export default async function Home() {
  // Rendered per request so the proxy's CSP nonce can be applied to the page's scripts.
  await connection();
  return <AppShell />;
}

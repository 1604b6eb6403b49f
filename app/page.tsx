import { cookies } from 'next/headers';
import { connection } from 'next/server';
import { AppShell } from '@/components/app/AppShell';
import { Providers } from '@/components/app/Providers';
import { THEME_COOKIE, readThemePreference } from '@/lib/settings/theme';

export default async function Home() {
  // Rendered per request so the proxy's CSP nonce can be applied to the page's scripts.
  await connection();
  // The app's providers (flows, workers, sync) belong to the app page, not the layout: the sign-in page has none of them.
  const theme = readThemePreference((await cookies()).get(THEME_COOKIE)?.value);
  return (
    <Providers theme={theme}>
      <AppShell />
    </Providers>
  );
}

import { AppShell } from '@/components/app/AppShell';

export default function Home() {
  return <AppShell />;
}

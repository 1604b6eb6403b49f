import type { Page } from '@playwright/test';

/**
 * Waits on the page's own state instead of fixed sleeps: a sleep long enough on a busy 2-core CI
 * machine is a waste everywhere else, and one short enough here is flaky there.
 */

/** Until every finite animation and transition on the page has finished (a drawer sliding in, a tooltip fading). */
export async function animationsDone(page: Page): Promise<void> {
  // Until a frame passes with none running: a toast mounts a frame after it is shown and only then starts
  // its fade-in, so one look at getAnimations() could find nothing and let the audit see it half-transparent.
  await page.evaluate(async () => {
    for (let round = 0; round < 20; round++) {
      await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
      const running = document.getAnimations().filter((a) => a.playState === 'running' && a.effect?.getComputedTiming().iterations !== Infinity);
      if (running.length === 0) return;
      await Promise.all(running.map((a) => a.finished.catch(() => undefined)));
    }
  });
}

/**
 * Until the main thread has had `quietMs` without a long task, then an idle period: the work a step
 * started (a worker's results landing, storage writes answered, React committing) is over. Observes
 * long tasks from the call on; `timeoutMs` bounds the wait.
 */
export async function mainThreadSettled(page: Page, quietMs = 500, timeoutMs = 60_000): Promise<void> {
  await page.evaluate(
    ([quiet, timeout]) =>
      new Promise<void>((resolve, reject) => {
        let last = performance.now();
        const observer = new PerformanceObserver((list) => {
          for (const e of list.getEntries()) last = Math.max(last, e.startTime + e.duration);
        });
        observer.observe({ type: 'longtask', buffered: false });
        const started = performance.now();
        const check = () => {
          if (performance.now() - last >= quiet!) {
            observer.disconnect();
            requestIdleCallback(() => resolve(), { timeout: quiet });
          } else if (performance.now() - started > timeout!) {
            observer.disconnect();
            reject(new Error(`the main thread did not settle within ${timeout} ms`));
          } else setTimeout(check, 100);
        };
        check();
      }),
    [quietMs, timeoutMs],
  );
}

/** Until the page has rendered its next frame. */
export async function nextFrame(page: Page): Promise<void> {
  await page.evaluate(() => new Promise<void>((resolve) => requestAnimationFrame(() => resolve())));
}

// Renders the app's PNG icons from its SVGs with the Chromium Playwright uses:
// `npm run icons` after changing app/icon.svg or public/icons/maskable.svg.
//   public/icons/icon-192.png, icon-512.png   the app icon (install prompts, the app list)
//   public/icons/maskable-512.png             full-bleed, glyph inside the safe zone (Android masks it)
//   app/apple-icon.png                        180 px, full-bleed (iOS rounds it; Next links it)
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from '@playwright/test';
import { ROOT } from './lib.mjs';

function executablePath() {
  if (process.env.CHROMIUM_PATH) return process.env.CHROMIUM_PATH;
  try {
    if (existsSync(chromium.executablePath())) return undefined;
  } catch {
    /* Playwright's own browser is not installed */
  }
  return ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'].find(existsSync);
}

const appIcon = readFileSync(join(ROOT, 'app/icon.svg'), 'utf8');
const maskable = readFileSync(join(ROOT, 'public/icons/maskable.svg'), 'utf8');
const outputs = [
  { svg: appIcon, size: 192, file: 'public/icons/icon-192.png' },
  { svg: appIcon, size: 512, file: 'public/icons/icon-512.png' },
  { svg: maskable, size: 512, file: 'public/icons/maskable-512.png' },
  { svg: maskable, size: 180, file: 'app/apple-icon.png' },
];

const browser = await chromium.launch({ executablePath: executablePath(), args: ['--no-sandbox', '--disable-gpu'] });
try {
  const page = await browser.newPage({ deviceScaleFactor: 1 });
  for (const { svg, size, file } of outputs) {
    await page.setViewportSize({ width: size, height: size });
    const sized = svg.replace('<svg ', `<svg width="${size}" height="${size}" `);
    await page.setContent(`<html><body style="margin:0;background:transparent">${sized}</body></html>`);
    writeFileSync(join(ROOT, file), await page.screenshot({ omitBackground: true, clip: { x: 0, y: 0, width: size, height: size } }));
    console.log(`wrote ${file} (${size}×${size})`);
  }
} finally {
  await browser.close();
}

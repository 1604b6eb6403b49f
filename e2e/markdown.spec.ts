import { assistantMessages, chatTurn, expect, mock, newSession, openApp, test, userMessages } from './support/fixtures';
import { solidPng } from './support/png';
import { SHOWCASE_TURNS } from './support/showcase';

const [, codeTurn, mathTurn] = SHOWCASE_TURNS as [unknown, { prompt: string; reply: string }, { prompt: string; reply: string }];
const fencedCode = /```ts\n([\s\S]*?)\n```/.exec(codeTurn.reply)![1]!;

test('code blocks: language label, highlighting, and a Copy button that puts exactly the code on the clipboard', async ({ page, context }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  await mock.script([{ for: 'chat', reply: codeTurn.reply }]);
  await openApp(page);
  await newSession(page);
  await chatTurn(page, codeTurn.prompt);
  const block = assistantMessages(page).last().getByRole('group', { name: 'Code block, ts' });
  await expect(block).toBeVisible();
  await expect(block.getByText('ts', { exact: true })).toBeVisible();
  // The highlighter loads lazily, then marks keywords and strings.
  await expect(block.locator('.hljs-keyword').first()).toHaveText('import');
  await expect(block.locator('.hljs-string').first()).toBeVisible();
  await block.getByRole('button', { name: 'Copy code' }).click();
  await expect(block.getByRole('button', { name: 'Copied' })).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(fencedCode);
});

test('math: inline and display formulas typeset by KaTeX, with MathML for assistive technology; prices stay text', async ({ page }) => {
  await mock.script([{ for: 'chat', reply: `${mathTurn.reply}\n\nThe CDN costs $5 and $10 per TB.` }]);
  await openApp(page);
  await newSession(page);
  await chatTurn(page, mathTurn.prompt);
  const reply = assistantMessages(page).last();
  await expect(reply.locator('.katex-display')).toHaveCount(1);
  await expect(reply.locator('.katex-display')).toBeVisible();
  // Every formula carries MathML with its TeX source.
  await expect(reply.locator('math annotation[encoding="application/x-tex"]').filter({ hasText: '\\frac{W}{2k}' })).toHaveCount(1);
  expect(await reply.locator('.katex').count()).toBeGreaterThanOrEqual(6);
  // The raw TeX is not shown as text.
  await expect(reply.getByText('$\\frac{W}{2k}$')).toHaveCount(0);
  await expect(reply).toContainText('The CDN costs $5 and $10 per TB.');
});

test('image attachments: a thumbnail in the composer and in the message, and a click shows the image larger', async ({ page }) => {
  await mock.script([{ for: 'chat', reply: 'A blue rectangle.' }]);
  await openApp(page);
  await newSession(page);
  await page.getByRole('textbox', { name: 'Message' }).fill('What is in this picture?');
  const chooser = page.waitForEvent('filechooser');
  await page.getByRole('button', { name: 'Attach' }).click();
  await (await chooser).setFiles({ name: 'blue.png', mimeType: 'image/png', buffer: solidPng(640, 400, [40, 90, 220]) });
  await expect(page.getByRole('list', { name: 'Attachments' }).locator('img')).toBeVisible();
  await page.getByRole('button', { name: 'Send', exact: true }).click();
  await expect(assistantMessages(page).last()).toContainText('A blue rectangle.');

  const thumb = userMessages(page).last().getByRole('button', { name: 'View Attached image, 640×400 larger' });
  await expect(thumb).toBeVisible();
  const small = (await thumb.boundingBox())!;
  expect(small.width).toBeLessThanOrEqual(240);
  await thumb.click();
  const viewer = page.getByRole('dialog', { name: 'Attached image, 640×400' });
  const big = (await viewer.getByRole('img', { name: 'Attached image, 640×400' }).boundingBox())!;
  expect(big.width).toBeGreaterThan(small.width * 2);
  await page.keyboard.press('Escape');
  await expect(viewer).toBeHidden();
});

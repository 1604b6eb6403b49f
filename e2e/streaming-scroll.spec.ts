import { assistantMessages, expect, mock, newSession, openApp, sendMessage, test, userMessages, waitIdle } from './support/fixtures';

/** A reply far taller than the screen: numbered paragraphs, streamed a paragraph at a time. */
const paragraphs = Array.from({ length: 40 }, (_, i) => `Paragraph ${i + 1} of the long reply, with enough words to wrap onto a second line on a phone.\n\n`);

test.describe('a long reply streaming in', () => {
  test('stays scrolled to its newest words, and leaves the view alone once the reader scrolls up', async ({ page }) => {
    await mock.script([
      { for: 'chat', chunks: paragraphs, chunkDelayMs: 60 },
      // Slow enough that the reader's scroll lands seconds before the end, also on a busy 2-core machine.
      { for: 'chat', chunks: paragraphs, chunkDelayMs: 200 },
    ]);
    await openApp(page);
    await newSession(page);
    await sendMessage(page, 'Write forty paragraphs.');
    const reply = assistantMessages(page).last();
    // Mid-stream and at the end, the newest paragraph is on screen.
    await expect(reply.getByText('Paragraph 20 of the long reply')).toBeInViewport();
    await expect(reply.getByText('Paragraph 40 of the long reply')).toBeInViewport();
    await waitIdle(page);

    // The second reply: the reader scrolls up to the first one while it streams, and stays there.
    await sendMessage(page, 'Again, please.');
    const second = assistantMessages(page).last();
    await expect(second.getByText('Paragraph 5 of the long reply')).toBeVisible();
    const log = page.getByRole('log', { name: 'Conversation' });
    await log.hover();
    await page.mouse.wheel(0, -50_000);
    await expect(userMessages(page).first()).toBeInViewport();
    await expect(page.getByRole('button', { name: 'Stop' })).toBeVisible();
    await expect(page.getByRole('button', { name: 'Stop' })).toBeHidden({ timeout: 30_000 });
    await expect(userMessages(page).first()).toBeInViewport();
    await expect(second.getByText('Paragraph 40 of the long reply')).not.toBeInViewport();
  });
});

import { assistantMessages, expect, mock, newSession, openApp, sendMessage, test, userMessages, waitIdle } from './support/fixtures';

test.describe('chat', () => {
  test('a reply streams in, and survives a reload', async ({ page, consoleErrors }) => {
    // Slow enough that "mid-stream" lasts seconds after "The capital" shows, also on a busy 2-core machine.
    await mock.script([{ for: 'chat', chunks: ['The ', 'capital ', 'of ', 'France ', 'is ', 'Paris.'], chunkDelayMs: 500 }]);
    await openApp(page);
    await newSession(page);
    await sendMessage(page, 'What is the capital of France?');
    const reply = assistantMessages(page).last();
    // Seen mid-stream: partial text while the Stop button is still there.
    await expect(reply).toContainText('The capital');
    await expect(page.getByRole('button', { name: 'Stop' })).toBeVisible();
    await expect(reply).toContainText('The capital of France is Paris.');
    await waitIdle(page);
    await page.reload();
    await expect(userMessages(page)).toHaveText([/What is the capital of France\?/]);
    await expect(assistantMessages(page).last()).toContainText('The capital of France is Paris.');
    // The first message named the session.
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('What is the capital of France?');
    expect(consoleErrors).toEqual([]);
  });

  test('editing an earlier message starts a second branch and keeps the first intact', async ({ page }) => {
    await mock.script([
      { for: 'chat', reply: 'Reply one.' },
      { for: 'chat', reply: 'Reply two.' },
      { for: 'chat', reply: 'Reply to the edit.' },
    ]);
    await openApp(page);
    await newSession(page);
    await sendMessage(page, 'first question');
    await expect(assistantMessages(page).last()).toContainText('Reply one.');
    await waitIdle(page);
    await sendMessage(page, 'second question');
    await expect(assistantMessages(page).last()).toContainText('Reply two.');
    await waitIdle(page);

    const first = userMessages(page).first();
    await first.getByRole('button', { name: 'Edit' }).click();
    await page.getByRole('textbox', { name: 'Edit message' }).fill('first question, rephrased');
    await page.getByRole('button', { name: 'Save and send' }).click();
    await expect(assistantMessages(page).last()).toContainText('Reply to the edit.');
    await waitIdle(page);
    await expect(userMessages(page)).toHaveCount(1);
    await expect(userMessages(page).first()).toContainText('first question, rephrased');
    await expect(userMessages(page).first().getByText('2/2')).toBeVisible();

    // Back to the original branch: both original turns are still there.
    await userMessages(page).first().getByRole('button', { name: 'Previous branch' }).click();
    const originalBranch = async () => {
      await expect(userMessages(page)).toHaveCount(2);
      await expect(userMessages(page).first()).toContainText('first question');
      await expect(userMessages(page).first()).not.toContainText('rephrased');
      await expect(userMessages(page).first().getByText('1/2')).toBeVisible();
      await expect(userMessages(page).nth(1)).toContainText('second question');
      await expect(assistantMessages(page)).toHaveText([/Reply one\./, /Reply two\./]);
    };
    await originalBranch();
    await page.reload();
    await originalBranch();
  });

  test('stop mid-stream keeps the partial reply', async ({ page }) => {
    const words = Array.from({ length: 60 }, (_, i) => `word${i} `);
    await mock.script([{ for: 'chat', chunks: words, chunkDelayMs: 120 }]);
    await openApp(page);
    await newSession(page);
    await sendMessage(page, 'Tell me a long story');
    await expect(assistantMessages(page).last()).toContainText('word3');
    await page.getByRole('button', { name: 'Stop' }).click();
    await waitIdle(page);
    const reply = assistantMessages(page).last();
    await expect(reply).toContainText('Stopped');
    const text = await reply.innerText();
    expect(text).toContain('word3');
    expect(text).not.toContain('word59');
    await page.reload();
    await expect(assistantMessages(page).last()).toContainText('word3');
    await expect(assistantMessages(page).last()).toContainText('Stopped');
  });

  for (const preset of ['401', '500'] as const) {
    test(`provider ${preset}: a clear message, and the user message is kept`, async ({ page }) => {
      await mock.script([{ for: 'chat', preset }]);
      await openApp(page);
      await newSession(page);
      await sendMessage(page, `Message that meets a ${preset}`);
      const alert = assistantMessages(page).last().getByRole('alert');
      await expect(alert).toBeVisible();
      await expect(alert).toContainText(preset === '401' ? /key|auth/i : /server|provider|500/i);
      await expect(userMessages(page)).toHaveText([new RegExp(`Message that meets a ${preset}`)]);
      await page.reload();
      await expect(userMessages(page)).toHaveText([new RegExp(`Message that meets a ${preset}`)]);
      // Retrying works once the provider is back.
      await mock.script([{ for: 'chat', reply: 'Back online.' }]);
      await assistantMessages(page).last().getByRole('button', { name: 'Regenerate' }).click();
      await expect(assistantMessages(page).last()).toContainText('Back online.');
    });
  }
});

import { chatTurn, contextTokens, expect, mock, newSession, openApp, test } from './support/fixtures';

/** Long enough that a summary of two turns is shorter than the turns (else the compaction is rightly refused). */
const question = (topic: string) => `${topic}: ${'Explain how the animal hunts, where it lives and what it eats in winter. '.repeat(20)}`;

test.describe('Compact dialog: Keep recent', () => {
  test('a short chat with default settings: lowering Keep recent to 1 turn updates the preview, and it compacts', async ({ page }) => {
    await openApp(page);
    await newSession(page);
    for (const t of ['first question about foxes', 'second question about dogs', 'third question about cats']) await chatTurn(page, question(t));
    const before = await contextTokens(page);

    await page.getByRole('button', { name: 'Compact', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Compact context' });
    const keep = dialog.getByRole('spinbutton', { name: 'Keep recent' });
    // Prefilled from Settings (20,000 tokens): the whole chat fits, so nothing would be summarised.
    await expect(keep).toHaveValue('20000');
    await expect(dialog.getByRole('status')).toContainText('Lower “Keep recent”');
    await expect(dialog.getByRole('button', { name: 'Summarize and compact' })).toBeDisabled();

    await dialog.getByRole('combobox', { name: 'Keep recent unit' }).selectOption('turns');
    await expect(keep).toHaveValue('1');
    const preview = dialog.getByLabel('Compaction preview');
    // Two turns summarised (4 messages), the last turn kept.
    await expect(preview.getByRole('definition').nth(1)).toContainText(/^4 messages/);
    await expect(preview.getByRole('definition').nth(2)).toContainText(/^2 messages/);

    await keep.fill('2');
    await expect(preview.getByRole('definition').nth(1)).toContainText(/^2 messages/);
    await expect(preview.getByRole('definition').nth(2)).toContainText(/^4 messages/);

    await mock.script([{ for: 'summarizer', reply: '## Goal\nAnswer questions about foxes, dogs and cats.' }]);
    await dialog.getByRole('button', { name: 'Summarize and compact' }).click();
    await expect(dialog).toBeHidden({ timeout: 20_000 });
    const summary = page.getByRole('region', { name: 'Compaction summary' });
    await expect(summary).toBeVisible();
    await expect(summary).toContainText('foxes, dogs and cats');
    await expect.poll(() => contextTokens(page)).toBeLessThanOrEqual(before);
  });

  test('Keep recent 0 keeps nothing of a chat at rest: the preview says so, and the model then sees the summary alone', async ({ page }) => {
    await openApp(page);
    await newSession(page);
    for (const t of ['first question about foxes', 'second question about dogs']) await chatTurn(page, question(t));

    await page.getByRole('button', { name: 'Compact', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Compact context' });
    await dialog.getByRole('spinbutton', { name: 'Keep recent' }).fill('0');
    const preview = dialog.getByLabel('Compaction preview');
    await expect(preview.getByRole('definition').nth(1)).toContainText(/^4 messages/);
    await expect(preview.getByRole('definition').nth(2)).toHaveText('nothing: the summary replaces the whole conversation so far');

    await mock.script([{ for: 'summarizer', reply: '## Goal\nAnswer questions about foxes and dogs.' }]);
    await dialog.getByRole('button', { name: 'Summarize and compact' }).click();
    await expect(dialog).toBeHidden({ timeout: 20_000 });
    await expect(page.getByRole('region', { name: 'Compaction summary' })).toContainText('foxes and dogs');
    // Nothing was kept, so there is no first kept message to jump to.
    await expect(page.getByRole('region', { name: 'Compaction summary' }).getByRole('button', { name: 'Jump to first kept message' })).toHaveCount(0);

    await chatTurn(page, 'and cats?');
    // The request holds the summary and the new prompt: no earlier reply (the scripted model's "Echo: …") is sent verbatim.
    const body = (await mock.chatRequests()).at(-1)!.body as { messages: { role: string; content: unknown }[] };
    expect(JSON.stringify(body.messages)).toContain('Answer questions about foxes and dogs.');
    expect(body.messages.filter((m) => m.role === 'assistant')).toEqual([]);
    expect(JSON.stringify(body.messages)).not.toContain('Echo: ');
  });
});

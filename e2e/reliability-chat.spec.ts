import { readFileSync } from 'node:fs';
import type { Page } from '@playwright/test';
import { assistantMessages, chatTurn, type RecordedRequest, expect, mock, newSession, openApp, sendMessage, setCompactionDefaults, test, userMessages, waitIdle } from './support/fixtures';
import { storedReplies } from './support/storage';

/** The first two words of every user message a chat request sent, in order. */
function promptsOf(r: RecordedRequest): string[] {
  const messages = (r.body as { messages?: { role: string; content: unknown }[] }).messages ?? [];
  return messages.filter((m) => m.role === 'user').map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)).split(' ').slice(0, 2).join(' '));
}

const composer = (page: Page) => page.getByRole('textbox', { name: 'Message' });

/** English filler of roughly `n` × 20 tokens. */
const filler = (n: number) => 'The quick brown fox jumps over the lazy dog while the compiler reports warnings about unused imports. '.repeat(n);

test.describe('finished replies stay finished', () => {
  // The reply's entry is created by an IndexedDB append that can take longer than a fast stream:
  // a throttled "streaming" write that lands after the final one made the next load call it interrupted.
  test('an instant reply is not marked interrupted after a reload', async ({ page }) => {
    await openApp(page);
    await newSession(page);
    await mock.script([{ for: 'chat', chunks: ['Short ', 'and ', 'instant.'], chunkDelayMs: 0 }]);
    await chatTurn(page, 'answer at once');
    await expect(assistantMessages(page).last()).toContainText('Short and instant.');
    // Until storage holds the finished reply: a throttled "streaming" snapshot written after it would show there.
    await expect.poll(async () => (await storedReplies(page)).at(-1)).toEqual({ text: 'Short and instant.', status: 'complete', stopReason: 'stop' });
    await page.reload();
    const reply = assistantMessages(page).last();
    await expect(reply).toContainText('Short and instant.');
    // A stored "streaming" reply shows as busy until the repair marks it interrupted; a finished one is neither.
    await expect(reply).not.toHaveAttribute('aria-busy', 'true');
    await expect(reply).not.toContainText('Interrupted');
  });

  test('a reply cut off at the output limit keeps its notice after a reload', async ({ page }) => {
    await openApp(page);
    await newSession(page);
    await mock.script([{ for: 'chat', chunks: ['This ', 'answer ', 'stops ', 'at'], chunkDelayMs: 0, finishReason: 'length' }]);
    await chatTurn(page, 'a long essay please');
    await expect(assistantMessages(page).last()).toContainText('Cut off at the output limit.');
    await expect.poll(async () => (await storedReplies(page)).at(-1)).toEqual({ text: 'This answer stops at', status: 'complete', stopReason: 'length' });
    await page.reload();
    const reply = assistantMessages(page).last();
    await expect(reply).toContainText('This answer stops at');
    await expect(reply).toContainText('Cut off at the output limit.');
    await expect(reply).not.toContainText('Interrupted');
  });
});

test.describe('the composer keeps what was typed', () => {
  test('when saving the message fails, the text and the attachment stay in the composer', async ({ page, context, baseURL }) => {
    // A quota smaller than the attachment (see reliability.spec.ts: set before the database opens).
    const cdp = await context.newCDPSession(page);
    const origin = new URL(baseURL!).origin;
    await cdp.send('Storage.overrideQuotaForOrigin', { origin, quotaSize: 500_000 });
    await openApp(page);
    await newSession(page);
    await composer(page).fill('please read the attached transcript');
    const chooser = page.waitForEvent('filechooser');
    await page.getByRole('button', { name: 'Attach' }).click();
    // A real 1.2 MB transcript, attached as text so it is stored with the message.
    await (await chooser).setFiles({
      name: 'transcript.txt',
      mimeType: 'text/plain',
      buffer: readFileSync('fixtures/real/daaain_claude-code-log_0d3a8e6f-290f-4105-a327-a2496e5e2a83.jsonl'),
    });
    const attachments = page.getByRole('list', { name: 'Attachments' });
    await expect(attachments).toContainText('transcript.txt');
    await page.getByRole('button', { name: 'Send' }).click();

    // Before the write that fails, the 1.2 MB attachment is counted against the window (and a compaction
    // considered): seconds on a busy 2-core machine.
    await expect(page.getByText(/Browser storage is full: this change was not saved/)).toBeVisible({ timeout: 30_000 });
    await expect(composer(page)).toHaveValue('please read the attached transcript');
    await expect(attachments).toContainText('transcript.txt');
    await expect(userMessages(page)).toHaveCount(0);
    expect(await mock.chatRequests()).toHaveLength(0);
    await cdp.send('Storage.overrideQuotaForOrigin', { origin });
  });

  test('a draft survives a reload, in its own session', async ({ page }) => {
    await openApp(page);
    await newSession(page);
    await chatTurn(page, 'the first session');
    await composer(page).fill('half a thought, not sent yet');
    // Straight away: the draft is saved as the page goes away, not only after a pause in typing.
    await page.reload();
    await expect(composer(page)).toHaveValue('half a thought, not sent yet');

    // Another session has its own (empty) composer; coming back restores the draft.
    await newSession(page);
    await expect(composer(page)).toHaveValue('');
    await page.reload();
    await expect(composer(page)).toHaveValue('');
    await page.getByRole('navigation', { name: 'Sessions' }).getByRole('button', { name: /^the first session/ }).click();
    await expect(composer(page)).toHaveValue('half a thought, not sent yet');

    // Sending clears it, for good.
    await chatTurn(page, 'half a thought, not sent yet');
    await expect(composer(page)).toHaveValue('');
    await page.reload();
    await expect(userMessages(page)).toHaveCount(2);
    await expect(composer(page)).toHaveValue('');
  });
});

test.describe('sends from two tabs', () => {
  test('messages sent from two tabs at once become siblings, and each request holds only its own prompt', async ({ page, context }) => {
    await openApp(page);
    await setCompactionDefaults(page, { keepRecent: 200, enabled: false });
    await newSession(page);
    // mock-small (8,192 tokens): its reserve, scaled to a quarter of the window, leaves 6,144 tokens before a
    // message must be compacted first. The two turns below take about 1,700; "race B" fits, "race A" (about
    // 5,000 more) does not.
    await page.getByRole('combobox', { name: 'Model' }).selectOption('compat:mock-small');
    // Short replies: only the prompts matter here, and echoing long ones word by word takes seconds.
    await mock.script([
      { for: 'chat', match: 'alpha', reply: 'Noted alpha.' },
      { for: 'chat', match: 'beta', reply: 'Noted beta.' },
      { for: 'chat', match: 'race A', reply: 'Reply to race A.' },
    ]);
    await chatTurn(page, `alpha ${filler(40)}`);
    await chatTurn(page, `beta ${filler(40)}`);
    await setCompactionDefaults(page, { enabled: true });

    const other = await context.newPage();
    await other.goto(page.url());
    await expect(userMessages(other).last()).toContainText('beta');

    // Tab A's pre-send compaction takes a while (and then fails, changing nothing); tab B sends meanwhile.
    // Ten seconds: long enough for B's whole turn to reach tab A on a busy machine.
    await mock.script([{ for: 'summarizer', delayMs: 10_000, preset: '500' }]);
    await sendMessage(page, `race A ${filler(250)}`);
    await expect.poll(async () => (await mock.requests()).filter((r) => r.kind === 'summarizer').length).toBe(1);
    await chatTurn(other, 'race B');
    await expect(assistantMessages(other).last()).toContainText('Echo: race B');
    // B's message has reached tab A (its conversation follows), before A's send goes on.
    await expect(userMessages(page).last()).toContainText('race B');

    await expect(page.getByText(/Compaction failed/)).toBeVisible();
    await expect(assistantMessages(page).last()).toContainText('Reply to race A.', { timeout: 20_000 });
    await waitIdle(page);

    // Each request carries the shared history and its own prompt, never the other tab's.
    const chats = await mock.chatRequests();
    const userPrompts = chats.map(promptsOf);
    expect(userPrompts).toContainEqual(['alpha The', 'beta The', 'race A']);
    expect(userPrompts).toContainEqual(['alpha The', 'beta The', 'race B']);

    // Siblings under the same parent: each tab's message shows the other's as its alternative branch.
    for (const [p, prompt] of [
      [page, 'race A'],
      [other, 'race B'],
    ] as const) {
      await expect(userMessages(p).last()).toContainText(prompt);
      await expect(userMessages(p).last().getByRole('group', { name: 'Branches' })).toContainText('/2');
    }
    // And so they are stored: after a reload (which opens the stored leaf, A's) still two branches.
    await page.reload();
    await expect(userMessages(page).last()).toContainText('race A');
    await expect(userMessages(page).last().getByRole('group', { name: 'Branches' })).toContainText('/2');
    await other.close();
  });
});

test.describe('compaction that would not help', () => {
  test('a compaction that would not shrink the context is not appended, and the reason is shown', async ({ page }) => {
    await openApp(page);
    await setCompactionDefaults(page, { keepRecent: 200, enabled: false });
    await newSession(page);
    await page.getByRole('combobox', { name: 'Model' }).selectOption('compat:mock-small');
    await chatTurn(page, 'hi');
    // One message larger than mock-small's whole 8k window: the provider refuses it, and a summary of
    // the little history before it cannot make room.
    await sendMessage(page, `huge ${filler(600)}`);
    await expect(page.getByText(/would not have made the context smaller/)).toBeVisible({ timeout: 20_000 });
    await expect(page.getByText(/Compacting did not make it fit/)).toBeVisible();
    await waitIdle(page);
    await expect(page.getByRole('region', { name: 'Compaction summary' })).toHaveCount(0);
    await page.getByRole('button', { name: 'Timeline' }).click();
    await expect(page.getByRole('list', { name: 'Timeline' }).getByRole('article')).toHaveCount(0);
    // The overflow was reported once: the message, the refused request, nothing retried.
    expect(await mock.chatRequests()).toHaveLength(2);
    await expect(userMessages(page).last()).toContainText('huge');
  });
});

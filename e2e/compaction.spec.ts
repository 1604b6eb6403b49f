import { chatTurn, contextTokens, expect, mock, newSession, openApp, sendMessage, setCompactionDefaults, test, userMessages, assistantMessages, waitIdle } from './support/fixtures';

/** A long user message so the summarised part outweighs the summary. */
const long = (topic: string) => `${topic}: ${'The quick brown fox jumps over the lazy dog while the compiler reports warnings about unused imports. '.repeat(40)}`;

const SUMMARY_CHUNKS = ['## Goal\n', 'Keep the fox project ', 'moving.\n\n', '## Progress\n', '- Discussed topics one and two.\n', '## Next Steps\n', '- Continue with topic three.\n'];

test.describe('compaction', () => {
  test('Compact: the summary streams, the meter drops, and a reload keeps it', async ({ page }) => {
    await openApp(page);
    await setCompactionDefaults(page, { keepRecent: 200, enabled: false });
    await newSession(page);
    for (const t of ['topic one', 'topic two', 'topic three', 'topic four']) await chatTurn(page, long(t));
    const before = await contextTokens(page);
    expect(before).toBeGreaterThan(3000);

    await mock.script([{ for: 'summarizer', chunks: SUMMARY_CHUNKS, chunkDelayMs: 200 }]);
    await page.getByRole('button', { name: 'Compact', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Compact context' });
    const preview = dialog.getByRole('definition');
    await expect(dialog.getByText('Summarised')).toBeVisible();
    await expect(preview.first()).toContainText(/tokens/);
    await dialog.getByRole('textbox', { name: /Focus instructions/ }).fill('Keep the fox details');
    await dialog.getByRole('button', { name: 'Summarize and compact' }).click();
    // Streaming: part of the summary is visible before it completes.
    await expect(dialog.getByRole('region', { name: 'Summary in progress' })).toContainText('Keep the fox project');
    await expect(dialog).toBeHidden({ timeout: 20_000 });

    await expect(page.getByRole('region', { name: 'Compaction summary' })).toBeVisible();
    await expect.poll(() => contextTokens(page)).toBeLessThan(before / 2);
    const after = await contextTokens(page);

    // The summarizer got the focus instructions and the transcript framed as data.
    // (A cut inside the last turn gives that turn's start a summary of its own: a second call.)
    const summarizerCalls = (await mock.requests()).filter((r) => r.kind === 'summarizer');
    expect(summarizerCalls.length).toBeGreaterThanOrEqual(1);
    for (const call of summarizerCalls) {
      const body = JSON.stringify(call.body);
      expect(body).toContain('Keep the fox details');
      expect(body).toContain('<conversation>');
    }

    await page.reload();
    await expect(page.getByRole('region', { name: 'Compaction summary' })).toBeVisible();
    await expect.poll(() => contextTokens(page)).toBe(after);
    // The originals are still there, shown as outside the context.
    await expect(userMessages(page).first()).toContainText('topic one');
  });

  test('auto-compaction fires when the reported usage passes the threshold', async ({ page }) => {
    await openApp(page);
    await setCompactionDefaults(page, { keepRecent: 200 });
    await newSession(page);
    await chatTurn(page, long('first'));
    await chatTurn(page, long('second'));
    // mock-large has a 128k window; 16,384 reserve → compaction above 111,616 tokens.
    await mock.script([
      { for: 'chat', reply: 'A reply after a huge prompt.', usage: { prompt_tokens: 120_000, completion_tokens: 8 } },
      { for: 'summarizer', reply: '## Goal\nAuto summary of first and second.' },
    ]);
    await chatTurn(page, 'third');
    await expect(page.getByRole('region', { name: 'Compaction summary' })).toBeVisible({ timeout: 20_000 });
    await expect(page.getByRole('region', { name: 'Compaction summary' })).toContainText('Context compacted');
    await expect.poll(() => contextTokens(page)).toBeLessThan(20_000);
    // One compaction: its history summary, plus a turn-prefix summary when the cut splits the last turn.
    const calls = (await mock.requests()).filter((r) => r.kind === 'summarizer');
    expect(calls.length).toBeGreaterThanOrEqual(1);
    expect(calls.length).toBeLessThanOrEqual(2);
    await expect(page.getByRole('region', { name: 'Compaction summary' })).toHaveCount(1);
  });

  test('a reply whose reported prompt filled the whole window (silent truncation) triggers a compaction', async ({ page }) => {
    await openApp(page);
    await setCompactionDefaults(page, { keepRecent: 200, enabled: false });
    await newSession(page);
    await chatTurn(page, long('first'));
    await mock.script([
      { for: 'chat', reply: 'Answered from a truncated prompt.', usage: { prompt_tokens: 128_000, completion_tokens: 6 } },
      { for: 'summarizer', reply: '## Goal\nSummary after silent truncation.' },
    ]);
    await chatTurn(page, 'second');
    await expect(page.getByText(/part of the conversation was probably cut/)).toBeVisible();
    await expect(page.getByRole('region', { name: 'Compaction summary' })).toBeVisible({ timeout: 20_000 });
    // Auto-compaction is off: only the truncation evidence triggered it.
    expect((await mock.requests()).filter((r) => r.kind === 'summarizer').length).toBeGreaterThanOrEqual(1);
  });

  test('a context-overflow error triggers an emergency compaction and one retry; the message is kept', async ({ page }) => {
    await openApp(page);
    await setCompactionDefaults(page, { keepRecent: 200, enabled: false });
    await newSession(page);
    await chatTurn(page, long('alpha'));
    await chatTurn(page, long('beta'));
    await mock.script([
      { for: 'chat', preset: 'overflow' },
      { for: 'summarizer', reply: '## Goal\nEmergency summary: alpha and beta.' },
      { for: 'chat', reply: 'Answer after recovery.' },
    ]);
    await sendMessage(page, 'gamma question');
    await expect(assistantMessages(page).last()).toContainText('Answer after recovery.', { timeout: 20_000 });
    await waitIdle(page);
    await expect(userMessages(page).last()).toContainText('gamma question');
    const chats = await mock.chatRequests();
    const retry = JSON.stringify(chats.at(-1)!.body);
    expect(retry).toContain('Emergency summary: alpha and beta.');
    expect(retry).toContain('gamma question');
    await page.reload();
    await expect(userMessages(page).last()).toContainText('gamma question');
    await expect(assistantMessages(page).last()).toContainText('Answer after recovery.');
  });

  test('a second overflow after compacting is reported, not looped on', async ({ page }) => {
    await openApp(page);
    await setCompactionDefaults(page, { keepRecent: 200, enabled: false });
    await newSession(page);
    await chatTurn(page, long('alpha'));
    await mock.script([{ for: 'chat', preset: 'overflow' }, { for: 'summarizer', reply: '## Goal\nSummary.' }, { for: 'chat', preset: 'overflow' }]);
    await sendMessage(page, 'delta question');
    await expect(page.getByText(/Compacting did not make it fit/)).toBeVisible({ timeout: 20_000 });
    await waitIdle(page);
    expect(await mock.chatRequests()).toHaveLength(3); // alpha, delta, delta retry — and no more
    await expect(userMessages(page).last()).toContainText('delta question');
  });

  test('aborting mid-summary changes nothing', async ({ page }) => {
    await openApp(page);
    await setCompactionDefaults(page, { keepRecent: 200, enabled: false });
    await newSession(page);
    await chatTurn(page, long('one'));
    await chatTurn(page, long('two'));
    const before = await contextTokens(page);
    const entries = await page.getByRole('navigation', { name: 'Sessions' }).getByText(/entries/).innerText();
    await mock.script([{ for: 'summarizer', chunks: Array.from({ length: 40 }, (_, i) => `part ${i} `), chunkDelayMs: 150 }]);
    await page.getByRole('button', { name: 'Compact', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Compact context' });
    await dialog.getByRole('button', { name: 'Summarize and compact' }).click();
    await expect(dialog.getByRole('region', { name: 'Summary in progress' })).toContainText('part 2');
    await dialog.getByRole('button', { name: 'Cancel compaction' }).click();
    await expect(page.getByText('Compaction cancelled — nothing changed.')).toBeVisible();
    await page.keyboard.press('Escape');
    await expect(page.getByRole('region', { name: 'Compaction summary' })).toHaveCount(0);
    expect(await contextTokens(page)).toBe(before);
    await page.reload();
    await expect(page.getByRole('region', { name: 'Compaction summary' })).toHaveCount(0);
    await expect(page.getByRole('navigation', { name: 'Sessions' }).getByText(/entries/)).toHaveText(entries);
  });

  test('a summarizer that fails (HTTP 500) appends nothing and says so', async ({ page }) => {
    await openApp(page);
    await setCompactionDefaults(page, { keepRecent: 500, enabled: false });
    await page.getByLabel('Import file').setInputFiles('fixtures/real/SWE-agent_SWE-agent_pydicom__pydicom-1458.traj');
    await expect(page.getByText(/Imported 1 session/)).toBeVisible();
    await mock.script([{ for: 'summarizer', preset: '500' }]);
    await page.getByRole('button', { name: 'Compact', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Compact context' });
    await dialog.getByRole('button', { name: 'Summarize and compact' }).click();
    // The summarizer failed: nothing appended, the error is plain.
    await expect(page.getByText(/Compaction failed: .*Nothing changed/)).toBeVisible();
    await expect(page.getByRole('region', { name: 'Compaction summary' })).toHaveCount(0);
  });
});

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES_DIR, readFixture } from '@/lib/testing/fixtures';
import { testPorts } from '@/lib/testing/flowPorts';
import { AppFlows } from './app';

/**
 * The formats worker reports progress through a callback proxy and returns
 * the result on another message port, so a progress message can arrive after
 * the result. A late one must not bring the finished import's progress back.
 */
function withLateProgress() {
  const ports = testPorts();
  const real = ports.formats.importFileToStore;
  ports.formats.importFileToStore = (file, name, opts, onProgress) =>
    // Every progress report delivered on a later task, as a message from the worker is: the last ones after the result.
    real(file, name, opts, onProgress ? (p) => void setTimeout(() => onProgress(p), 0) : undefined);
  return ports;
}

/** Lets the progress messages still queued arrive (timers run in the order they were queued). */
const drain = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('progress arriving after the import finished', () => {
  it('a file import ends with no progress shown', async () => {
    const ports = withLateProgress();
    const flows = new AppFlows(ports);
    await flows.importFiles([new File([readFixture('chatgptExport')], 'conversations.json')], () => {});
    await drain();
    expect(flows.imports.getSnapshot()).toEqual({ active: null, error: null });
  });

  it('a folder import ends with its summary, not its progress', async () => {
    const ports = withLateProgress();
    const flows = new AppFlows(ports);
    const name = 'badlogic_pi-mono_compact.jsonl';
    const summary = await flows.importFolder('projects', [{ path: `projects/${name}`, file: new Blob([readFileSync(join(FIXTURES_DIR, name))]) }], () => {});
    await drain();
    expect(summary.sessionsImported).toBe(1);
    expect(flows.batch.getSnapshot()).toEqual({ running: null, summary });
  });
});

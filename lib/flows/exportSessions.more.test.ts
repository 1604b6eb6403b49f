import { describe, expect, it } from 'vitest';
import { strFromU8, unzipSync } from 'fflate';
import { importText } from '@/lib/formats';
import { readFixture } from '@/lib/testing/fixtures';
import { testPorts } from '@/lib/testing/flowPorts';
import { backupReminder, exportEverything, safeFileName } from './exportSessions';

/**
 * The export flows' edges: the file name a title becomes, the backup's name,
 * date and message, and exactly when the backup reminder is due.
 */

const WEEK = 7 * 24 * 3600 * 1000;
const NOW = Date.UTC(2026, 10, 23, 15, 0, 0);

async function importFixtures(ports: ReturnType<typeof testPorts>, ...names: ('librechatTree' | 'sweTraj')[]) {
  for (const name of names) {
    const { sessions } = importText(readFixture(name), { fileName: name });
    await ports.store.importSnapshots([sessions[0]!]);
  }
}

describe('the file name of an exported session', () => {
  it('keeps letters, digits, dashes and underscores of the title, accents folded, spaces as single dashes', () => {
    expect(safeFileName('Café: résumé & “notes”', 'md')).toBe('Cafe-resume-notes.md');
    expect(safeFileName('  fix  the   build_v2 - now  ', 'jsonl')).toBe('fix-the-build_v2---now.jsonl');
    expect(safeFileName('a/b\\c?d', 'html')).toBe('abcd.html');
  });

  it('is at most 60 characters before the extension, and never empty', () => {
    const long = 'word '.repeat(40);
    const name = safeFileName(long, 'md');
    expect(name.endsWith('.md')).toBe(true);
    expect(name.slice(0, -3)).toHaveLength(60);
    expect(name.slice(0, -3)).toMatch(/^word(-word)*-?$/);
    expect(safeFileName('', 'md')).toBe('session.md');
    expect(safeFileName('?!… ***', 'pi.jsonl')).toBe('session.pi.jsonl');
    expect(safeFileName('日本語', 'md')).toBe('session.md');
  });
});

describe('backing up everything', () => {
  it('names the zip by the day it was made, records that moment as the last backup, and counts the sessions', async () => {
    const ports = { ...testPorts(), now: () => NOW };
    await importFixtures(ports, 'librechatTree');
    await exportEverything(ports);
    expect(ports.saved.map((f) => [f.name, f.mime])).toEqual([['longctx-backup-2026-11-23.zip', 'application/zip']]);
    expect(await ports.store.getLastBackupAt()).toBe(NOW);
    expect(ports.notices).toEqual([{ level: 'success', message: 'Exported 1 session' }]);

    await importFixtures(ports, 'sweTraj');
    await exportEverything(ports);
    expect(Object.keys(unzipSync(ports.saved[1]!.data as Uint8Array)).filter((n) => n.endsWith('.jsonl'))).toHaveLength(2);
    expect(JSON.parse(strFromU8(unzipSync(ports.saved[1]!.data as Uint8Array)['index.json']!)).sessions).toHaveLength(2);
    expect(ports.notices.at(-1)).toEqual({ level: 'success', message: 'Exported 2 sessions' });
  });

  it('a backup that cannot be written says why and records no backup', async () => {
    const base = testPorts();
    const ports = {
      ...base,
      formats: {
        ...base.formats,
        exportAll: async () => {
          throw new Error('The disk is full.');
        },
      },
    };
    await importFixtures(ports, 'librechatTree');
    await exportEverything(ports);
    expect(ports.notices).toEqual([{ level: 'error', message: 'Export failed: The disk is full.' }]);
    expect(ports.saved).toEqual([]);
    expect(await ports.store.getLastBackupAt()).toBeNull();
  });
});

describe('the backup reminder', () => {
  it('is due only once the oldest session is more than a week old, and says "never" until a first backup', async () => {
    const ports = testPorts();
    expect(await backupReminder({ ...ports, now: () => NOW })).toBeNull();
    await ports.store.createSession({ title: 'new', createdAt: NOW - 1000 });
    await ports.store.createSession({ title: 'old', createdAt: NOW - WEEK });
    expect(await backupReminder({ ...ports, now: () => NOW })).toBeNull();
    expect(await backupReminder({ ...ports, now: () => NOW + 1 })).toBe('never');
  });

  it('after a backup, it is due again only once that backup is more than a week old', async () => {
    const ports = testPorts();
    await ports.store.createSession({ title: 'old', createdAt: NOW - 4 * WEEK });
    await ports.store.setLastBackupAt(NOW - WEEK);
    expect(await backupReminder({ ...ports, now: () => NOW })).toBeNull();
    expect(await backupReminder({ ...ports, now: () => NOW + 1 })).toBe('stale');
  });

  it('reads the clock when none is given', async () => {
    const ports = testPorts();
    await ports.store.createSession({ title: 'old', createdAt: Date.now() - 2 * WEEK });
    expect(await backupReminder(ports)).toBe('never');
    await ports.store.setLastBackupAt(Date.now());
    expect(await backupReminder(ports)).toBeNull();
  });
});

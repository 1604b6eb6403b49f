import { describe, expect, it } from 'vitest';
import { strFromU8, unzipSync } from 'fflate';
import { importText } from '@/lib/formats';
import { readFixture } from '@/lib/testing/fixtures';
import { testPorts } from '@/lib/testing/flowPorts';
import { backupReminder, EXPORT_FORMATS, exportEverything, exportSession, safeFileName } from './exportSessions';

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

describe('the export formats offered', () => {
  it('each has its own label and a hint, and saves a file whose type matches what is in it', async () => {
    const ports = testPorts();
    await importFixtures(ports, 'librechatTree');
    const [row] = await ports.store.listSessions();
    const snap = (await ports.store.exportSnapshot(row!.id))!;
    expect(new Set(EXPORT_FORMATS.map((f) => f.label)).size).toBe(EXPORT_FORMATS.length);
    for (const f of EXPORT_FORMATS) {
      expect(f.label.trim(), f.kind).not.toBe('');
      expect(f.hint.length, f.kind).toBeGreaterThan(10);
    }
    const saved: Record<string, { text: string; mime: string; name: string }> = {};
    for (const format of EXPORT_FORMATS) {
      expect(await exportSession(ports, row!.id, row!.title, format)).toBe(true);
      const file = ports.saved.at(-1)!;
      saved[format.kind] = { text: String(file.data), mime: file.mime, name: file.name };
    }
    // Six different files, each of the type its content is.
    expect(new Set(Object.values(saved).map((f) => f.text)).size).toBe(EXPORT_FORMATS.length);
    for (const [kind, f] of Object.entries(saved)) {
      const lines = f.text.split('\n').filter((l) => l.trim());
      const isJsonLines = lines.every((l) => {
        try {
          return typeof JSON.parse(l) === 'object';
        } catch {
          return false;
        }
      });
      const type = /^<!doctype html/i.test(f.text) ? 'text/html' : isJsonLines ? 'application/x-ndjson' : 'text/markdown';
      expect(f.mime, kind).toBe(type);
    }
    // The JSONL files re-import under their own names, as the app's session and as a pi session.
    const entries = snap.entries.length;
    expect(importText(saved.jsonl!.text, { fileName: saved.jsonl!.name }).sessions[0]!.entries).toHaveLength(entries);
    const pi = importText(saved['pi-jsonl']!.text, { fileName: saved['pi-jsonl']!.name });
    expect(pi.sessions[0]!.meta.source?.format).toBe('pi');
    // Obsidian's has front matter; all branches hold more than the active path.
    expect(saved['markdown-obsidian']!.text.startsWith('---\n')).toBe(true);
    expect(saved['markdown-all']!.text.length).toBeGreaterThan(saved.markdown!.text.length);
  });
});

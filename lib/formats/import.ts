import { importArchive, isZip } from './export/archive';
import { DETECT_HEAD_CHARS, detectFormat } from './detect';
import { asImportError } from './readers/jsonl';
import { readChatGpt } from './readers/chatgpt';
import { readClaudeAi } from './readers/claudeAi';
import { readClaudeCode } from './readers/claudeCode';
import { readCodex } from './readers/codex';
import { readGemini } from './readers/gemini';
import { readLibreChat } from './readers/librechat';
import { readLobeChat } from './readers/lobeChat';
import { readNative } from './readers/native';
import { readOpenWebUi } from './readers/openWebUi';
import { readPi } from './readers/pi';
import { readSweAgent } from './readers/sweAgent';
import { ImportError, type FormatId, type ImportOptions, type ImportResult } from './types';

export type TextReader = (text: string, opts?: ImportOptions) => ImportResult;

export const TEXT_READERS: Record<FormatId, TextReader> = {
  native: readNative,
  pi: readPi,
  'claude-code': readClaudeCode,
  codex: readCodex,
  'gemini-cli': readGemini,
  chatgpt: readChatGpt,
  'claude-ai': readClaudeAi,
  'open-webui': readOpenWebUi,
  lobechat: readLobeChat,
  librechat: readLibreChat,
  'swe-agent': readSweAgent,
};

/** Reads `text` as `format`; anything unexpected surfaces as an ImportError, never another exception. */
export function readAs(format: FormatId, text: string, opts: ImportOptions = {}): ImportResult {
  try {
    return TEXT_READERS[format](text, opts);
  } catch (err) {
    throw asImportError(err, format);
  }
}

/** Detects the format of a whole text and reads it. One import has one import time (for files without times). */
export function importText(text: string, given: ImportOptions = {}): ImportResult {
  const opts = { ...given, importedAt: given.importedAt ?? Date.now() };
  let format;
  try {
    format = detectFormat(text.slice(0, DETECT_HEAD_CHARS), opts.fileName);
  } catch (err) {
    throw err instanceof ImportError ? err : new ImportError(`Could not recognise the file (${String(err)})`);
  }
  if (format === 'archive') throw new ImportError('This is a zip archive; it has to be read as bytes (importBytes), not as text.');
  return readAs(format, text, opts);
}

/** A file's bytes: a zip archive of native sessions, or UTF-8 text in any supported format. */
export function importBytes(bytes: Uint8Array, opts: ImportOptions = {}): ImportResult {
  if (isZip(bytes)) return importArchive(bytes);
  return importText(new TextDecoder('utf-8').decode(bytes), opts);
}

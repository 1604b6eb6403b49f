/** What scripts and tests use of lib/formats in one import; the app reaches formats through lib/formats/service.ts. */
export type { ImportResult } from './types';
export { importText } from './import';
export { importStream } from './stream';
export { contentHash } from './hash';
export { exportJsonl } from './export/jsonl';
export { exportMarkdown } from './export/markdown';
export { exportHtml } from './export/html';
export { exportArchive, importArchive } from './export/archive';

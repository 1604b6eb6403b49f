/// <reference lib="webworker" />
/** Browser entry of the import/export worker; the main thread talks to it through formatsClient.ts. */
import { expose } from 'comlink';
import { createStoredImportService } from '@/lib/db/importFile';
import { createProbeService } from '@/lib/compaction/probes/report';
import { createFormatsService } from '@/lib/formats/service';

// The probe report rides along: a long span takes a few hundred milliseconds to score, which must not hold up the token
// worker that counts every send, and this worker is idle outside imports and exports.
expose({ ...createFormatsService(), ...createStoredImportService(), ...createProbeService() });

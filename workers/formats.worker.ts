/// <reference lib="webworker" />
/** Browser entry of the import/export worker; the main thread talks to it through formatsClient.ts. */
import { expose } from 'comlink';
import { createStoredImportService } from '@/lib/db/importFile';
import { createFormatsService } from '@/lib/formats/service';

expose({ ...createFormatsService(), ...createStoredImportService() });

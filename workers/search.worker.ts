/// <reference lib="webworker" />
/**
 * Browser entry of the search worker: the index (lib/search) over this
 * browser's database, which the worker opens itself. The main thread talks
 * to it through searchClient.ts.
 */
import { expose } from 'comlink';
import { dbSearchSource } from '@/lib/db/searchSource';
import { createSearchService } from '@/lib/search/service';

expose(createSearchService(dbSearchSource()));

/// <reference lib="webworker" />
/**
 * Browser entry of the search worker: the index (lib/search) over this
 * browser's database, which the worker opens itself, and the index's stored
 * copy (a database of its own). The main thread talks to it through
 * searchClient.ts.
 */
import { expose } from 'comlink';
import { dbSearchIndexStore } from '@/lib/db/searchIndexStore';
import { dbSearchSource } from '@/lib/db/searchSource';
import { createSearchService } from '@/lib/search/service';

expose(createSearchService(dbSearchSource(), { store: dbSearchIndexStore() }));

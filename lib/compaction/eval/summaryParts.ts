import { stripFileFooter } from '../fileOps';
import { splitUserMessages } from '../userMessages';

/**
 * What the summarizer itself wrote: the summary without the parts the app
 * appends to every summary whoever wrote it (the user-messages section and
 * the file lists). Scoring only the whole would credit a summarizer with what
 * the app added, which is how an empty model answer once scored 95 %.
 */
export function summaryBody(summary: string): string {
  return splitUserMessages(stripFileFooter(summary)).rest.trim();
}

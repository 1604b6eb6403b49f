import { formatCount } from './numbers';

/** "1 branch point", "2 branch points", "1 entry", "3 entries": the count with its noun in the right number. */
export function plural(n: number, singular: string, pluralForm = `${singular}s`): string {
  return `${formatCount(n)} ${n === 1 ? singular : pluralForm}`;
}

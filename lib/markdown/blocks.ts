import remarkGfm from 'remark-gfm';
import remarkMath from 'remark-math';
import remarkParse from 'remark-parse';
import { unified } from 'unified';

/**
 * A streaming reply split into the blocks that are complete and the tail that
 * may still change, so a renderer parses each completed block once instead of
 * the whole reply on every update (quadratic in the reply's length).
 *
 * Where a block ends is decided by the markdown parser itself (CommonMark, GFM
 * and math, as the renderers use), not by guessing at blank lines: a top-level
 * block is complete once the next one has started, because markdown never
 * reopens a closed block. Only the tail is parsed again on each update.
 * Rendering the blocks one by one gives what rendering the whole text gives,
 * with one exception handled by not splitting at all: link reference and
 * footnote definitions reach across blocks.
 */
export interface BlockSplit {
  /** The text these blocks were cut from (a later text extends it while streaming). */
  readonly text: string;
  /** Completed top-level blocks, each with the blank lines that follow it; their concatenation is a prefix of `text`. */
  readonly blocks: readonly string[];
  /** Where the blocks end: the rest of `text` is the tail. */
  readonly stableLength: number;
}

interface Node {
  type: string;
  position?: { start: { offset?: number } };
  children?: Node[];
}

const parser = unified().use(remarkParse).use(remarkGfm).use(remarkMath).freeze();

/** A definition anywhere lets a link or footnote reference in another block resolve: never split such a text. */
const DEFINITION = /^ {0,3}\[[^\]\n]+\]:/m;

/** Text that ends with a blank line (and any indentation of the next line). */
const AFTER_BLANK_LINE = /\n[ \t]*\n[ \t]*$/;

const EMPTY: BlockSplit = { text: '', blocks: [], stableLength: 0 };

/**
 * Splits `text` into completed blocks and a tail. Given the split of an
 * earlier text that `text` extends, only what follows its last completed block
 * is parsed; otherwise (an edited or shorter text) it starts over.
 */
export function splitBlocks(text: string, previous: BlockSplit = EMPTY): BlockSplit {
  if (DEFINITION.test(text)) return { text, blocks: [], stableLength: 0 };
  const base = previous.stableLength > 0 && text.length >= previous.text.length && text.startsWith(previous.text) ? previous : EMPTY;
  const from = base.stableLength;
  const tail = text.slice(from);
  const tree = parser.parse(tail) as Node;
  // A block that follows the previous one without a blank line may parse differently alone (a list that
  // interrupts a paragraph obeys stricter rules), so only a start after a blank line is a place to cut.
  const starts = (tree.children ?? [])
    .map((n) => n.position?.start.offset)
    .filter((o): o is number => o !== undefined)
    .filter((o, i) => i === 0 || AFTER_BLANK_LINE.test(tail.slice(0, o)));
  if (starts.length < 2) return base === previous && base.text === text ? base : { ...base, text };
  const blocks = [...base.blocks];
  // Each block runs from its own start to the next one's; the first one also takes any leading blank lines.
  let at = 0;
  for (let i = 1; i < starts.length; i++) {
    blocks.push(text.slice(from + at, from + starts[i]!));
    at = starts[i]!;
  }
  return { text, blocks, stableLength: from + at };
}

/** The part of `split.text` after its completed blocks. */
export function tailOf(split: BlockSplit): string {
  return split.text.slice(split.stableLength);
}

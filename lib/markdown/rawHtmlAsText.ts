/**
 * A remark plugin that turns raw HTML in markdown into plain text, so
 * `<script>` or `<img onerror>` typed into a chat shows up as what was typed
 * instead of vanishing (remark-rehype would drop it) or running. Structural
 * types keep it free of mdast type packages.
 */
interface Node {
  type: string;
  value?: unknown;
  children?: Node[];
}

export function remarkRawHtmlAsText() {
  return (tree: Node) => {
    const stack: Node[] = [tree];
    while (stack.length) {
      const node = stack.pop()!;
      if (node.type === 'html') node.type = 'text';
      if (node.children) for (const c of node.children) stack.push(c);
    }
  };
}

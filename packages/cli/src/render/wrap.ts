/** Prose lines fitted to the terminal: words move to the next line, indented, instead of running past the edge. */
export function wrap(text: string, width: number, indent = '  '): string {
  const out: string[] = [];
  for (const line of text.split('\n')) {
    let current = '';
    for (const word of line.split(' ')) {
      const next = current === '' ? word : `${current} ${word}`;
      if (next.length <= width || current.trim() === '') current = next;
      else {
        out.push(current);
        current = indent + word;
      }
    }
    out.push(current);
  }
  return out.join('\n');
}

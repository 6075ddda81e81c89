// The slices still open while an exporter writes BEGIN/END pairs in time order, by end time.
/** Min-heap of open slices by end time; on ties the deeper slice ends first so nesting is preserved. */
export class EndHeap {
  // A typed array with its own count: a plain array shrinks as it is popped and reallocates as it regrows.
  private items = new Int32Array(64);
  size = 0;
  /** Slices are numbers into these arrays; a caller that grows them assigns the grown ones here. */
  constructor(public endOf: Float64Array, public depthOf: Int32Array) {}
  private less(a: number, b: number): boolean {
    const ea = this.endOf[a]!, eb = this.endOf[b]!;
    return ea < eb || (ea === eb && this.depthOf[a]! > this.depthOf[b]!);
  }
  peek(): number { return this.items[0]!; }
  push(i: number): void {
    if (this.size === this.items.length) {
      const bigger = new Int32Array(this.size * 2);
      bigger.set(this.items);
      this.items = bigger;
    }
    const h = this.items;
    let k = this.size++;
    h[k] = i;
    while (k > 0) {
      const p = (k - 1) >> 1;
      if (!this.less(h[k]!, h[p]!)) break;
      const t = h[k]!; h[k] = h[p]!; h[p] = t;
      k = p;
    }
  }
  pop(): number {
    const h = this.items;
    const top = h[0]!;
    const n = --this.size;
    if (n > 0) {
      h[0] = h[n]!;
      let k = 0;
      for (;;) {
        const l = 2 * k + 1, r = l + 1;
        let m = k;
        if (l < n && this.less(h[l]!, h[m]!)) m = l;
        if (r < n && this.less(h[r]!, h[m]!)) m = r;
        if (m === k) break;
        const t = h[k]!; h[k] = h[m]!; h[m] = t;
        k = m;
      }
    }
    return top;
  }
}


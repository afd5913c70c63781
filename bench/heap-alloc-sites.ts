import { Session } from 'node:inspector/promises';

/**
 * Where the bytes still alive were allocated (for bench/scope-heap.ts, SCOPE_HEAP_SITES=1): V8's sampling heap
 * profiler runs from one count of scopes to the next, so what it reports at the end (after full GCs) is what
 * the scopes built in between keep. Each sample is charged to the innermost frame in the product's own source
 * (`/src/`, or the bundle in `.bench/`), named by function, file and line, so a row reads "this line's allocations, still held".
 */
export class AllocationSites {
  private readonly session = new Session();

  async start(): Promise<void> {
    this.session.connect();
    // 64 bytes: close to every allocation (a closure is 32, a small object 28-60), at a bench's cost.
    await this.session.post('HeapProfiler.startSampling', { samplingInterval: 64 });
  }

  /** Bytes per site (live now, allocated since start), largest first. */
  async stop(top: number): Promise<Array<{ site: string; bytes: number }>> {
    const { profile } = await this.session.post('HeapProfiler.getSamplingProfile');
    await this.session.post('HeapProfiler.stopSampling');
    this.session.disconnect();
    const bySite = new Map<string, number>();
    const walk = (node: SamplingNode, site: string | undefined) => {
      const { functionName, url, lineNumber } = node.callFrame;
      const here = ours(url)
        ? `${functionName || '(anonymous)'} ${url.slice(url.lastIndexOf('/src/') + 1)}:${lineNumber + 1}`
        : site;
      if (node.selfSize > 0)
        bySite.set(here ?? '(outside src)', (bySite.get(here ?? '(outside src)') ?? 0) + node.selfSize);
      for (const child of node.children) walk(child, here);
    };
    walk(profile.head as SamplingNode, undefined);
    return [...bySite]
      .map(([site, bytes]) => ({ site, bytes }))
      .sort((a, b) => b.bytes - a.bytes)
      .slice(0, top);
  }
}

/** The product's own code: its source under tsx, or the bench's bundle of it (.bench/; packages stay outside). */
const ours = (url: string) =>
  (url.includes('/src/') || url.includes('/.bench/')) && !url.includes('node_modules');

interface SamplingNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: SamplingNode[];
}

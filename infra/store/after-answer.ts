// Work a publish leaves for after its answer: settling the pointer move (order item, the header's
// move number, the expiry of the versions it replaced, then `settled`; pointer.ts). None of it
// decides what readers see: the version is complete and latest once the pointer names it, and a
// move that is never settled (the process stops) is settled by the next move or a retry of the
// same publish, as after a crash (the crash-point test covers every such stop). One cluster's
// next move in this process waits for it first, so two moves of one process never settle at once.

export class AfterAnswer {
  private readonly byCluster = new Map<string, Promise<void>>();
  private failures = 0;
  constructor(private readonly report: (e: unknown) => void) {}

  /** Runs `work` after the current one of `cluster`; its failure is reported, never thrown to a caller. */
  add(cluster: string, work: () => Promise<void>): void {
    const before = this.byCluster.get(cluster) ?? Promise.resolve();
    const next = before.then(work).catch((e: unknown) => {
      this.failures++;
      this.report(e);
    });
    this.byCluster.set(cluster, next);
    void next.then(() => {
      if (this.byCluster.get(cluster) === next) this.byCluster.delete(cluster);
    });
  }

  /** Resolves once the work added for `cluster` so far is done (every cluster's when absent). */
  async done(cluster?: string): Promise<void> {
    if (cluster !== undefined) return this.byCluster.get(cluster);
    while (this.byCluster.size > 0) await Promise.all(this.byCluster.values());
  }

  /** Work that failed since start (each reported when it failed). */
  get failed(): number {
    return this.failures;
  }
}

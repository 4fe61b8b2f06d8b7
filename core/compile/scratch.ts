// Reusable buffers of one flat compile, owned by it (compile.ts makes one per call and drops it
// after): refining classes and listing a cell's points run tens of thousands of times per compile,
// and allocating per call showed in profiles. Owned, not module-level, so two compiles (a
// re-entrant call, an async caller interleaving them) never share a buffer.

/** refine's old class → new class map for the current set: typed arrays stamped with a generation instead of a Map per set. */
export class ClassRenames {
  to = new Int32Array(1024);
  gen = new Int32Array(1024);
  generation = 0;

  /** Starts a new map over class ids below `classes`. */
  next(classes: number): void {
    if (classes > this.gen.length) {
      const size = Math.max(classes, this.gen.length * 2);
      this.to = new Int32Array(size);
      this.gen = new Int32Array(size);
      this.generation = 0;
    }
    if (++this.generation === 0x3fffffff) {
      this.gen.fill(0);
      this.generation = 1;
    }
  }
}

export class CompileScratch {
  readonly renames = new ClassRenames();
  /** pointsOf's output (emit.ts): each result is consumed before the next call. */
  points = new Int32Array(1024);
}

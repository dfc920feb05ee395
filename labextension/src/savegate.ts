/**
 * Saves of a document that wait for something first: while the engine decides a change the
 * page applied first to an open notebook (livecells.ts), that change must not reach the disk
 * unconfirmed, so the notebook's saves (the Save command, autosave, Save As) wait for the
 * decision and then write whatever the notebook holds by then: the change when the engine
 * confirmed it, the cells as they were when it refused.
 */

/** The saving part of a document's context (`DocumentRegistry.IContext`). */
export interface ISavable {
  save(): Promise<void>;
  saveAs(): Promise<unknown>;
}

const held = new WeakMap<ISavable, Set<Promise<void>>>();

/** Until every hold of `waits` has settled (each resolves, never rejects). */
async function waitFor(waits: Set<Promise<void>>): Promise<void> {
  while (waits.size) {
    await Promise.all([...waits]);
  }
}

/** Saves of `context` wait until `until` settles (and any other hold on it). */
export function holdSaves(context: ISavable, until: Promise<void>): void {
  let waits = held.get(context);
  if (!waits) {
    const found = new Set<Promise<void>>();
    waits = found;
    held.set(context, found);
    const save = context.save.bind(context);
    const saveAs = context.saveAs.bind(context);
    context.save = async () => {
      await waitFor(found);
      return save();
    };
    context.saveAs = async () => {
      await waitFor(found);
      return saveAs();
    };
  }
  const waiting = waits;
  const done = until.then(
    () => undefined,
    () => undefined
  );
  waiting.add(done);
  void done.then(() => waiting.delete(done));
}

/** Whether saves of `context` wait now. */
export function savesHeld(context: ISavable): boolean {
  return (held.get(context)?.size ?? 0) > 0;
}

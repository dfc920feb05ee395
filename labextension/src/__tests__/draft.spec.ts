import { DRAFT_KEY, loadDraft, MAX_DRAFT_CHARS, saveDraft } from '../draft';

/** A Map-backed Storage (the tests run in node, without a browser). */
function memoryStorage(): Storage {
  const data = new Map<string, string>();
  return {
    get length() {
      return data.size;
    },
    clear: () => data.clear(),
    getItem: (k: string) => data.get(k) ?? null,
    key: (i: number) => [...data.keys()][i] ?? null,
    removeItem: (k: string) => void data.delete(k),
    setItem: (k: string, v: string) => void data.set(k, v)
  };
}

describe('reply draft', () => {
  it('keeps the reply box text and gives it back', () => {
    const store = memoryStorage();
    expect(loadDraft(store)).toBe('');
    saveDraft('OPERATOR_CMD\nid: a\nEND_OPERATOR_CMD', store);
    expect(store.getItem(DRAFT_KEY)).toContain('id: a');
    expect(loadDraft(store)).toBe('OPERATOR_CMD\nid: a\nEND_OPERATOR_CMD');
  });

  it('forgets an emptied box and never keeps an oversized reply', () => {
    const store = memoryStorage();
    saveDraft('x', store);
    saveDraft('', store);
    expect(loadDraft(store)).toBe('');
    saveDraft('y'.repeat(MAX_DRAFT_CHARS + 1), store);
    expect(loadDraft(store)).toBe('');
  });

  it('survives a storage that refuses writes', () => {
    const store = memoryStorage();
    store.setItem = () => {
      throw new Error('QuotaExceededError');
    };
    expect(() => saveDraft('text', store)).not.toThrow();
    expect(loadDraft(store)).toBe('');
  });
});

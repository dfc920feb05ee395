import { looksLikeJsonOperations } from '../jsonops';

describe('looksLikeJsonOperations', () => {
  it('recognises the shapes the server detects', () => {
    expect(looksLikeJsonOperations('{"type": "createFile", "path": "a"}')).toBe(true);
    expect(looksLikeJsonOperations('[{"type": "message"}]')).toBe(true);
    expect(looksLikeJsonOperations('{"operations": []}')).toBe(true);
    expect(looksLikeJsonOperations('{"id": "s1", "type": "shell"}')).toBe(true);
    expect(looksLikeJsonOperations('Here:\n```json\n{"type": "message"}\n```')).toBe(true);
  });
  it('leaves everything else to the Operator dialect', () => {
    expect(looksLikeJsonOperations('OPERATOR_CMD\n```json\n{}\n```')).toBe(false);
    expect(looksLikeJsonOperations('{"name": "package"}')).toBe(false);
    expect(looksLikeJsonOperations('plain prose')).toBe(false);
  });
});
